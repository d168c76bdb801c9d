CREATE TABLE "oauth_tokens" (
	"provider" text PRIMARY KEY NOT NULL,
	"ciphertext" text NOT NULL,
	"updated_at_ts" bigint NOT NULL,
	"lease_until_ts" bigint
);
