ALTER TABLE "applications" ADD COLUMN "feed_id" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "score" double precision;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "bid_ratio" double precision;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "outcome_events" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_submissions" ADD COLUMN "interview_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "sandbox_submissions" ADD COLUMN "hired_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "sandbox_submissions" ADD COLUMN "lost_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "sandbox_submissions" ADD COLUMN "plan" text;--> statement-breakpoint
CREATE INDEX "applications_sent_idx" ON "applications" USING btree ("account_id","processed_at_ts");