CREATE TABLE "cluster_claims" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"until_ts" bigint NOT NULL
);
