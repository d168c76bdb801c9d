CREATE TABLE `companion_pairing_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`expires_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `companion_pairing_codes_account_idx` ON `companion_pairing_codes` (`account_id`);--> statement-breakpoint
CREATE INDEX `companion_pairing_codes_expiry_idx` ON `companion_pairing_codes` (`expires_at_ts`);