CREATE TABLE `proposal_drafts` (
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`first_drafted_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `job_ciphertext`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `applications` ADD `replied_at_ts` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `interview_at_ts` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `hired_at_ts` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `outcome` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `outcome_at_ts` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `value_usd` real;--> statement-breakpoint
ALTER TABLE `applications` ADD `outcome_note` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `connects_required` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `boost_connects` integer;