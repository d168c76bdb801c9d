DROP INDEX `jobs_company_idx`;--> statement-breakpoint
CREATE INDEX `jobs_company_posted_idx` ON `jobs` (`company_id`,COALESCE(`publish_time_ts`, `first_seen_at_ts`),`ciphertext`,`url`,`title`);
