CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`config_sealed` text NOT NULL,
	`mode` text DEFAULT 'instant' NOT NULL,
	`digest_every` text,
	`quiet_hours` text,
	`created_at_ts` integer NOT NULL,
	`updated_at_ts` integer NOT NULL,
	`last_delivery_at_ts` integer,
	`last_error` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channels_account_idx` ON `channels` (`account_id`);--> statement-breakpoint
CREATE TABLE `feed_channels` (
	`feed_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`feed_id`, `channel_id`),
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `feed_channels_channel_idx` ON `feed_channels` (`channel_id`);--> statement-breakpoint
ALTER TABLE `events` ADD `target` text DEFAULT 'webhook' NOT NULL;--> statement-breakpoint
CREATE INDEX `events_channel_head_idx` ON `events` (`feed_id`,`target`,`seq`) WHERE status IN ('pending', 'retrying') AND target != 'webhook';