CREATE TABLE "channels" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"config_sealed" text NOT NULL,
	"mode" text DEFAULT 'instant' NOT NULL,
	"digest_every" text,
	"quiet_hours" text,
	"created_at_ts" bigint NOT NULL,
	"updated_at_ts" bigint NOT NULL,
	"last_delivery_at_ts" bigint,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "feed_channels" (
	"feed_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "feed_channels_feed_id_channel_id_pk" PRIMARY KEY("feed_id","channel_id")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "target" text DEFAULT 'webhook' NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feed_channels" ADD CONSTRAINT "feed_channels_feed_id_feeds_id_fk" FOREIGN KEY ("feed_id") REFERENCES "public"."feeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feed_channels" ADD CONSTRAINT "feed_channels_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channels_account_idx" ON "channels" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "feed_channels_channel_idx" ON "feed_channels" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "events_channel_head_idx" ON "events" USING btree ("feed_id","target","seq") WHERE status IN ('pending', 'retrying') AND target != 'webhook';