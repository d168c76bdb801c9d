/**
 * The `oauth_tokens` table: one encrypted token envelope per provider. Every write but the first insert is a
 * compare-and-swap on `updated_at_ts` (one UPDATE … WHERE … RETURNING, atomic on SQLite and, under
 * PostgreSQL's row lock, across nodes), so two processes refreshing at once cannot both win.
 */
import { and, eq, isNull, lte, or } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { oauthTokens } from "../../db/schema";

export type OAuthTokenRow = typeof oauthTokens.$inferSelect;

export function findOAuthToken(db: Db, provider: string): Promise<OAuthTokenRow | undefined> {
  return exclusive(db, () => db.select().from(oauthTokens).where(eq(oauthTokens.provider, provider)).get());
}

/** Inserts the provider's first row; false when it has one already. */
export function insertOAuthToken(db: Db, provider: string, ciphertext: string, nowTs: number): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db
        .insert(oauthTokens)
        .values({ provider, ciphertext, updatedAtTs: nowTs, leaseUntilTs: null })
        .onConflictDoNothing()
        .returning({ provider: oauthTokens.provider })
        .all().length === 1,
  );
}

/** New ciphertext when the row is still at `version`, moving updated_at_ts to `updatedAtTs` and ending any lease. */
export function replaceOAuthToken(db: Db, provider: string, version: number, ciphertext: string, updatedAtTs: number): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db
        .update(oauthTokens)
        .set({ ciphertext, updatedAtTs, leaseUntilTs: null })
        .where(and(eq(oauthTokens.provider, provider), eq(oauthTokens.updatedAtTs, version)))
        .returning({ provider: oauthTokens.provider })
        .all().length === 1,
  );
}

/** The refresh lease until `untilTs`, when the row is still at `version` and no lease runs at `nowTs`. */
export function leaseOAuthToken(db: Db, provider: string, version: number, untilTs: number, nowTs: number): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db
        .update(oauthTokens)
        .set({ leaseUntilTs: untilTs })
        .where(
          and(
            eq(oauthTokens.provider, provider),
            eq(oauthTokens.updatedAtTs, version),
            or(isNull(oauthTokens.leaseUntilTs), lte(oauthTokens.leaseUntilTs, nowTs)),
          ),
        )
        .returning({ provider: oauthTokens.provider })
        .all().length === 1,
  );
}

/** Ends the lease taken until `untilTs`, when the row is still at `version` and nobody took it over. */
export function releaseOAuthTokenLease(db: Db, provider: string, version: number, untilTs: number): Promise<void> {
  return exclusive(db, () => {
    db.update(oauthTokens)
      .set({ leaseUntilTs: null })
      .where(and(eq(oauthTokens.provider, provider), eq(oauthTokens.updatedAtTs, version), eq(oauthTokens.leaseUntilTs, untilTs)))
      .run();
  });
}
