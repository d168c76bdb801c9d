CREATE TABLE "telegram_binding_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"account_id" text NOT NULL,
	"created_at_ts" bigint NOT NULL,
	"expires_at_ts" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telegram_bots" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"update_offset" bigint NOT NULL,
	"updated_at_ts" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telegram_chats" (
	"bot_id" text NOT NULL,
	"chat_id" text NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"title" text,
	"bound_at_ts" bigint NOT NULL,
	CONSTRAINT "telegram_chats_bot_id_chat_id_pk" PRIMARY KEY("bot_id","chat_id")
);
--> statement-breakpoint
CREATE TABLE "telegram_drafts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"bot_id" text NOT NULL,
	"chat_id" text NOT NULL,
	"feed_job_id" text NOT NULL,
	"alert_message_id" bigint NOT NULL,
	"cover_letter" text NOT NULL,
	"effort" text NOT NULL,
	"created_at_ts" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "on_settled" text;--> statement-breakpoint
ALTER TABLE "telegram_binding_codes" ADD CONSTRAINT "telegram_binding_codes_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_binding_codes" ADD CONSTRAINT "telegram_binding_codes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_chats" ADD CONSTRAINT "telegram_chats_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_chats" ADD CONSTRAINT "telegram_chats_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_drafts" ADD CONSTRAINT "telegram_drafts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "telegram_binding_codes_channel_idx" ON "telegram_binding_codes" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "telegram_binding_codes_expiry_idx" ON "telegram_binding_codes" USING btree ("expires_at_ts");--> statement-breakpoint
CREATE INDEX "telegram_chats_channel_idx" ON "telegram_chats" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "telegram_drafts_created_idx" ON "telegram_drafts" USING btree ("created_at_ts");