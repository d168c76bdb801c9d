ALTER TABLE "bridge_outcomes" ADD COLUMN "connects_required" integer;--> statement-breakpoint
ALTER TABLE "bridge_outcomes" ADD COLUMN "boost_connects" integer;