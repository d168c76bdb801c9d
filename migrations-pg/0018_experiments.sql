CREATE TABLE "experiment_arms" (
	"id" text PRIMARY KEY NOT NULL,
	"experiment_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"prompt" text,
	"template" text,
	"bid_multiplier" double precision,
	"hourly_rate" double precision,
	"fixed_bid" double precision,
	"boost_bids" integer,
	"send_delay_minutes" integer
);
--> statement-breakpoint
CREATE TABLE "experiment_assignments" (
	"experiment_id" text NOT NULL,
	"account_id" text NOT NULL,
	"job_ciphertext" text NOT NULL,
	"arm_id" text NOT NULL,
	"assigned_at_ts" bigint NOT NULL,
	"drafted_letter" text,
	CONSTRAINT "experiment_assignments_experiment_id_job_ciphertext_pk" PRIMARY KEY("experiment_id","job_ciphertext")
);
--> statement-breakpoint
CREATE TABLE "experiments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"feed_id" text,
	"freelancer_id" text,
	"objective" text NOT NULL,
	"allocation" text NOT NULL,
	"seed" text NOT NULL,
	"state" text NOT NULL,
	"created_at_ts" bigint NOT NULL,
	"updated_at_ts" bigint NOT NULL,
	"stopped_at_ts" bigint
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "experiment_id" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "arm_id" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "edited_by_hand" boolean;--> statement-breakpoint
ALTER TABLE "experiment_arms" ADD CONSTRAINT "experiment_arms_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiment_assignments" ADD CONSTRAINT "experiment_assignments_experiment_id_experiments_id_fk" FOREIGN KEY ("experiment_id") REFERENCES "public"."experiments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiment_assignments" ADD CONSTRAINT "experiment_assignments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "experiment_arms_position_uq" ON "experiment_arms" USING btree ("experiment_id","position");--> statement-breakpoint
CREATE INDEX "experiment_assignments_arm_idx" ON "experiment_assignments" USING btree ("experiment_id","arm_id");--> statement-breakpoint
CREATE INDEX "experiment_assignments_job_idx" ON "experiment_assignments" USING btree ("account_id","job_ciphertext");--> statement-breakpoint
CREATE INDEX "experiments_account_idx" ON "experiments" USING btree ("account_id","created_at_ts");--> statement-breakpoint
CREATE INDEX "experiments_feed_idx" ON "experiments" USING btree ("account_id","feed_id","state");--> statement-breakpoint
CREATE INDEX "applications_experiment_idx" ON "applications" USING btree ("experiment_id","arm_id","status");