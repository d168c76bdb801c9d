CREATE TABLE `oauth_states` (
	`state` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`expires_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `source_state` (
	`name` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`last_poll_at_ts` integer,
	`last_success_at_ts` integer,
	`last_error` text,
	`last_error_at_ts` integer,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_seen` integer DEFAULT 0 NOT NULL,
	`last_new` integer DEFAULT 0 NOT NULL,
	`total_seen` integer DEFAULT 0 NOT NULL,
	`total_new` integer DEFAULT 0 NOT NULL,
	`next_run_at_ts` integer
);
