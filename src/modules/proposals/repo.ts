import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Claim } from "../../ai/claim-check";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";
import { newId } from "../../lib/ids";

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

export interface VersionRow {
  id: string;
  number: number;
  letter: string;
  instruction: string | null;
  writer: string;
  claims: Claim[];
  memberId: string | null;
  createdAtTs: number;
  sentApplicationId: string | null;
}

/**
 * Stores a letter as the job's next version. Called inside the draft's transaction; the unique (account, job,
 * version) index turns two concurrent regenerations into a retry of the loser with the next number.
 */
export async function addVersion(
  db: Db,
  v: {
    accountId: string;
    jobCiphertext: string;
    letter: string;
    instruction: string | null;
    writer: string;
    claims: Claim[];
    memberId: string | null;
    atTs: number;
  },
): Promise<{ id: string; number: number }> {
  const { proposalVersions } = tables(db);
  const last = await one(
    db,
    db
      .select({ n: sql<number>`max(${proposalVersions.version})` })
      .from(proposalVersions)
      .where(and(eq(proposalVersions.accountId, v.accountId), eq(proposalVersions.jobCiphertext, v.jobCiphertext))),
  );
  const number = Number(last?.n ?? 0) + 1;
  const id = newId();
  await exec(
    db,
    db.insert(proposalVersions).values({
      id,
      accountId: v.accountId,
      jobCiphertext: v.jobCiphertext,
      version: number,
      letter: v.letter,
      instruction: v.instruction,
      writer: v.writer,
      claims: v.claims,
      memberId: v.memberId,
      createdAtTs: v.atTs,
    }),
  );
  return { id, number };
}

/** Every version of the account's letters for a job, newest first. */
export async function versionsOf(db: Db, accountId: string, jobCiphertext: string): Promise<VersionRow[]> {
  const { proposalVersions: pv } = tables(db);
  const rows = await many(
    db,
    db
      .select()
      .from(pv)
      .where(and(eq(pv.accountId, accountId), eq(pv.jobCiphertext, jobCiphertext)))
      .orderBy(desc(pv.version)),
  );
  return rows.map((r) => ({
    id: r.id,
    number: r.version,
    letter: r.letter,
    instruction: r.instruction,
    writer: r.writer,
    claims: r.claims as Claim[],
    memberId: r.memberId,
    createdAtTs: r.createdAtTs,
    sentApplicationId: r.sentApplicationId,
  }));
}

/**
 * Marks the version an application sent: the newest one whose text is the letter sent (a letter edited by hand
 * before sending matches none, and then none is marked). Idempotent: a version already marked keeps its mark.
 */
export async function markSentVersion(db: Db, accountId: string, jobCiphertext: string, letter: string, applicationId: string): Promise<void> {
  const { proposalVersions: pv } = tables(db);
  const match = (await versionsOf(db, accountId, jobCiphertext)).find((v) => v.letter.trim() === letter.trim() && v.sentApplicationId === null);
  if (!match) return;
  await exec(db, db.update(pv).set({ sentApplicationId: applicationId }).where(eq(pv.id, match.id)));
}

/** The claims the check left in the version whose text is this letter (none when no version matches it). */
export async function claimsOfLetter(db: Db, accountId: string, jobCiphertext: string, letter: string): Promise<Claim[]> {
  return (await versionsOf(db, accountId, jobCiphertext)).find((v) => v.letter.trim() === letter.trim())?.claims ?? [];
}
