CREATE TABLE `applications` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`processed_job_id` text,
	`driver` text NOT NULL,
	`freelancer_id` text NOT NULL,
	`profile_id` text NOT NULL,
	`status` text NOT NULL,
	`status_message` text,
	`error_message` text,
	`phase` text NOT NULL,
	`credit_held` integer NOT NULL,
	`cover_letter` text NOT NULL,
	`hourly_rate` real,
	`fixed_bid` real,
	`timeline` text NOT NULL,
	`boost_bids` integer DEFAULT 0 NOT NULL,
	`answers` text NOT NULL,
	`auto_fill` integer NOT NULL,
	`explicit_positions` text NOT NULL,
	`applied_at_ts` integer NOT NULL,
	`processed_at_ts` integer,
	`logged_out_since_ts` integer,
	`viewed` integer DEFAULT false NOT NULL,
	`replied` integer DEFAULT false NOT NULL,
	`viewed_at_ts` integer,
	`last_checked_at_ts` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`job_ciphertext`) REFERENCES `jobs`(`ciphertext`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `applications_account_idx` ON `applications` (`account_id`,`applied_at_ts`);--> statement-breakpoint
CREATE INDEX `applications_job_idx` ON `applications` (`account_id`,`job_ciphertext`);--> statement-breakpoint
CREATE UNIQUE INDEX `applications_live_uq` ON `applications` (`account_id`,`job_ciphertext`) WHERE status IN ('processing', 'applied');--> statement-breakpoint
CREATE INDEX `applications_status_idx` ON `applications` (`status`);--> statement-breakpoint
CREATE TABLE `bridge_outcomes` (
	`application_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`received_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_closed_jobs` (
	`job_ciphertext` text PRIMARY KEY NOT NULL,
	`closed_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_freelancers` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`avatar_url` text,
	`base_hourly_rate` real,
	`country` text NOT NULL,
	`job_success_score` integer NOT NULL,
	`connects` integer NOT NULL,
	`created_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_freelancers_account_idx` ON `sandbox_freelancers` (`account_id`);--> statement-breakpoint
CREATE TABLE `sandbox_profiles` (
	`profile_id` text PRIMARY KEY NOT NULL,
	`freelancer_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`hourly_rate` real,
	`currency` text NOT NULL,
	`skills` text NOT NULL,
	FOREIGN KEY (`freelancer_id`) REFERENCES `sandbox_freelancers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sandbox_profiles_freelancer_idx` ON `sandbox_profiles` (`freelancer_id`);--> statement-breakpoint
CREATE TABLE `sandbox_sessions` (
	`account_id` text PRIMARY KEY NOT NULL,
	`valid` integer NOT NULL,
	`restorable` integer NOT NULL,
	`updated_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_submissions` (
	`application_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`freelancer_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`connects_spent` integer NOT NULL,
	`submitted_at_ts` integer NOT NULL,
	`viewed_at_ts` integer,
	`replied_at_ts` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sandbox_submissions_applied_uq` ON `sandbox_submissions` (`freelancer_id`,`job_ciphertext`) WHERE status = 'applied';--> statement-breakpoint
ALTER TABLE `accounts` ADD `credits_held` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `marketplace_driver` text;