CREATE TABLE "feed_members" (
	"feed_id" text NOT NULL,
	"member_id" text NOT NULL,
	CONSTRAINT "feed_members_feed_id_member_id_pk" PRIMARY KEY("feed_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "job_claims" (
	"account_id" text NOT NULL,
	"job_ciphertext" text NOT NULL,
	"member_id" text NOT NULL,
	"claimed_at_ts" bigint NOT NULL,
	"expires_at_ts" bigint NOT NULL,
	CONSTRAINT "job_claims_account_id_job_ciphertext_pk" PRIMARY KEY("account_id","job_ciphertext")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "bidders_may_send" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "member_id" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "role" text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "drafted_by" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "approved_by" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "sent_by" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "review_comment" text;--> statement-breakpoint
ALTER TABLE "automation_audit" ADD COLUMN "member_id" text;--> statement-breakpoint
ALTER TABLE "automation_audit" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "automation_audit" ADD COLUMN "actor" text;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "freelancer_id" text;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "profile_id" text;--> statement-breakpoint
ALTER TABLE "feed_members" ADD CONSTRAINT "feed_members_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_claims" ADD CONSTRAINT "job_claims_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_claims" ADD CONSTRAINT "job_claims_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feed_members_member_idx" ON "feed_members" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "job_claims_member_idx" ON "job_claims" USING btree ("member_id");