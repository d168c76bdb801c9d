CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`credits_balance` integer DEFAULT 0 NOT NULL,
	`rate_limit_multiplier` real DEFAULT 1 NOT NULL,
	`rate_limit_overrides` text,
	`created_at_ts` integer NOT NULL,
	CONSTRAINT "accounts_credits_nonneg" CHECK("accounts"."credits_balance" >= 0)
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`label` text,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`created_at_ts` integer NOT NULL,
	`last_used_at_ts` integer,
	`revoked_at_ts` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `credit_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`delta` integer NOT NULL,
	`reason` text NOT NULL,
	`ref` text,
	`note` text,
	`created_at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credit_ledger_reason_ref_uq` ON `credit_ledger` (`reason`,`ref`);--> statement-breakpoint
CREATE INDEX `credit_ledger_account_idx` ON `credit_ledger` (`account_id`);--> statement-breakpoint
CREATE TABLE `rate_limit_counters` (
	`key_id` text NOT NULL,
	`bucket` text NOT NULL,
	`window_start_ts` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key_id`, `bucket`, `window_start_ts`)
);
