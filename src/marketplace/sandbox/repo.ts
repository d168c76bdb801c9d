/**
 * Every query on the sandbox marketplace's own tables. Functions take a `Db`
 * that may be a transaction; the driver decides where transactions begin.
 */
import { and, asc, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { prepared } from "../../db/prepared";
import { sandboxClosedJobs, sandboxFreelancers, sandboxProfiles, sandboxSessions, sandboxSubmissions } from "../../db/schema";

export type FreelancerRow = typeof sandboxFreelancers.$inferSelect;
export type ProfileRow = typeof sandboxProfiles.$inferSelect;
export type SessionRow = typeof sandboxSessions.$inferSelect;
export type SubmissionRow = typeof sandboxSubmissions.$inferSelect;

// Freelancers and profiles.

export function findFreelancer(db: Db, id: string): Promise<FreelancerRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "sandbox.findFreelancer", (d) =>
      d
        .select()
        .from(sandboxFreelancers)
        .where(eq(sandboxFreelancers.id, sql.placeholder("id")))
        .prepare(),
    ).get({ id }),
  );
}

export function listFreelancers(db: Db, accountId: string): Promise<FreelancerRow[]> {
  return exclusive(db, () =>
    db
      .select()
      .from(sandboxFreelancers)
      .where(eq(sandboxFreelancers.accountId, accountId))
      .orderBy(asc(sandboxFreelancers.createdAtTs), asc(sandboxFreelancers.id))
      .all(),
  );
}

/** Inserts a freelancer and its profiles; an existing id is left as it is (returns false). */
export function insertFreelancer(db: Db, row: typeof sandboxFreelancers.$inferInsert, profiles: (typeof sandboxProfiles.$inferInsert)[]): Promise<boolean> {
  return exclusive(db, () => {
    const inserted = db.insert(sandboxFreelancers).values(row).onConflictDoNothing().returning({ id: sandboxFreelancers.id }).all();
    if (inserted.length === 0) return false;
    if (profiles.length > 0) db.insert(sandboxProfiles).values(profiles).run();
    return true;
  });
}

export function findProfile(db: Db, profileId: string): Promise<ProfileRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "sandbox.findProfile", (d) =>
      d
        .select()
        .from(sandboxProfiles)
        .where(eq(sandboxProfiles.profileId, sql.placeholder("profileId")))
        .prepare(),
    ).get({ profileId }),
  );
}

export function listProfiles(db: Db, freelancerIds: string[]): Promise<ProfileRow[]> {
  return exclusive(db, () => {
    if (freelancerIds.length === 0) return [];
    return db.select().from(sandboxProfiles).where(inArray(sandboxProfiles.freelancerId, freelancerIds)).all();
  });
}

export function setConnects(db: Db, id: string, connects: number): Promise<FreelancerRow | undefined> {
  return exclusive(db, () => db.update(sandboxFreelancers).set({ connects }).where(eq(sandboxFreelancers.id, id)).returning().get());
}

/** Takes `amount` Connects; false (nothing changed) when the balance is short. */
export function spendConnects(db: Db, id: string, amount: number): Promise<boolean> {
  return exclusive(db, () => {
    const updated = db
      .update(sandboxFreelancers)
      .set({ connects: sql`${sandboxFreelancers.connects} - ${amount}` })
      .where(and(eq(sandboxFreelancers.id, id), gte(sandboxFreelancers.connects, amount)))
      .returning({ id: sandboxFreelancers.id })
      .all();
    return updated.length === 1;
  });
}

// Sessions.

export function findSession(db: Db, accountId: string): Promise<SessionRow | undefined> {
  return exclusive(db, () => db.select().from(sandboxSessions).where(eq(sandboxSessions.accountId, accountId)).get());
}

export function upsertSession(db: Db, row: SessionRow): Promise<SessionRow> {
  return exclusive(db, () =>
    db
      .insert(sandboxSessions)
      .values(row)
      .onConflictDoUpdate({ target: sandboxSessions.accountId, set: { valid: row.valid, restorable: row.restorable, updatedAtTs: row.updatedAtTs } })
      .returning()
      .get(),
  );
}

// Closed jobs.

export function isJobClosed(db: Db, jobCiphertext: string): Promise<boolean> {
  return exclusive(
    db,
    () =>
      db.select({ c: sandboxClosedJobs.jobCiphertext }).from(sandboxClosedJobs).where(eq(sandboxClosedJobs.jobCiphertext, jobCiphertext)).get() !== undefined,
  );
}

/** Which of these jobs the sandbox closed (asked in chunks: a company may have many jobs, a statement takes a bounded number of values). */
export function closedAmong(db: Db, jobCiphertexts: readonly string[]): Promise<Set<string>> {
  return exclusive(db, () => {
    const closed = new Set<string>();
    for (let i = 0; i < jobCiphertexts.length; i += 500) {
      const chunk = jobCiphertexts.slice(i, i + 500);
      for (const r of db.select({ c: sandboxClosedJobs.jobCiphertext }).from(sandboxClosedJobs).where(inArray(sandboxClosedJobs.jobCiphertext, chunk)).all())
        closed.add(r.c);
    }
    return closed;
  });
}

/** Closing twice keeps the first closing time. */
export function closeJob(db: Db, jobCiphertext: string, closedAtTs: number): Promise<void> {
  return exclusive(db, () => {
    db.insert(sandboxClosedJobs).values({ jobCiphertext, closedAtTs }).onConflictDoNothing().run();
  });
}

// Submissions.

export function findSubmission(db: Db, applicationId: string): Promise<SubmissionRow | undefined> {
  return exclusive(db, () => submissionOf(db, applicationId));
}

function submissionOf(db: Db, applicationId: string): SubmissionRow | undefined {
  return prepared(db, "sandbox.findSubmission", (d) =>
    d
      .select()
      .from(sandboxSubmissions)
      .where(eq(sandboxSubmissions.applicationId, sql.placeholder("applicationId")))
      .prepare(),
  ).get({ applicationId });
}

export function insertSubmission(db: Db, row: typeof sandboxSubmissions.$inferInsert): Promise<void> {
  return exclusive(db, () => {
    db.insert(sandboxSubmissions).values(row).run();
  });
}

/**
 * Inserts an applied submission unless the freelancer already has one for the
 * job: the partial unique index decides, and DO NOTHING turns the conflict
 * into "no row" instead of an error. Returns whether the row went in.
 */
export function insertAppliedSubmission(db: Db, row: typeof sandboxSubmissions.$inferInsert & { status: "applied" }): Promise<boolean> {
  return exclusive(db, () => {
    const inserted = db.insert(sandboxSubmissions).values(row).onConflictDoNothing().returning({ id: sandboxSubmissions.applicationId }).all();
    return inserted.length === 1;
  });
}

/**
 * Records engagement times that are not yet recorded; a time already there
 * wins, so two callers racing can never move a view or reply, or undo one.
 */
export function recordEngagement(
  db: Db,
  applicationId: string,
  times: { viewedAtTs: number | null; repliedAtTs: number | null },
): Promise<SubmissionRow | undefined> {
  return exclusive(db, () => {
    if (times.viewedAtTs !== null) {
      db.update(sandboxSubmissions)
        .set({ viewedAtTs: times.viewedAtTs })
        .where(and(eq(sandboxSubmissions.applicationId, applicationId), isNull(sandboxSubmissions.viewedAtTs)))
        .run();
    }
    if (times.repliedAtTs !== null) {
      db.update(sandboxSubmissions)
        .set({ repliedAtTs: times.repliedAtTs })
        .where(and(eq(sandboxSubmissions.applicationId, applicationId), isNull(sandboxSubmissions.repliedAtTs)))
        .run();
    }
    return submissionOf(db, applicationId);
  });
}
