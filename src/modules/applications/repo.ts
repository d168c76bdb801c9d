import { and, count, desc, eq, gte, sql } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { prepared } from "../../db/prepared";
import { applications } from "../../db/schema";
import { bestScoresOfJobs, entryScores } from "../feeds/repo";
import { jobSummaries } from "../jobs/repo";

export type ApplicationRow = typeof applications.$inferSelect;
export type ApplicationInsert = typeof applications.$inferInsert;

export function insertApplication(db: Db, row: ApplicationInsert): Promise<void> {
  return exclusive(db, () => {
    db.insert(applications).values(row).run();
  });
}

export function findApplication(db: Db, id: string): Promise<ApplicationRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "applications.find", (d) =>
      d
        .select()
        .from(applications)
        .where(eq(applications.id, sql.placeholder("id")))
        .prepare(),
    ).get({ id }),
  );
}

export function findAccountApplication(db: Db, accountId: string, id: string): Promise<ApplicationRow | undefined> {
  return exclusive(db, () =>
    prepared(db, "applications.findForAccount", (d) =>
      d
        .select()
        .from(applications)
        .where(and(eq(applications.id, sql.placeholder("id")), eq(applications.accountId, sql.placeholder("accountId"))))
        .prepare(),
    ).get({ id, accountId }),
  );
}

/** This account's newest application for a job. */
export function latestForJob(db: Db, accountId: string, jobCiphertext: string): Promise<ApplicationRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(applications)
      .where(and(eq(applications.accountId, accountId), eq(applications.jobCiphertext, jobCiphertext)))
      .orderBy(desc(applications.appliedAtTs), desc(applications.id))
      .limit(1)
      .get(),
  );
}

export function liveApplication(db: Db, accountId: string, jobCiphertext: string): Promise<ApplicationRow | undefined> {
  return exclusive(db, () =>
    db
      .select()
      .from(applications)
      .where(
        and(eq(applications.accountId, accountId), eq(applications.jobCiphertext, jobCiphertext), sql`${applications.status} IN ('processing', 'applied')`),
      )
      .get(),
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
  const where = and(eq(applications.accountId, accountId), opts.status ? eq(applications.status, opts.status) : undefined);
  const { total, apps } = await exclusive(db, () => ({
    total: db.select({ n: count() }).from(applications).where(where).get()?.n ?? 0,
    apps: db
      .select()
      .from(applications)
      .where(where)
      .orderBy(desc(applications.appliedAtTs), desc(applications.id))
      .limit(opts.limit)
      .offset(opts.offset)
      .all(),
  }));
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
export function statusCountsSince(
  db: Db,
  accountId: string,
  weekStartTs: number,
  dayStartTs: number,
): Promise<{ status: ApplicationRow["status"]; today: number; week: number }[]> {
  return exclusive(db, () =>
    db
      .select({
        status: applications.status,
        today: sql<number>`sum(case when ${applications.appliedAtTs} >= ${dayStartTs} then 1 else 0 end)`,
        week: sql<number>`count(*)`,
      })
      .from(applications)
      .where(and(eq(applications.accountId, accountId), gte(applications.appliedAtTs, weekStartTs)))
      .groupBy(applications.status)
      .all()
      .map((r) => ({ status: r.status, today: Number(r.today), week: Number(r.week) })),
  );
}

/** One statement: the worker is handing the application to the driver (a crash from here on needs a lookup). */
export function markSubmitting(db: Db, id: string, answers: { position: number; answer: string }[]): Promise<void> {
  return exclusive(db, () => {
    db.update(applications).set({ phase: "submitting", answers }).where(eq(applications.id, id)).run();
  });
}

export function markLoggedOutSince(db: Db, id: string, ts: number): Promise<void> {
  return exclusive(db, () => {
    db.update(applications)
      .set({ loggedOutSinceTs: ts })
      .where(and(eq(applications.id, id), sql`${applications.loggedOutSinceTs} IS NULL`))
      .run();
  });
}

/**
 * Writes the final status and closes the credit hold; the caller settles the
 * credit itself (accounts) in the same transaction. The update only matches
 * while the hold is open, so an application is settled once. Returns false
 * when it was already settled.
 */
export function settle(
  db: Db,
  app: Pick<ApplicationRow, "id" | "accountId">,
  outcome: { status: Exclude<ApplicationRow["status"], "processing">; message: string },
  nowTs: number,
): Promise<boolean> {
  return exclusive(db, () => {
    const applied = outcome.status === "applied";
    const changed = db
      .update(applications)
      .set({
        status: outcome.status,
        statusMessage: outcome.message,
        errorMessage: applied ? null : outcome.message,
        phase: "done",
        creditHeld: false,
        processedAtTs: nowTs,
      })
      .where(and(eq(applications.id, app.id), eq(applications.creditHeld, true)))
      .returning({ id: applications.id })
      .all();
    return changed.length > 0;
  });
}

/** Applied applications whose engagement is due for a look, oldest check first. */
export function dueForSync(db: Db, limit: number): Promise<ApplicationRow[]> {
  return exclusive(db, () =>
    db
      .select()
      .from(applications)
      .where(and(eq(applications.status, "applied"), sql`NOT (${applications.viewed} AND ${applications.replied})`))
      .orderBy(sql`${applications.lastCheckedAtTs} IS NOT NULL`, applications.lastCheckedAtTs)
      .limit(limit)
      .all(),
  );
}

/** viewed and replied only ever turn on; viewedAt keeps the first time seen. One statement. */
export function recordEngagement(db: Db, id: string, e: { viewed: boolean; replied: boolean; viewedAt: number | null }, nowTs: number): Promise<void> {
  return exclusive(db, () => {
    db.update(applications)
      .set({
        viewed: sql`${applications.viewed} OR ${e.viewed || e.replied ? 1 : 0}`,
        replied: sql`${applications.replied} OR ${e.replied ? 1 : 0}`,
        viewedAtTs: sql`COALESCE(${applications.viewedAtTs}, ${e.viewed || e.replied ? (e.viewedAt ?? nowTs) : null})`,
        lastCheckedAtTs: nowTs,
      })
      .where(eq(applications.id, id))
      .run();
  });
}
