ALTER TABLE `accounts` ADD `max_feeds` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `max_api_keys` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `max_prompt_chars` integer;