CREATE TABLE `feed_members` (
	`feed_id` text NOT NULL,
	`member_id` text NOT NULL,
	PRIMARY KEY(`feed_id`, `member_id`),
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `feed_members_member_idx` ON `feed_members` (`member_id`);--> statement-breakpoint
CREATE TABLE `job_claims` (
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`member_id` text NOT NULL,
	`claimed_at_ts` integer NOT NULL,
	`expires_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `job_ciphertext`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `job_claims_member_idx` ON `job_claims` (`member_id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `bidders_may_send` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `member_id` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `applications` ADD `drafted_by` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `approved_by` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `sent_by` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `review_comment` text;--> statement-breakpoint
ALTER TABLE `automation_audit` ADD `member_id` text;--> statement-breakpoint
ALTER TABLE `automation_audit` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `automation_audit` ADD `actor` text;--> statement-breakpoint
ALTER TABLE `feeds` ADD `freelancer_id` text;--> statement-breakpoint
ALTER TABLE `feeds` ADD `profile_id` text;