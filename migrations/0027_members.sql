CREATE TABLE `member_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`purpose` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`expires_at_ts` integer NOT NULL,
	`used_at_ts` integer,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `member_links_member_idx` ON `member_links` (`member_id`);--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text,
	`created_at_ts` integer NOT NULL,
	`removed_at_ts` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_email_uq` ON `members` (`email`) WHERE removed_at_ts IS NULL;--> statement-breakpoint
CREATE INDEX `members_account_idx` ON `members` (`account_id`);--> statement-breakpoint
ALTER TABLE `dashboard_sessions` ADD `member_id` text;