CREATE TABLE "portfolios" (
	"account_id" text NOT NULL,
	"profile_id" text NOT NULL,
	"document" text NOT NULL,
	"updated_at_ts" bigint NOT NULL,
	CONSTRAINT "portfolios_account_id_profile_id_pk" PRIMARY KEY("account_id","profile_id")
);
--> statement-breakpoint
CREATE TABLE "proposal_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"job_ciphertext" text NOT NULL,
	"version" integer NOT NULL,
	"letter" text NOT NULL,
	"instruction" text,
	"writer" text NOT NULL,
	"claims" text NOT NULL,
	"member_id" text,
	"created_at_ts" bigint NOT NULL,
	"sent_application_id" text
);
--> statement-breakpoint
ALTER TABLE "portfolios" ADD CONSTRAINT "portfolios_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_versions" ADD CONSTRAINT "proposal_versions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "proposal_versions_job_uq" ON "proposal_versions" USING btree ("account_id","job_ciphertext","version");