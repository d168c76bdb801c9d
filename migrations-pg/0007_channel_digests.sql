ALTER TABLE "events" ADD COLUMN "digest_seq" bigint;--> statement-breakpoint
CREATE INDEX "events_held_idx" ON "events" USING btree ("next_attempt_at_ts") WHERE status = 'held';--> statement-breakpoint
CREATE INDEX "events_digest_idx" ON "events" USING btree ("digest_seq") WHERE digest_seq IS NOT NULL;