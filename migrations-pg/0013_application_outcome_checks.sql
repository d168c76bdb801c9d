ALTER TABLE "applications" ADD COLUMN "outcome_check" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "outcome_checked_at_ts" bigint;--> statement-breakpoint
CREATE INDEX "applications_outcome_check_idx" ON "applications" USING btree ("driver","outcome_checked_at_ts","processed_at_ts");