CREATE TABLE `telegram_binding_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`account_id` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`expires_at_ts` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `telegram_binding_codes_channel_idx` ON `telegram_binding_codes` (`channel_id`);--> statement-breakpoint
CREATE INDEX `telegram_binding_codes_expiry_idx` ON `telegram_binding_codes` (`expires_at_ts`);--> statement-breakpoint
CREATE TABLE `telegram_bots` (
	`bot_id` text PRIMARY KEY NOT NULL,
	`update_offset` integer NOT NULL,
	`updated_at_ts` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `telegram_chats` (
	`bot_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`account_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`title` text,
	`bound_at_ts` integer NOT NULL,
	PRIMARY KEY(`bot_id`, `chat_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `telegram_chats_channel_idx` ON `telegram_chats` (`channel_id`);--> statement-breakpoint
CREATE TABLE `telegram_drafts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`bot_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`feed_job_id` text NOT NULL,
	`alert_message_id` integer NOT NULL,
	`cover_letter` text NOT NULL,
	`effort` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `telegram_drafts_created_idx` ON `telegram_drafts` (`created_at_ts`);--> statement-breakpoint
ALTER TABLE `applications` ADD `on_settled` text;