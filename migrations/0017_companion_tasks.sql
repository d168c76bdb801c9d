CREATE TABLE `companion_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`application_id` text,
	`body` text NOT NULL,
	`state` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`claimed_at_ts` integer,
	`review_since_ts` integer,
	`review_url` text,
	`ended_at_ts` integer,
	`answer` text
);
--> statement-breakpoint
CREATE INDEX `companion_tasks_account_state_idx` ON `companion_tasks` (`account_id`,`state`,`created_at_ts`);--> statement-breakpoint
CREATE INDEX `companion_tasks_application_idx` ON `companion_tasks` (`application_id`);--> statement-breakpoint
CREATE TABLE `companions` (
	`account_id` text PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`auto_accepted_at_ts` integer,
	`last_seen_ts` integer,
	`last_submit_ended_ts` integer,
	`freelancers` text,
	`freelancers_at_ts` integer
);
