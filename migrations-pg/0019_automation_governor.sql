CREATE TABLE "automation_alerts" (
	"account_id" text NOT NULL,
	"freelancer_id" text NOT NULL,
	"kind" text NOT NULL,
	"period" text NOT NULL,
	"sent_at_ts" bigint NOT NULL,
	CONSTRAINT "automation_alerts_account_id_freelancer_id_kind_period_pk" PRIMARY KEY("account_id","freelancer_id","kind","period")
);
--> statement-breakpoint
CREATE TABLE "automation_audit" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"freelancer_id" text,
	"application_id" text,
	"action" text NOT NULL,
	"rule" text NOT NULL,
	"detail" text NOT NULL,
	"at_ts" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_limits" (
	"account_id" text NOT NULL,
	"freelancer_id" text DEFAULT '' NOT NULL,
	"limits" text NOT NULL,
	"updated_at_ts" bigint NOT NULL,
	CONSTRAINT "automation_limits_account_id_freelancer_id_pk" PRIMARY KEY("account_id","freelancer_id")
);
--> statement-breakpoint
CREATE TABLE "connects_balances" (
	"account_id" text NOT NULL,
	"freelancer_id" text NOT NULL,
	"available" integer NOT NULL,
	"source" text NOT NULL,
	"read_at_ts" bigint NOT NULL,
	CONSTRAINT "connects_balances_account_id_freelancer_id_pk" PRIMARY KEY("account_id","freelancer_id")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "origin" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "governed_at_ts" bigint;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "estimated_connects" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "apply_mode" text DEFAULT 'alert' NOT NULL;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "auto_min_score" double precision;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "auto_min_expected_usd" double precision;--> statement-breakpoint
ALTER TABLE "feeds" ADD COLUMN "over_budget" text DEFAULT 'skip' NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "facts" text;--> statement-breakpoint
ALTER TABLE "bridge_outcomes" ADD COLUMN "connects_available" integer;--> statement-breakpoint
ALTER TABLE "automation_alerts" ADD CONSTRAINT "automation_alerts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_audit" ADD CONSTRAINT "automation_audit_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_limits" ADD CONSTRAINT "automation_limits_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connects_balances" ADD CONSTRAINT "connects_balances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automation_audit_account_idx" ON "automation_audit" USING btree ("account_id","at_ts");--> statement-breakpoint
CREATE INDEX "automation_audit_at_idx" ON "automation_audit" USING btree ("at_ts");--> statement-breakpoint
CREATE INDEX "automation_audit_application_idx" ON "automation_audit" USING btree ("application_id","at_ts");--> statement-breakpoint
CREATE INDEX "applications_governor_idx" ON "applications" USING btree ("account_id","freelancer_id","governed_at_ts");