CREATE TABLE "telegram_bot_owners" (
	"bot_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"claimed_at_ts" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "telegram_bot_id" text;--> statement-breakpoint
ALTER TABLE "telegram_bot_owners" ADD CONSTRAINT "telegram_bot_owners_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channels_telegram_bot_idx" ON "channels" USING btree ("telegram_bot_id");