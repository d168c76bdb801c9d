ALTER TABLE `events` ADD `digest_seq` integer;--> statement-breakpoint
CREATE INDEX `events_held_idx` ON `events` (`next_attempt_at_ts`) WHERE status = 'held';--> statement-breakpoint
CREATE INDEX `events_digest_idx` ON `events` (`digest_seq`) WHERE digest_seq IS NOT NULL;