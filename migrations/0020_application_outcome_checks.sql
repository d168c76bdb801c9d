ALTER TABLE `applications` ADD `outcome_check` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `outcome_checked_at_ts` integer;--> statement-breakpoint
CREATE INDEX `applications_outcome_check_idx` ON `applications` (`driver`,`outcome_checked_at_ts`,`processed_at_ts`);