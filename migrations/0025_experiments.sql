CREATE TABLE `experiment_arms` (
	`id` text PRIMARY KEY NOT NULL,
	`experiment_id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`prompt` text,
	`template` text,
	`bid_multiplier` real,
	`hourly_rate` real,
	`fixed_bid` real,
	`boost_bids` integer,
	`send_delay_minutes` integer,
	FOREIGN KEY (`experiment_id`) REFERENCES `experiments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experiment_arms_position_uq` ON `experiment_arms` (`experiment_id`,`position`);--> statement-breakpoint
CREATE TABLE `experiment_assignments` (
	`experiment_id` text NOT NULL,
	`account_id` text NOT NULL,
	`job_ciphertext` text NOT NULL,
	`arm_id` text NOT NULL,
	`assigned_at_ts` integer NOT NULL,
	`drafted_letter` text,
	PRIMARY KEY(`experiment_id`, `job_ciphertext`),
	FOREIGN KEY (`experiment_id`) REFERENCES `experiments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `experiment_assignments_arm_idx` ON `experiment_assignments` (`experiment_id`,`arm_id`);--> statement-breakpoint
CREATE INDEX `experiment_assignments_job_idx` ON `experiment_assignments` (`account_id`,`job_ciphertext`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`feed_id` text,
	`freelancer_id` text,
	`objective` text NOT NULL,
	`allocation` text NOT NULL,
	`seed` text NOT NULL,
	`state` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`updated_at_ts` integer NOT NULL,
	`stopped_at_ts` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `experiments_account_idx` ON `experiments` (`account_id`,`created_at_ts`);--> statement-breakpoint
CREATE INDEX `experiments_feed_idx` ON `experiments` (`account_id`,`feed_id`,`state`);--> statement-breakpoint
ALTER TABLE `applications` ADD `experiment_id` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `arm_id` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `edited_by_hand` integer;--> statement-breakpoint
CREATE INDEX `applications_experiment_idx` ON `applications` (`experiment_id`,`arm_id`,`status`);