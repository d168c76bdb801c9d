import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lte, ne, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { OutcomeCheck } from "../../db/enums";
import { exec, many, one, preparedOne, tables } from "../../db/query";
import type { applications } from "../../db/schema";
import { bestScoresOfJobs, entryScores } from "../feeds/repo";
import { jobSummaries } from "../jobs/repo";

export type ApplicationRow = typeof applications.$inferSelect;
export type ApplicationInsert = typeof applications.$inferInsert;

/**
 * A second live (processing or applied) application for the same account and job fails here with a
 * unique violation (the partial unique index; isUniqueViolation tells it apart): the apply service turns it into 409.
 */
export async function insertApplication(db: Db, row: ApplicationInsert): Promise<void> {
  const { applications } = tables(db);
  await exec(db, db.insert(applications).values(row));
}

export function findApplication(db: Db, id: string): Promise<ApplicationRow | undefined> {
  return preparedOne(
    db,
    "applications.find",
    (d) => {
      const { applications } = tables(d);
      return d
        .select()
        .from(applications)
        .where(eq(applications.id, sql.placeholder("id")));
    },
    { id },
  );
}

export function findAccountApplication(db: Db, accountId: string, id: string): Promise<ApplicationRow | undefined> {
  return preparedOne(
    db,
    "applications.findForAccount",
    (d) => {
      const { applications } = tables(d);
      return d
        .select()
        .from(applications)
        .where(and(eq(applications.id, sql.placeholder("id")), eq(applications.accountId, sql.placeholder("accountId"))));
    },
    { id, accountId },
  );
}

/** This account's newest application for a job. */
export function latestForJob(db: Db, accountId: string, jobCiphertext: string): Promise<ApplicationRow | undefined> {
  const { applications } = tables(db);
  return one(
    db,
    db
      .select()
      .from(applications)
      .where(and(eq(applications.accountId, accountId), eq(applications.jobCiphertext, jobCiphertext)))
      .orderBy(desc(applications.appliedAtTs), desc(applications.id))
      .limit(1),
  );
}

export function liveApplication(db: Db, accountId: string, jobCiphertext: string): Promise<ApplicationRow | undefined> {
  const { applications } = tables(db);
  return one(
    db,
    db
      .select()
      .from(applications)
      .where(
        and(eq(applications.accountId, accountId), eq(applications.jobCiphertext, jobCiphertext), sql`${applications.status} IN ('processing', 'applied')`),
      )
      .limit(1),
  );
}

export interface AppliedListing {
  app: ApplicationRow;
  title: string;
  url: string;
  platform: string;
  matchingScore: number | null;
}

export async function listApplications(
  db: Db,
  accountId: string,
  opts: { limit: number; offset: number; status?: ApplicationRow["status"] },
): Promise<{ items: AppliedListing[]; total: number }> {
  const { applications } = tables(db);
  const where = and(eq(applications.accountId, accountId), opts.status ? eq(applications.status, opts.status) : undefined);
  const total = (await one(db, db.select({ n: count() }).from(applications).where(where)))?.n ?? 0;
  const apps = await many(
    db,
    db.select().from(applications).where(where).orderBy(desc(applications.appliedAtTs), desc(applications.id)).limit(opts.limit).offset(opts.offset),
  );
  // The job and the scores are asked of their owners (jobs, feeds): one read each for the whole page.
  const jobsOf = await jobSummaries(
    db,
    apps.map((a) => a.jobCiphertext),
  );
  const entryScore = await entryScores(
    db,
    apps.flatMap((a) => (a.processedJobId === null ? [] : [a.processedJobId])),
  );
  const bestScore = await bestScoresOfJobs(
    db,
    accountId,
    apps.map((a) => a.jobCiphertext),
  );
  const items = apps.flatMap((app) => {
    const job = jobsOf.get(app.jobCiphertext);
    if (!job) return [];
    // The score of the feed entry applied from, else this account's best entry for the job.
    const matchingScore = (app.processedJobId === null ? undefined : entryScore.get(app.processedJobId)) ?? bestScore.get(app.jobCiphertext) ?? null;
    return [{ app, title: job.title, url: job.url, platform: job.platform, matchingScore }];
  });
  return { items, total };
}

/**
 * Per status, this account's applications made since `weekStartTs` (week) and,
 * of those, since `dayStartTs` (today): one indexed range scan, grouped.
 */
export async function statusCountsSince(
  db: Db,
  accountId: string,
  weekStartTs: number,
  dayStartTs: number,
): Promise<{ status: ApplicationRow["status"]; today: number; week: number }[]> {
  const { applications } = tables(db);
  const rows = await many(
    db,
    db
      .select({
        status: applications.status,
        // sum() and count() come back as strings on PostgreSQL.
        today: sql<number>`sum(case when ${applications.appliedAtTs} >= ${dayStartTs} then 1 else 0 end)`.mapWith(Number),
        week: count(),
      })
      .from(applications)
      .where(and(eq(applications.accountId, accountId), gte(applications.appliedAtTs, weekStartTs)))
      .groupBy(applications.status),
  );
  return rows.map((r) => ({ status: r.status, today: Number(r.today), week: Number(r.week) }));
}

/** One statement: the worker is handing the application to the driver (a crash from here on needs a lookup). */
export async function markSubmitting(db: Db, id: string, answers: { position: number; answer: string }[]): Promise<void> {
  const { applications } = tables(db);
  await exec(db, db.update(applications).set({ phase: "submitting", answers }).where(eq(applications.id, id)));
}

export async function markLoggedOutSince(db: Db, id: string, ts: number): Promise<void> {
  const { applications } = tables(db);
  await exec(
    db,
    db
      .update(applications)
      .set({ loggedOutSinceTs: ts })
      .where(and(eq(applications.id, id), sql`${applications.loggedOutSinceTs} IS NULL`)),
  );
}

/**
 * Writes the final status and closes the credit hold; the caller settles the
 * credit itself (accounts) in the same transaction. The update only matches
 * while the hold is open, so an application is settled once. Returns false
 * when it was already settled.
 */
export async function settle(
  db: Db,
  app: Pick<ApplicationRow, "id" | "accountId">,
  outcome: { status: Exclude<ApplicationRow["status"], "processing">; message: string; connects?: { required: number; boost: number } },
  nowTs: number,
): Promise<boolean> {
  const { applications } = tables(db);
  const applied = outcome.status === "applied";
  // Connects are written by this statement only, which matches once: a retried or repeated settle cannot count them twice.
  const connects = applied && outcome.connects ? outcome.connects : null;
  const changed = await exec(
    db,
    db
      .update(applications)
      .set({
        status: outcome.status,
        statusMessage: outcome.message,
        errorMessage: applied ? null : outcome.message,
        phase: "done",
        creditHeld: false,
        processedAtTs: nowTs,
        connectsRequired: connects?.required ?? null,
        boostConnects: connects?.boost ?? null,
      })
      .where(and(eq(applications.id, app.id), eq(applications.creditHeld, true))),
  );
  return changed > 0;
}

/**
 * Applied applications whose engagement is due for a look, oldest check first: those not yet both viewed and
 * replied, and those with no outcome yet, since a driver that reads later stages (the sandbox) can still report an
 * interview, a hire or a loss after the reply.
 */
export function dueForSync(db: Db, limit: number): Promise<ApplicationRow[]> {
  const { applications } = tables(db);
  return many(
    db,
    db
      .select()
      .from(applications)
      .where(and(eq(applications.status, "applied"), sql`(NOT (${applications.viewed} AND ${applications.replied}) OR ${applications.outcome} IS NULL)`))
      .orderBy(sql`${applications.lastCheckedAtTs} IS NOT NULL`, applications.lastCheckedAtTs)
      .limit(limit),
  );
}

/** A driver's reading of a proposal (marketplace/driver.ts Engagement). */
export interface EngagementReading {
  viewed: boolean;
  replied: boolean;
  viewedAt: number | null;
  repliedAt?: number | null;
  interviewAt?: number | null;
  hiredAt?: number | null;
  lostAt?: number | null;
}

/**
 * Writes a driver's reading in one statement and returns the row as it now is (undefined for an unknown id).
 * Stage flags only turn on (a false leaves the column as it is) and stage times only fill a null, keeping the first
 * time seen, whoever recorded it; a later stage implies the earlier ones (an interview or a hire means the client
 * saw the proposal and answered). A hire sets outcome hired, and a loss outcome lost, only while no outcome is
 * recorded, and a loss only when there is no hire: a reading never overwrites what a person recorded, and one that
 * contradicts it (a hire after a recorded loss, a loss after a hire) writes nothing of it. Every right-hand side
 * reads the row as it was before the statement, on both dialects.
 */
export function recordEngagement(db: Db, id: string, e: EngagementReading, nowTs: number): Promise<ApplicationRow | undefined> {
  const { applications: a } = tables(db);
  const interviewAt = e.interviewAt ?? null;
  const hiredAt = e.hiredAt ?? null;
  const lostAt = hiredAt === null ? (e.lostAt ?? null) : null;
  const isOpen = sql`${a.outcome} IS NULL`;
  // The hire counts only on an open proposal; what it implies (viewed, replied) only then too.
  const hireOn = (then: SQL, otherwise: SQL) => (hiredAt === null ? otherwise : sql`CASE WHEN ${isOpen} THEN ${then} ELSE ${otherwise} END`);
  const answered = e.replied || interviewAt !== null;
  const seen = e.viewed || answered;
  const repliedTs = e.repliedAt ?? interviewAt ?? hiredAt ?? nowTs;
  const viewedTs = e.viewedAt ?? e.repliedAt ?? interviewAt ?? hiredAt ?? nowTs;
  const set: Record<string, unknown> = { lastCheckedAtTs: nowTs };
  if (seen || hiredAt !== null) {
    const fill = sql`COALESCE(${a.viewedAtTs}, ${viewedTs})`;
    set.viewed = seen ? true : hireOn(sql`TRUE`, sql`${a.viewed}`);
    set.viewedAtTs = seen ? fill : hireOn(fill, sql`${a.viewedAtTs}`);
  }
  if (answered || hiredAt !== null) {
    const fill = sql`COALESCE(${a.repliedAtTs}, ${repliedTs})`;
    set.replied = answered ? true : hireOn(sql`TRUE`, sql`${a.replied}`);
    set.repliedAtTs = answered ? fill : hireOn(fill, sql`${a.repliedAtTs}`);
  }
  if (interviewAt !== null) set.interviewAtTs = sql`COALESCE(${a.interviewAtTs}, ${interviewAt})`;
  if (hiredAt !== null) {
    set.hiredAtTs = hireOn(sql`COALESCE(${a.hiredAtTs}, ${hiredAt})`, sql`${a.hiredAtTs}`);
    set.outcome = hireOn(sql`'hired'`, sql`${a.outcome}`);
    set.outcomeAtTs = hireOn(sql`${hiredAt}`, sql`${a.outcomeAtTs}`);
  } else if (lostAt !== null) {
    const isLost = sql`${isOpen} AND ${a.hiredAtTs} IS NULL`;
    set.outcome = sql`CASE WHEN ${isLost} THEN 'lost' ELSE ${a.outcome} END`;
    set.outcomeAtTs = sql`CASE WHEN ${isLost} THEN ${lostAt} ELSE ${a.outcomeAtTs} END`;
  }
  return one(db, db.update(a).set(set).where(eq(a.id, id)).returning());
}

/** The account's sent (applied) application for a job: at most one, since one application per job may be live. */
export function sentApplicationOfJob(db: Db, accountId: string, jobCiphertext: string): Promise<ApplicationRow | undefined> {
  const { applications } = tables(db);
  return one(
    db,
    db
      .select()
      .from(applications)
      .where(and(eq(applications.accountId, accountId), eq(applications.jobCiphertext, jobCiphertext), eq(applications.status, "applied")))
      .limit(1),
  );
}

/** Which of these jobs the account has applied for (any status): their feed entries are part of the application's record. */
export async function jobsWithApplications(db: Db, accountId: string, jobCiphertexts: readonly string[]): Promise<Set<string>> {
  if (jobCiphertexts.length === 0) return new Set();
  const { applications } = tables(db);
  const rows = await many(
    db,
    db
      .selectDistinct({ jobCiphertext: applications.jobCiphertext })
      .from(applications)
      .where(and(eq(applications.accountId, accountId), inArray(applications.jobCiphertext, [...new Set(jobCiphertexts)]))),
  );
  return new Set(rows.map((r) => r.jobCiphertext));
}

/** The accounts with settled applications of these drivers since `sinceTs` whose outcome is not checked yet. */
export async function accountsWithUncheckedOutcomes(db: Db, drivers: readonly string[], sinceTs: number, limit: number) {
  if (drivers.length === 0) return [];
  const { applications } = tables(db);
  return many(
    db,
    db
      .selectDistinct({ accountId: applications.accountId, driver: applications.driver })
      .from(applications)
      .where(
        and(
          inArray(applications.driver, [...drivers]),
          isNull(applications.outcomeCheckedAtTs),
          ne(applications.status, "processing"),
          gte(applications.processedAtTs, sinceTs),
        ),
      )
      .limit(limit),
  );
}

/** One account's settled, unchecked applications of a driver that settled within [fromTs, toTs], oldest first. */
export function uncheckedOutcomes(db: Db, accountId: string, driver: string, fromTs: number, toTs: number, limit: number): Promise<ApplicationRow[]> {
  const { applications } = tables(db);
  return many(
    db,
    db
      .select()
      .from(applications)
      .where(
        and(
          eq(applications.driver, driver),
          isNull(applications.outcomeCheckedAtTs),
          ne(applications.status, "processing"),
          gte(applications.processedAtTs, fromTs),
          lte(applications.processedAtTs, toTs),
          eq(applications.accountId, accountId),
        ),
      )
      .orderBy(asc(applications.processedAtTs))
      .limit(limit),
  );
}

/** Writes an application's outcome check once: a second check of the same application changes nothing. */
export async function recordOutcomeCheck(db: Db, id: string, check: OutcomeCheck, nowTs: number): Promise<boolean> {
  const { applications } = tables(db);
  const changed = await exec(
    db,
    db
      .update(applications)
      .set({ outcomeCheck: check, outcomeCheckedAtTs: nowTs })
      .where(and(eq(applications.id, id), isNull(applications.outcomeCheckedAtTs))),
  );
  return changed > 0;
}

/** The funnel columns a recorded outcome may write (see funnel.ts for which it writes). */
export type FunnelPatch = Partial<
  Pick<
    ApplicationRow,
    "viewed" | "replied" | "viewedAtTs" | "repliedAtTs" | "interviewAtTs" | "hiredAtTs" | "outcome" | "outcomeAtTs" | "valueUsd" | "outcomeNote"
  >
>;

/** One statement: writes a recorded outcome onto a sent application and returns the row as it now is. */
export function updateFunnel(db: Db, id: string, patch: FunnelPatch): Promise<ApplicationRow | undefined> {
  const { applications } = tables(db);
  return one(
    db,
    db
      .update(applications)
      .set(patch)
      .where(and(eq(applications.id, id), eq(applications.status, "applied")))
      .returning(),
  );
}

/** The governor let the submission go: what its caps and budgets count from now on. */
export async function markGoverned(db: Db, id: string, atTs: number, estimatedConnects: number): Promise<void> {
  const { applications } = tables(db);
  await exec(db, db.update(applications).set({ governedAtTs: atTs, estimatedConnects }).where(eq(applications.id, id)));
}

/** `approved` after a person's approval; any other text holds the application for review (automation/governor.ts). */
export const APPROVED = "approved";

/** Holds a queued application for a person's review, or marks it approved; false when it is no longer queued. */
export async function setHeldReason(db: Db, id: string, reason: string | null): Promise<boolean> {
  const { applications } = tables(db);
  return (
    (await exec(
      db,
      db
        .update(applications)
        .set({ heldReason: reason })
        .where(and(eq(applications.id, id), eq(applications.status, "processing"), eq(applications.phase, "queued"))),
    )) > 0
  );
}

function heldWhere(db: Db, accountId: string, draftedBy?: string): SQL {
  const { applications: a } = tables(db);
  return and(
    eq(a.accountId, accountId),
    eq(a.status, "processing"),
    eq(a.phase, "queued"),
    isNotNull(a.heldReason),
    ne(a.heldReason, APPROVED),
    draftedBy === undefined ? undefined : eq(a.draftedBy, draftedBy),
  )!;
}

/** The account's applications held for review (only those `draftedBy` drafted, when given), newest first, and how many there are. */
export async function listHeld(
  db: Db,
  accountId: string,
  limit: number,
  offset: number,
  draftedBy?: string,
): Promise<{ rows: ApplicationRow[]; total: number }> {
  const { applications: a } = tables(db);
  const where = heldWhere(db, accountId, draftedBy);
  const rows = await many(db, db.select().from(a).where(where).orderBy(desc(a.appliedAtTs), desc(a.id)).limit(limit).offset(offset));
  const total = await one(db, db.select({ n: count() }).from(a).where(where));
  return { rows, total: Number(total?.n ?? 0) };
}

/**
 * A person approved it: marked approved (the submit task sends it), with the approver as approved_by and sent_by;
 * false when it is no longer queued.
 */
export async function markApproved(db: Db, id: string, approver: string | null): Promise<boolean> {
  const { applications: a } = tables(db);
  const changed = await exec(
    db,
    db
      .update(a)
      .set({ heldReason: APPROVED, approvedBy: approver, sentBy: approver })
      .where(and(eq(a.id, id), eq(a.status, "processing"), eq(a.phase, "queued"))),
  );
  return changed > 0;
}

/**
 * Moves a held application from one reason to another (an approval sent back, a returned one asked again), with the
 * approver's comment when given; false when it no longer waits with reason `from` (someone acted meanwhile).
 */
export async function moveHeld(db: Db, id: string, from: string, to: string, comment?: string): Promise<boolean> {
  const { applications: a } = tables(db);
  const changed = await exec(
    db,
    db
      .update(a)
      .set({ heldReason: to, ...(comment === undefined ? {} : { reviewComment: comment }) })
      .where(and(eq(a.id, id), eq(a.status, "processing"), eq(a.phase, "queued"), eq(a.heldReason, from))),
  );
  return changed > 0;
}

/** The letter a person rewrote at review, before the application is submitted. */
export async function reviseLetter(db: Db, id: string, coverLetter: string, editedByHand: boolean): Promise<void> {
  const { applications } = tables(db);
  await exec(db, db.update(applications).set({ coverLetter, editedByHand }).where(eq(applications.id, id)));
}

/**
 * Holds a queued application whose drafted screening answers still need something only the freelancer knows: the
 * answers are kept for the reviewer to fill in, and the governor's go is taken back (it no longer counts against the
 * caps while it waits; approved, it is governed again). False when it is no longer queued.
 */
export async function holdWithAnswers(db: Db, id: string, answers: { position: number; answer: string }[], reason: string): Promise<boolean> {
  const { applications: a } = tables(db);
  const changed = await exec(
    db,
    db
      .update(a)
      .set({ answers, heldReason: reason, governedAtTs: null, estimatedConnects: null })
      .where(and(eq(a.id, id), eq(a.status, "processing"), eq(a.phase, "queued"))),
  );
  return changed > 0;
}

/** The screening answers as a person filled them in at review, before the application is submitted. */
export async function reviseAnswers(db: Db, id: string, answers: { position: number; answer: string }[]): Promise<void> {
  const { applications } = tables(db);
  await exec(db, db.update(applications).set({ answers }).where(eq(applications.id, id)));
}
