CREATE TABLE `ai_usage` (
	`account_id` text NOT NULL,
	`month` text NOT NULL,
	`purpose` text NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`account_id`, `month`, `purpose`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`account_id` text NOT NULL,
	`feed_id` text NOT NULL,
	`feed_job_id` text,
	`job_ciphertext` text,
	`created_at_ts` integer NOT NULL,
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_feed_idx` ON `events` (`feed_id`,`seq`);--> statement-breakpoint
CREATE TABLE `feed_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`feed_id` text NOT NULL,
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`matching_score` real NOT NULL,
	`score_source` text NOT NULL,
	`score_reason` text,
	`matched_at_ts` integer NOT NULL,
	`read` integer DEFAULT false NOT NULL,
	`starred_at_ts` integer,
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`job_ciphertext`) REFERENCES `jobs`(`ciphertext`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feed_jobs_job_feed_uq` ON `feed_jobs` (`job_ciphertext`,`feed_id`);--> statement-breakpoint
CREATE INDEX `feed_jobs_feed_matched_idx` ON `feed_jobs` (`feed_id`,`matched_at_ts`);--> statement-breakpoint
CREATE TABLE `feeds` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`title` text NOT NULL,
	`profile_prompt` text DEFAULT '' NOT NULL,
	`min_score` real NOT NULL,
	`includes` text NOT NULL,
	`excludes` text NOT NULL,
	`min_hourly_rate` real,
	`min_fixed_price` real,
	`client_min_spent` real,
	`country_filter_mode` text DEFAULT 'exclude' NOT NULL,
	`excluded_countries` text NOT NULL,
	`included_countries` text NOT NULL,
	`platforms` text,
	`proposal_generation_prompt` text,
	`notifications_muted` integer DEFAULT false NOT NULL,
	`email_found` text DEFAULT 'all' NOT NULL,
	`job_types` text NOT NULL,
	`us_only_mode` text DEFAULT 'all' NOT NULL,
	`payment_verified_only` integer DEFAULT false NOT NULL,
	`client_min_rating` real,
	`client_min_reviews` integer,
	`webhook_url` text,
	`created_at_ts` integer NOT NULL,
	`updated_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `feeds_account_idx` ON `feeds` (`account_id`);--> statement-breakpoint
CREATE TABLE `job_scores` (
	`job_ciphertext` text NOT NULL,
	`prompt_hash` text NOT NULL,
	`score` real NOT NULL,
	`reason` text,
	`model` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	PRIMARY KEY(`job_ciphertext`, `prompt_hash`)
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`ciphertext` text PRIMARY KEY NOT NULL,
	`job_uid` text,
	`platform` text NOT NULL,
	`title` text NOT NULL,
	`url` text NOT NULL,
	`job_type` text,
	`hourly_min` real,
	`hourly_max` real,
	`fixed_budget` real,
	`client_country` text,
	`client_total_spent` real,
	`payment_verified` integer,
	`client_rating` real,
	`client_reviews` integer,
	`us_only` integer,
	`email_found` integer NOT NULL,
	`publish_time_ts` integer,
	`company_id` text,
	`source` text NOT NULL,
	`document` text NOT NULL,
	`first_seen_at_ts` integer NOT NULL,
	`explored_at_ts` integer NOT NULL,
	`updated_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_company_idx` ON `jobs` (`company_id`);--> statement-breakpoint
CREATE INDEX `jobs_first_seen_idx` ON `jobs` (`first_seen_at_ts`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`run_at_ts` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`lease_until_ts` integer,
	`last_error` text,
	`created_at_ts` integer NOT NULL,
	`updated_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_claim_idx` ON `tasks` (`status`,`run_at_ts`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `ai_scoring_allowance` integer;