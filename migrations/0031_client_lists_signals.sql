CREATE TABLE `client_lists` (
	`account_id` text NOT NULL,
	`company_id` text NOT NULL,
	`list` text NOT NULL,
	`reason` text,
	`added_at_ts` integer NOT NULL,
	`added_by` text,
	PRIMARY KEY(`account_id`, `company_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `filtered_jobs` (
	`feed_id` text NOT NULL,
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`filter` text NOT NULL,
	`reason` text NOT NULL,
	`at_ts` integer NOT NULL,
	PRIMARY KEY(`feed_id`, `job_ciphertext`),
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `filtered_jobs_account_at_idx` ON `filtered_jobs` (`account_id`,`at_ts`);--> statement-breakpoint
ALTER TABLE `feeds` ADD `signal_rules` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `feeds` ADD `alert_favoured` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `signals` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `match_fields` text;