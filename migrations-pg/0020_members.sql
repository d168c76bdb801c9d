CREATE TABLE "member_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"member_id" text NOT NULL,
	"purpose" text NOT NULL,
	"created_at_ts" bigint NOT NULL,
	"expires_at_ts" bigint NOT NULL,
	"used_at_ts" bigint
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text,
	"created_at_ts" bigint NOT NULL,
	"removed_at_ts" bigint
);
--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "member_id" text;--> statement-breakpoint
ALTER TABLE "member_links" ADD CONSTRAINT "member_links_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_links_member_idx" ON "member_links" USING btree ("member_id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_email_uq" ON "members" USING btree ("email") WHERE removed_at_ts IS NULL;--> statement-breakpoint
CREATE INDEX "members_account_idx" ON "members" USING btree ("account_id");