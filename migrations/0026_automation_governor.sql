CREATE TABLE `automation_alerts` (
	`account_id` text NOT NULL,
	`freelancer_id` text NOT NULL,
	`kind` text NOT NULL,
	`period` text NOT NULL,
	`sent_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `freelancer_id`, `kind`, `period`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `automation_audit` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`freelancer_id` text,
	`application_id` text,
	`action` text NOT NULL,
	`rule` text NOT NULL,
	`detail` text NOT NULL,
	`at_ts` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_audit_account_idx` ON `automation_audit` (`account_id`,`at_ts`);--> statement-breakpoint
CREATE INDEX `automation_audit_at_idx` ON `automation_audit` (`at_ts`);--> statement-breakpoint
CREATE INDEX `automation_audit_application_idx` ON `automation_audit` (`application_id`,`at_ts`);--> statement-breakpoint
CREATE TABLE `automation_limits` (
	`account_id` text NOT NULL,
	`freelancer_id` text DEFAULT '' NOT NULL,
	`limits` text NOT NULL,
	`updated_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `freelancer_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `connects_balances` (
	`account_id` text NOT NULL,
	`freelancer_id` text NOT NULL,
	`available` integer NOT NULL,
	`source` text NOT NULL,
	`read_at_ts` integer NOT NULL,
	PRIMARY KEY(`account_id`, `freelancer_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `applications` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `applications` ADD `governed_at_ts` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `estimated_connects` integer;--> statement-breakpoint
ALTER TABLE `applications` ADD `held_reason` text;--> statement-breakpoint
CREATE INDEX `applications_governor_idx` ON `applications` (`account_id`,`freelancer_id`,`governed_at_ts`);--> statement-breakpoint
ALTER TABLE `feeds` ADD `apply_mode` text DEFAULT 'alert' NOT NULL;--> statement-breakpoint
ALTER TABLE `feeds` ADD `auto_min_score` real;--> statement-breakpoint
ALTER TABLE `feeds` ADD `auto_min_expected_usd` real;--> statement-breakpoint
ALTER TABLE `feeds` ADD `over_budget` text DEFAULT 'skip' NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `facts` text;--> statement-breakpoint
ALTER TABLE `bridge_outcomes` ADD `connects_available` integer;