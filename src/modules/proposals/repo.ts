import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, tables } from "../../db/query";

/** Notes that the account had a letter written for the job; only the first time counts (speed-to-lead's "drafted"). */
export async function noteDraft(db: Db, accountId: string, jobCiphertext: string, atTs: number): Promise<void> {
  const { proposalDrafts } = tables(db);
  await exec(db, db.insert(proposalDrafts).values({ accountId, jobCiphertext, firstDraftedAtTs: atTs }).onConflictDoNothing());
}

/** When the account first had a letter written for each of these jobs (those it never drafted are absent). */
export async function firstDrafts(db: Db, accountId: string, jobCiphertexts: readonly string[]): Promise<Map<string, number>> {
  const { proposalDrafts } = tables(db);
  const out = new Map<string, number>();
  // Chunked: a bound-parameter list has a ceiling on both dialects.
  for (let i = 0; i < jobCiphertexts.length; i += 500) {
    const rows = await many(
      db,
      db
        .select({ job: proposalDrafts.jobCiphertext, at: proposalDrafts.firstDraftedAtTs })
        .from(proposalDrafts)
        .where(and(eq(proposalDrafts.accountId, accountId), inArray(proposalDrafts.jobCiphertext, jobCiphertexts.slice(i, i + 500)))),
    );
    for (const r of rows) out.set(r.job, r.at);
  }
  return out;
}
