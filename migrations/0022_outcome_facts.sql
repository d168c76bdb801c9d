ALTER TABLE `applications` ADD `feed_id` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `score` real;--> statement-breakpoint
ALTER TABLE `applications` ADD `bid_ratio` real;--> statement-breakpoint
CREATE INDEX `applications_sent_idx` ON `applications` (`account_id`,`processed_at_ts`);--> statement-breakpoint
ALTER TABLE `feeds` ADD `outcome_events` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sandbox_submissions` ADD `interview_at_ts` integer;--> statement-breakpoint
ALTER TABLE `sandbox_submissions` ADD `hired_at_ts` integer;--> statement-breakpoint
ALTER TABLE `sandbox_submissions` ADD `lost_at_ts` integer;--> statement-breakpoint
ALTER TABLE `sandbox_submissions` ADD `plan` text;