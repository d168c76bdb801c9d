CREATE TABLE "client_lists" (
	"account_id" text NOT NULL,
	"company_id" text NOT NULL,
	"list" text NOT NULL,
	"reason" text,
	"added_at_ts" bigint NOT NULL,
	"added_by" text,
	CONSTRAINT "client_lists_account_id_company_id_pk" PRIMARY KEY("account_id","company_id")
);
--> statement-breakpoint
CREATE TABLE "filtered_jobs" (
	"feed_id" text NOT NULL,
	"account_id" text NOT NULL,
	"job_ciphertext" text NOT NULL,
	"filter" text NOT NULL,
	"reason" text NOT NULL,
	"at_ts" bigint NOT NULL,
	CONSTRAINT "filtered_jobs_feed_id_job_ciphertext_pk" PRIMARY KEY("feed_id","job_ciphertext")
);
--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "signal_rules" text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "alert_favoured" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "signals" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "match_fields" text;--> statement-breakpoint
ALTER TABLE "client_lists" ADD CONSTRAINT "client_lists_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filtered_jobs" ADD CONSTRAINT "filtered_jobs_feed_id_feeds_id_fk" FOREIGN KEY ("feed_id") REFERENCES "public"."feeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "filtered_jobs_account_at_idx" ON "filtered_jobs" USING btree ("account_id","at_ts");