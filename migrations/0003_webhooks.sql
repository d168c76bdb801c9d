CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_seq` integer NOT NULL,
	`attempt` integer NOT NULL,
	`started_at_ts` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`status_code` integer,
	`error` text,
	FOREIGN KEY (`event_seq`) REFERENCES `events`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_event_idx` ON `webhook_attempts` (`event_seq`);--> statement-breakpoint
ALTER TABLE `events` ADD `status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `next_attempt_at_ts` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `delivered_at_ts` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `last_status_code` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `last_error` text;--> statement-breakpoint
CREATE INDEX `events_due_idx` ON `events` (`next_attempt_at_ts`) WHERE status IN ('pending', 'retrying');--> statement-breakpoint
CREATE INDEX `events_job_feed_idx` ON `events` (`job_ciphertext`,`feed_id`);--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_secret` text;--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_previous_secret` text;--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_previous_until_ts` integer;--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_failing_since_ts` integer;--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_disabled_at_ts` integer;--> statement-breakpoint
ALTER TABLE `feeds` ADD `webhook_disabled_reason` text;