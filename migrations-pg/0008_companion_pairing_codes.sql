CREATE TABLE "companion_pairing_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at_ts" bigint NOT NULL,
	"expires_at_ts" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "companion_pairing_codes" ADD CONSTRAINT "companion_pairing_codes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "companion_pairing_codes_account_idx" ON "companion_pairing_codes" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "companion_pairing_codes_expiry_idx" ON "companion_pairing_codes" USING btree ("expires_at_ts");