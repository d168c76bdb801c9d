CREATE TABLE "proposal_drafts" (
	"account_id" text NOT NULL,
	"job_ciphertext" text NOT NULL,
	"first_drafted_at_ts" bigint NOT NULL,
	CONSTRAINT "proposal_drafts_account_id_job_ciphertext_pk" PRIMARY KEY("account_id","job_ciphertext")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "replied_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "interview_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "hired_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "outcome_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "value_usd" double precision;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "outcome_note" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "connects_required" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "boost_connects" integer;--> statement-breakpoint
ALTER TABLE "proposal_drafts" ADD CONSTRAINT "proposal_drafts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;