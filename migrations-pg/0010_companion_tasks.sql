CREATE TABLE "companion_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"application_id" text,
	"body" text NOT NULL,
	"state" text NOT NULL,
	"created_at_ts" bigint NOT NULL,
	"claimed_at_ts" bigint,
	"review_since_ts" bigint,
	"review_url" text,
	"ended_at_ts" bigint,
	"answer" text
);
--> statement-breakpoint
CREATE TABLE "companions" (
	"account_id" text PRIMARY KEY NOT NULL,
	"mode" text NOT NULL,
	"auto_accepted_at_ts" bigint,
	"last_seen_ts" bigint,
	"last_submit_ended_ts" bigint,
	"freelancers" text,
	"freelancers_at_ts" bigint
);
--> statement-breakpoint
CREATE INDEX "companion_tasks_account_state_idx" ON "companion_tasks" USING btree ("account_id","state","created_at_ts");--> statement-breakpoint
CREATE INDEX "companion_tasks_application_idx" ON "companion_tasks" USING btree ("application_id");