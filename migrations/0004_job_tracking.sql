CREATE TABLE `job_tracking` (
	`job_ciphertext` text PRIMARY KEY NOT NULL,
	`active` integer NOT NULL,
	`state` text NOT NULL,
	`last_checked_at_ts` integer NOT NULL,
	FOREIGN KEY (`job_ciphertext`) REFERENCES `jobs`(`ciphertext`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `job_tracking_due_idx` ON `job_tracking` (`last_checked_at_ts`) WHERE active = 1;