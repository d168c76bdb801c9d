CREATE TABLE `telegram_bot_owners` (
	`bot_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`claimed_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `channels` ADD `telegram_bot_id` text;--> statement-breakpoint
CREATE INDEX `channels_telegram_bot_idx` ON `channels` (`telegram_bot_id`);