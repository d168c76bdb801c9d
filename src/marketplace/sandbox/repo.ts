/**
 * Every query on the sandbox marketplace's own tables. Functions take a `Db`
 * that may be a transaction; the driver decides where transactions begin.
 */
import { and, asc, desc, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, preparedOne, tables } from "../../db/query";
import type { sandboxFreelancers, sandboxProfiles, sandboxSessions, sandboxSubmissions } from "../../db/schema";

export type FreelancerRow = typeof sandboxFreelancers.$inferSelect;
export type ProfileRow = typeof sandboxProfiles.$inferSelect;
export type SessionRow = typeof sandboxSessions.$inferSelect;
export type SubmissionRow = typeof sandboxSubmissions.$inferSelect;

// Freelancers and profiles.

export function findFreelancer(db: Db, id: string): Promise<FreelancerRow | undefined> {
  return preparedOne(
    db,
    "sandbox.findFreelancer",
    (d) => {
      const { sandboxFreelancers } = tables(d);
      return d
        .select()
        .from(sandboxFreelancers)
        .where(eq(sandboxFreelancers.id, sql.placeholder("id")));
    },
    { id },
  );
}

export function listFreelancers(db: Db, accountId: string): Promise<FreelancerRow[]> {
  const { sandboxFreelancers } = tables(db);
  return many(
    db,
    db
      .select()
      .from(sandboxFreelancers)
      .where(eq(sandboxFreelancers.accountId, accountId))
      .orderBy(asc(sandboxFreelancers.createdAtTs), asc(sandboxFreelancers.id)),
  );
}

/**
 * Inserts a freelancer and its profiles; an existing id is left as it is (returns false). Two statements:
 * call inside a transaction, so the profiles go in with their freelancer or not at all.
 */
export async function insertFreelancer(
  db: Db,
  row: typeof sandboxFreelancers.$inferInsert,
  profiles: (typeof sandboxProfiles.$inferInsert)[],
): Promise<boolean> {
  const { sandboxFreelancers, sandboxProfiles } = tables(db);
  const inserted = await many(db, db.insert(sandboxFreelancers).values(row).onConflictDoNothing().returning({ id: sandboxFreelancers.id }));
  if (inserted.length === 0) return false;
  if (profiles.length > 0) await exec(db, db.insert(sandboxProfiles).values(profiles));
  return true;
}

export function findProfile(db: Db, profileId: string): Promise<ProfileRow | undefined> {
  return preparedOne(
    db,
    "sandbox.findProfile",
    (d) => {
      const { sandboxProfiles } = tables(d);
      return d
        .select()
        .from(sandboxProfiles)
        .where(eq(sandboxProfiles.profileId, sql.placeholder("profileId")));
    },
    { profileId },
  );
}

export async function listProfiles(db: Db, freelancerIds: string[]): Promise<ProfileRow[]> {
  if (freelancerIds.length === 0) return [];
  const { sandboxProfiles } = tables(db);
  return many(db, db.select().from(sandboxProfiles).where(inArray(sandboxProfiles.freelancerId, freelancerIds)));
}

export function setConnects(db: Db, id: string, connects: number): Promise<FreelancerRow | undefined> {
  const { sandboxFreelancers } = tables(db);
  return one(db, db.update(sandboxFreelancers).set({ connects }).where(eq(sandboxFreelancers.id, id)).returning());
}

/** Takes `amount` Connects; false (nothing changed) when the balance is short. One statement: never below zero, whoever else spends. */
export async function spendConnects(db: Db, id: string, amount: number): Promise<boolean> {
  const { sandboxFreelancers } = tables(db);
  const changed = await exec(
    db,
    db
      .update(sandboxFreelancers)
      .set({ connects: sql`${sandboxFreelancers.connects} - ${amount}` })
      .where(and(eq(sandboxFreelancers.id, id), gte(sandboxFreelancers.connects, amount))),
  );
  return changed === 1;
}

// Sessions.

export function findSession(db: Db, accountId: string): Promise<SessionRow | undefined> {
  const { sandboxSessions } = tables(db);
  return one(db, db.select().from(sandboxSessions).where(eq(sandboxSessions.accountId, accountId)));
}

export async function upsertSession(db: Db, row: SessionRow): Promise<SessionRow> {
  const { sandboxSessions } = tables(db);
  const stored = await one(
    db,
    db
      .insert(sandboxSessions)
      .values(row)
      .onConflictDoUpdate({ target: sandboxSessions.accountId, set: { valid: row.valid, restorable: row.restorable, updatedAtTs: row.updatedAtTs } })
      .returning(),
  );
  return stored!;
}

// Closed jobs.

export async function isJobClosed(db: Db, jobCiphertext: string): Promise<boolean> {
  const { sandboxClosedJobs } = tables(db);
  const row = await one(
    db,
    db.select({ c: sandboxClosedJobs.jobCiphertext }).from(sandboxClosedJobs).where(eq(sandboxClosedJobs.jobCiphertext, jobCiphertext)),
  );
  return row !== undefined;
}

/** Which of these jobs the sandbox closed (asked in chunks: a company may have many jobs, a statement takes a bounded number of values). */
export async function closedAmong(db: Db, jobCiphertexts: readonly string[]): Promise<Set<string>> {
  const { sandboxClosedJobs } = tables(db);
  const closed = new Set<string>();
  for (let i = 0; i < jobCiphertexts.length; i += 500) {
    const chunk = jobCiphertexts.slice(i, i + 500);
    for (const r of await many(
      db,
      db.select({ c: sandboxClosedJobs.jobCiphertext }).from(sandboxClosedJobs).where(inArray(sandboxClosedJobs.jobCiphertext, chunk)),
    ))
      closed.add(r.c);
  }
  return closed;
}

/** Closing twice keeps the first closing time. */
export async function closeJob(db: Db, jobCiphertext: string, closedAtTs: number): Promise<void> {
  const { sandboxClosedJobs } = tables(db);
  await exec(db, db.insert(sandboxClosedJobs).values({ jobCiphertext, closedAtTs }).onConflictDoNothing());
}

// Submissions.

export function findSubmission(db: Db, applicationId: string): Promise<SubmissionRow | undefined> {
  return preparedOne(
    db,
    "sandbox.findSubmission",
    (d) => {
      const { sandboxSubmissions } = tables(d);
      return d
        .select()
        .from(sandboxSubmissions)
        .where(eq(sandboxSubmissions.applicationId, sql.placeholder("applicationId")));
    },
    { applicationId },
  );
}

export async function insertSubmission(db: Db, row: typeof sandboxSubmissions.$inferInsert): Promise<void> {
  const { sandboxSubmissions } = tables(db);
  await exec(db, db.insert(sandboxSubmissions).values(row));
}

/**
 * Inserts an applied submission unless the freelancer already has one for the
 * job: the partial unique index decides, and DO NOTHING turns the conflict
 * into "no row" instead of an error. Returns whether the row went in. (On
 * PostgreSQL, inside a SERIALIZABLE transaction, a conflict with a concurrent
 * transaction's row aborts with a serialization failure instead; tx() runs the
 * transaction again, and then it sees that row.)
 */
export async function insertAppliedSubmission(db: Db, row: typeof sandboxSubmissions.$inferInsert & { status: "applied" }): Promise<boolean> {
  const { sandboxSubmissions } = tables(db);
  const inserted = await exec(db, db.insert(sandboxSubmissions).values(row).onConflictDoNothing());
  return inserted === 1;
}

/** The times of a submission's stages, as repo columns; null is "not reached" (or not known yet). */
export interface StageTimes {
  viewedAtTs: number | null;
  repliedAtTs: number | null;
  interviewAtTs?: number | null;
  hiredAtTs?: number | null;
  lostAtTs?: number | null;
}

const STAGE_COLUMNS = ["viewedAtTs", "repliedAtTs", "interviewAtTs", "hiredAtTs", "lostAtTs"] as const;

/**
 * Records stage times that are not yet recorded; a time already there wins, so two callers racing can never move
 * a view, reply, interview, hire or loss, or undo one. One statement per newly reached stage.
 */
export async function recordEngagement(db: Db, applicationId: string, times: StageTimes): Promise<SubmissionRow | undefined> {
  const { sandboxSubmissions } = tables(db);
  for (const column of STAGE_COLUMNS) {
    const value = times[column];
    if (value === null || value === undefined) continue;
    await exec(
      db,
      db
        .update(sandboxSubmissions)
        .set({ [column]: value })
        .where(and(eq(sandboxSubmissions.applicationId, applicationId), isNull(sandboxSubmissions[column]))),
    );
  }
  return findSubmission(db, applicationId);
}

/** The stored plans of a freelancer's latest applied submissions, newest first (their letters' sketches are in them). */
export async function recentPlansOfFreelancer(db: Db, freelancerId: string, limit: number): Promise<unknown[]> {
  const { sandboxSubmissions } = tables(db);
  const rows = await many(
    db,
    db
      .select({ plan: sandboxSubmissions.plan })
      .from(sandboxSubmissions)
      .where(and(eq(sandboxSubmissions.freelancerId, freelancerId), eq(sandboxSubmissions.status, "applied")))
      .orderBy(desc(sandboxSubmissions.submittedAtTs), desc(sandboxSubmissions.applicationId))
      .limit(limit),
  );
  return rows.map((r) => r.plan);
}

/** An account's latest submissions, newest first (the sandbox website's "my proposals" page). */
export function listSubmissionsOfAccount(db: Db, accountId: string, limit: number): Promise<SubmissionRow[]> {
  const { sandboxSubmissions } = tables(db);
  return many(
    db,
    db
      .select()
      .from(sandboxSubmissions)
      .where(eq(sandboxSubmissions.accountId, accountId))
      .orderBy(desc(sandboxSubmissions.submittedAtTs), desc(sandboxSubmissions.applicationId))
      .limit(limit),
  );
}

// Roster changes (the freelancers an agency manages: roster.ts).

export function updateFreelancer(
  db: Db,
  id: string,
  changes: Partial<Pick<FreelancerRow, "name" | "baseHourlyRate" | "country">>,
): Promise<FreelancerRow | undefined> {
  const { sandboxFreelancers } = tables(db);
  return one(db, db.update(sandboxFreelancers).set(changes).where(eq(sandboxFreelancers.id, id)).returning());
}

/** Deletes a freelancer; its profiles go with it (ON DELETE CASCADE). Its submissions stay, as the marketplace keeps history. */
export async function deleteFreelancer(db: Db, id: string): Promise<boolean> {
  const { sandboxFreelancers, sandboxProfiles } = tables(db);
  // Explicitly too: SQLite enforces the cascade only with foreign keys switched on.
  await exec(db, db.delete(sandboxProfiles).where(eq(sandboxProfiles.freelancerId, id)));
  return (await exec(db, db.delete(sandboxFreelancers).where(eq(sandboxFreelancers.id, id)))) > 0;
}

/** Inserts a profile; an existing id is left as it is (returns false). */
export async function insertProfile(db: Db, row: typeof sandboxProfiles.$inferInsert): Promise<boolean> {
  const { sandboxProfiles } = tables(db);
  return (await many(db, db.insert(sandboxProfiles).values(row).onConflictDoNothing().returning({ id: sandboxProfiles.profileId }))).length > 0;
}

export function updateProfile(
  db: Db,
  profileId: string,
  changes: Partial<Pick<ProfileRow, "name" | "hourlyRate" | "skills">>,
): Promise<ProfileRow | undefined> {
  const { sandboxProfiles } = tables(db);
  return one(db, db.update(sandboxProfiles).set(changes).where(eq(sandboxProfiles.profileId, profileId)).returning());
}

export async function deleteProfile(db: Db, profileId: string): Promise<boolean> {
  const { sandboxProfiles } = tables(db);
  return (await exec(db, db.delete(sandboxProfiles).where(eq(sandboxProfiles.profileId, profileId)))) > 0;
}
