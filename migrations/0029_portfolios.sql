CREATE TABLE `portfolios` (
	`account_id` text NOT NULL,
	`profile_id` text NOT NULL,
	`document` text NOT NULL,
	`updated_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `profile_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `proposal_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`version` integer NOT NULL,
	`letter` text NOT NULL,
	`instruction` text,
	`writer` text NOT NULL,
	`claims` text NOT NULL,
	`member_id` text,
	`created_at_ts` integer NOT NULL,
	`sent_application_id` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `proposal_versions_job_uq` ON `proposal_versions` (`account_id`,`job_ciphertext`,`version`);