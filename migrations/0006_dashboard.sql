CREATE TABLE `dashboard_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text,
	`csrf_token` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`expires_at_ts` integer NOT NULL,
	`last_seen_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_account_idx` ON `dashboard_sessions` (`account_id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_key_idx` ON `dashboard_sessions` (`key_id`);--> statement-breakpoint
CREATE TABLE `dashboard_sign_in_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`expires_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
