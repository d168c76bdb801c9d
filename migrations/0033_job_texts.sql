CREATE TABLE `job_texts` (
	`job_ciphertext` text PRIMARY KEY NOT NULL,
	`first_seen_at_ts` integer NOT NULL,
	`fields` text NOT NULL,
	FOREIGN KEY (`job_ciphertext`) REFERENCES `jobs`(`ciphertext`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `job_texts_first_seen_idx` ON `job_texts` (`first_seen_at_ts`);--> statement-breakpoint
DROP INDEX `jobs_first_seen_idx`;--> statement-breakpoint
CREATE INDEX `jobs_first_seen_idx` ON `jobs` (`first_seen_at_ts`,`ciphertext`,`platform`,`job_type`,`hourly_min`,`hourly_max`,`fixed_budget`,`client_country`,`client_total_spent`,`payment_verified`,`client_rating`,`client_reviews`,`us_only`,`email_found`,`company_id`);--> statement-breakpoint
-- The match fields move out of the jobs row, each job's as they were; a job archived before them has none.
INSERT INTO `job_texts` (`job_ciphertext`, `first_seen_at_ts`, `fields`) SELECT `ciphertext`, `first_seen_at_ts`, `match_fields` FROM `jobs` WHERE `match_fields` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `match_fields`;