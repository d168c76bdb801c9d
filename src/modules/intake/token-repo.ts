/**
 * The `oauth_tokens` table: one encrypted token envelope per provider. Every write but the first insert is a
 * compare-and-swap on `updated_at_ts`: one UPDATE … WHERE provider = ? AND updated_at_ts = <version read>
 * (and, for the lease, no lease running). It is atomic on SQLite (one writer at a time) and on PostgreSQL,
 * where a second UPDATE of the row waits for the first one's row lock and then re-checks its WHERE on the
 * row as committed, so of two nodes refreshing at once only one can win. The first insert is
 * INSERT … ON CONFLICT DO NOTHING: one of two racing inserts adds the row, the other changes nothing.
 */
import { and, eq, isNull, lte, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, one, tables } from "../../db/query";
import type { oauthTokens } from "../../db/schema";

export type OAuthTokenRow = typeof oauthTokens.$inferSelect;

export function findOAuthToken(db: Db, provider: string): Promise<OAuthTokenRow | undefined> {
  const { oauthTokens } = tables(db);
  return one(db, db.select().from(oauthTokens).where(eq(oauthTokens.provider, provider)));
}

/** Inserts the provider's first row; false when it has one already. */
export async function insertOAuthToken(db: Db, provider: string, ciphertext: string, nowTs: number): Promise<boolean> {
  const { oauthTokens } = tables(db);
  const inserted = await exec(db, db.insert(oauthTokens).values({ provider, ciphertext, updatedAtTs: nowTs, leaseUntilTs: null }).onConflictDoNothing());
  return inserted === 1;
}

/** New ciphertext when the row is still at `version`, moving updated_at_ts to `updatedAtTs` and ending any lease. */
export async function replaceOAuthToken(db: Db, provider: string, version: number, ciphertext: string, updatedAtTs: number): Promise<boolean> {
  const { oauthTokens } = tables(db);
  const changed = await exec(
    db,
    db
      .update(oauthTokens)
      .set({ ciphertext, updatedAtTs, leaseUntilTs: null })
      .where(and(eq(oauthTokens.provider, provider), eq(oauthTokens.updatedAtTs, version))),
  );
  return changed === 1;
}

/** The refresh lease until `untilTs`, when the row is still at `version` and no lease runs at `nowTs`. */
export async function leaseOAuthToken(db: Db, provider: string, version: number, untilTs: number, nowTs: number): Promise<boolean> {
  const { oauthTokens } = tables(db);
  const changed = await exec(
    db,
    db
      .update(oauthTokens)
      .set({ leaseUntilTs: untilTs })
      .where(
        and(
          eq(oauthTokens.provider, provider),
          eq(oauthTokens.updatedAtTs, version),
          or(isNull(oauthTokens.leaseUntilTs), lte(oauthTokens.leaseUntilTs, nowTs)),
        ),
      ),
  );
  return changed === 1;
}

/** Ends the lease taken until `untilTs`, when the row is still at `version` and nobody took it over. */
export async function releaseOAuthTokenLease(db: Db, provider: string, version: number, untilTs: number): Promise<void> {
  const { oauthTokens } = tables(db);
  await exec(
    db,
    db
      .update(oauthTokens)
      .set({ leaseUntilTs: null })
      .where(and(eq(oauthTokens.provider, provider), eq(oauthTokens.updatedAtTs, version), eq(oauthTokens.leaseUntilTs, untilTs))),
  );
}
