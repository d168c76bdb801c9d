ALTER TABLE `bridge_outcomes` ADD `connects_required` integer;--> statement-breakpoint
ALTER TABLE `bridge_outcomes` ADD `boost_connects` integer;