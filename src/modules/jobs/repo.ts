import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { inTx, tx, type Db } from "../../db/client";
import { exec, isPg, many, preparedOne, rawExec, rawInsertCount, rawMany, tables } from "../../db/query";
import type { jobs, jobTexts, jobTracking } from "../../db/schema";
import { normalizeJob, type NormalizedJob } from "./normalize";

export type JobRow = typeof jobs.$inferSelect;
/** The words feeds match on, kept in job_texts beside the row (src/db/schema/jobs.ts). */
export type MatchFields = (typeof jobTexts.$inferSelect)["fields"];

/** A normalized job's match fields, as archive.ts stores them and as a document read back gives them. */
export const matchFieldsOf = (job: Pick<NormalizedJob, "title" | "description" | "skills">): MatchFields => ({
  title: job.title,
  description: job.description,
  skills: job.skills,
});

/** A JSON column's value: text on SQLite, text or parsed on PostgreSQL (jsonText). */
export const jsonValue = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
/** An archived row as written: the jobs columns and, for job_texts, its match fields. */
export type JobInsert = typeof jobs.$inferInsert & { matchFields: MatchFields };

export function findJobMeta(db: Db, ciphertext: string): Promise<{ exploredAtTs: number } | undefined> {
  return preparedOne(
    db,
    "jobs.findJobMeta",
    (d) => {
      const { jobs } = tables(d);
      return d
        .select({ exploredAtTs: jobs.exploredAtTs })
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

/**
 * exploredAtTs of those of these ciphertexts that are archived: one read per 512, the list padded to a power
 * of two (repeating its last item) so a handful of statement texts serve every batch size.
 */
export async function findJobsMeta(db: Db, ciphertexts: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let at = 0; at < ciphertexts.length; at += 512) {
    const chunk = ciphertexts.slice(at, at + 512);
    let size = 1;
    while (size < chunk.length) size *= 2;
    while (chunk.length < size) chunk.push(chunk[chunk.length - 1]!);
    const rows = await rawMany<{ ciphertext: string; exploredAtTs: number | string }>(
      db,
      `jobs.findJobsMeta:${size}`,
      `SELECT ciphertext, explored_at_ts AS "exploredAtTs" FROM jobs WHERE ciphertext IN (${chunk.map(() => "?").join(", ")})`,
      chunk,
    );
    for (const r of rows) found.set(r.ciphertext, Number(r.exploredAtTs));
  }
  return found;
}

export function findJob(db: Db, ciphertext: string): Promise<JobRow | undefined> {
  return preparedOne(
    db,
    "jobs.find",
    (d) => {
      const { jobs } = tables(d);
      return d
        .select()
        .from(jobs)
        .where(eq(jobs.ciphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

/** What a list of feed entries or applications shows of each job. */
export type JobSummary = Pick<
  JobRow,
  | "ciphertext"
  | "title"
  | "url"
  | "platform"
  | "source"
  | "jobType"
  | "hourlyMin"
  | "hourlyMax"
  | "fixedBudget"
  | "clientCountry"
  | "publishTimeTs"
  | "companyId"
>;

/** The summaries of these archived jobs by ciphertext, in one read (a page of a list, so at most a few hundred). */
export async function jobSummaries(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobSummary>> {
  if (ciphertexts.length === 0) return new Map();
  const { jobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({
        ciphertext: jobs.ciphertext,
        title: jobs.title,
        url: jobs.url,
        platform: jobs.platform,
        source: jobs.source,
        jobType: jobs.jobType,
        hourlyMin: jobs.hourlyMin,
        hourlyMax: jobs.hourlyMax,
        fixedBudget: jobs.fixedBudget,
        clientCountry: jobs.clientCountry,
        publishTimeTs: jobs.publishTimeTs,
        companyId: jobs.companyId,
      })
      .from(jobs)
      .where(inArray(jobs.ciphertext, [...new Set(ciphertexts)])),
  );
  return new Map(rows.map((r) => [r.ciphertext, r]));
}

const COLUMNS = [
  "jobUid",
  "platform",
  "title",
  "url",
  "jobType",
  "hourlyMin",
  "hourlyMax",
  "fixedBudget",
  "clientCountry",
  "clientTotalSpent",
  "paymentVerified",
  "clientRating",
  "clientReviews",
  "usOnly",
  "emailFound",
  "publishTimeTs",
  "companyId",
  "source",
  "document",
  "exploredAtTs",
  "updatedAtTs",
] as const;
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const BOOLEAN_COLUMNS = new Set<string>(["paymentVerified", "usOnly", "emailFound"]);
const JSON_COLUMNS = new Set<string>(["document", "signals", "matchFields"]);
const TEXT_COLUMNS = ["ciphertext", "firstSeenAtTs", "matchFields"] as const;
const TEXTS_HEAD = "INSERT INTO job_texts (job_ciphertext, first_seen_at_ts, fields)";
const TEXTS_ROW = "(?, ?, ?)";
// signals are computed once, when the job is new (modules/jobs/signals.ts): an update leaves them as they are.
const INSERT_COLUMNS = ["ciphertext", "firstSeenAtTs", "signals", ...COLUMNS] as const;
const INSERT_HEAD = `INSERT INTO jobs (${INSERT_COLUMNS.map(snake).join(", ")})`;
const INSERT_ROW = `(${INSERT_COLUMNS.map(() => "?").join(", ")})`;
const INSERT_SQL = `${INSERT_HEAD} VALUES ${INSERT_ROW}`;
const UPDATE_SQL = `UPDATE jobs SET ${COLUMNS.map((c) => `${snake(c)} = ?`).join(", ")} WHERE ciphertext = ?`;

/** A column's value as both drivers take it: the document as JSON text (as the json/jsonText columns store it), booleans as SQLite's 0/1 or PostgreSQL's true/false. */
function driverValues(db: Db, row: Record<string, unknown>, columns: readonly string[]): unknown[] {
  const pg = isPg(db);
  return columns.map((c) => {
    const v = row[c] ?? null;
    if (v === null) return null;
    if (JSON_COLUMNS.has(c)) return JSON.stringify(v);
    if (BOOLEAN_COLUMNS.has(c)) return pg ? Boolean(v) : v ? 1 : 0;
    return v;
  });
}

/**
 * Every archived job is inserted once and refreshed often, for every feed entry: plain SQL statements,
 * prepared once per connection, without drizzle's parameter mapping (a third of the statement's cost).
 */
export async function insertJob(db: Db, row: JobInsert): Promise<void> {
  await both(db, async (d) => {
    await rawExec(d, "jobs.insert", INSERT_SQL, driverValues(d, row, INSERT_COLUMNS));
    await rawExec(d, "jobs.insertText", `${TEXTS_HEAD} VALUES ${TEXTS_ROW}`, driverValues(d, row, TEXT_COLUMNS));
  });
}

/** New jobs of a batch, in one statement per chunk (see rawInsertCount), and their match fields. */
export async function insertJobs(db: Db, rows: readonly JobInsert[]): Promise<void> {
  await both(db, async (d) => {
    await rawInsertCount(
      d,
      "jobs.insertMany",
      { head: INSERT_HEAD, row: INSERT_ROW },
      rows.map((row) => driverValues(d, row, INSERT_COLUMNS)),
    );
    await rawInsertCount(
      d,
      "jobs.insertTexts",
      { head: TEXTS_HEAD, row: TEXTS_ROW },
      rows.map((row) => driverValues(d, row, TEXT_COLUMNS)),
    );
  });
}

export async function updateJob(db: Db, ciphertext: string, changes: Omit<JobInsert, "ciphertext" | "firstSeenAtTs">): Promise<void> {
  await both(db, async (d) => {
    await rawExec(d, "jobs.update", UPDATE_SQL, [...driverValues(d, changes, COLUMNS), ciphertext]);
    // A job archived before job_texts existed gets its row on its first refresh.
    await rawExec(
      d,
      "jobs.upsertText",
      `${TEXTS_HEAD} SELECT ciphertext, first_seen_at_ts, ? FROM jobs WHERE ciphertext = ? ON CONFLICT (job_ciphertext) DO UPDATE SET fields = excluded.fields`,
      [JSON.stringify(changes.matchFields), ciphertext],
    );
  });
}

/** The job's row and its match fields are written together: in the caller's transaction, else in one of their own. */
function both(db: Db, write: (d: Db) => Promise<void>): Promise<void> {
  return inTx(db) ? write(db) : tx(db, write);
}

export type TrackingRow = typeof jobTracking.$inferSelect;

/** Starts watching a job unless it is watched already (one statement). */
export async function insertTrackingIfAbsent(db: Db, row: typeof jobTracking.$inferInsert): Promise<void> {
  const { jobTracking } = tables(db);
  await exec(db, db.insert(jobTracking).values(row).onConflictDoNothing());
}

/** Starts watching each of these jobs that is not watched already, in one statement per chunk. */
export async function insertTrackingsIfAbsent(db: Db, rows: readonly (typeof jobTracking.$inferInsert)[]): Promise<void> {
  const pg = isPg(db);
  await rawInsertCount(
    db,
    "jobs.insertTrackings",
    { head: "INSERT INTO job_tracking (job_ciphertext, active, state, last_checked_at_ts)", row: "(?, ?, ?, ?)", tail: "ON CONFLICT DO NOTHING" },
    rows.map((r) => [r.jobCiphertext, pg ? r.active : r.active ? 1 : 0, JSON.stringify(r.state), r.lastCheckedAtTs]),
  );
}

export function findTracking(db: Db, ciphertext: string): Promise<TrackingRow | undefined> {
  return preparedOne(
    db,
    "jobs.tracking",
    (d) => {
      const { jobTracking } = tables(d);
      return d
        .select()
        .from(jobTracking)
        .where(eq(jobTracking.jobCiphertext, sql.placeholder("ciphertext")));
    },
    { ciphertext },
  );
}

export async function saveTracking(db: Db, ciphertext: string, state: Record<string, unknown>, active: boolean, lastCheckedAtTs: number): Promise<void> {
  const { jobTracking } = tables(db);
  await exec(db, db.update(jobTracking).set({ state, active, lastCheckedAtTs }).where(eq(jobTracking.jobCiphertext, ciphertext)));
}

/** Watched jobs whose last check is older than `beforeTs`, oldest first. */
export function dueTracking(db: Db, beforeTs: number, limit: number): Promise<{ jobCiphertext: string; source: string }[]> {
  const { jobs, jobTracking } = tables(db);
  return many(
    db,
    db
      .select({ jobCiphertext: jobTracking.jobCiphertext, source: jobs.source })
      .from(jobTracking)
      .innerJoin(jobs, eq(jobs.ciphertext, jobTracking.jobCiphertext))
      .where(and(eq(jobTracking.active, true), lte(jobTracking.lastCheckedAtTs, beforeTs)))
      .orderBy(jobTracking.lastCheckedAtTs)
      .limit(limit),
  );
}

/** Archived documents of one company (for the client record). */
export function documentsOfCompany(db: Db, companyId: string): Promise<{ ciphertext: string; document: Record<string, unknown>; exploredAtTs: number }[]> {
  const { jobs } = tables(db);
  return many(
    db,
    db.select({ ciphertext: jobs.ciphertext, document: jobs.document, exploredAtTs: jobs.exploredAtTs }).from(jobs).where(eq(jobs.companyId, companyId)),
  );
}

/** Full rows of these archived jobs by ciphertext, in one read (a page of the dashboard's inbox). */
export async function findJobs(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobRow>> {
  if (ciphertexts.length === 0) return new Map();
  const { jobs } = tables(db);
  const rows = await many(
    db,
    db
      .select()
      .from(jobs)
      .where(inArray(jobs.ciphertext, [...new Set(ciphertexts)])),
  );
  return new Map(rows.map((r) => [r.ciphertext, r]));
}

/** What speed-to-lead reads of a job: where it came from, when it was published and when jobpilot first saw it. */
export interface JobTimes {
  source: string;
  publishTimeTs: number | null;
  firstSeenAtTs: number;
}

/** The JobTimes of these archived jobs by ciphertext (absent: not archived), chunked under the bound-parameter ceiling. */
export async function jobTimes(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobTimes>> {
  const { jobs } = tables(db);
  const unique = [...new Set(ciphertexts)];
  const out = new Map<string, JobTimes>();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await many(
      db,
      db
        .select({ ciphertext: jobs.ciphertext, source: jobs.source, publishTimeTs: jobs.publishTimeTs, firstSeenAtTs: jobs.firstSeenAtTs })
        .from(jobs)
        .where(inArray(jobs.ciphertext, unique.slice(i, i + 500))),
    );
    for (const { ciphertext, ...times } of rows) out.set(ciphertext, times);
  }
  return out;
}

/** `text` as a LIKE pattern that matches it anywhere, its own % _ and \ taken literally (ESCAPE '\'). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The ciphertexts of archived jobs on `platform` whose title or document (skills, description) contains
 * `text` in any case, as a subquery for another module's `IN (…)`, so a list filtered by job facts stays one
 * statement while only this module names the jobs table. Null when there is nothing to filter on.
 */
export function jobsMatching(db: Db, filter: { platform?: string; text?: string }) {
  const { jobs } = tables(db);
  const conditions = [];
  if (filter.platform) conditions.push(eq(jobs.platform, filter.platform as JobRow["platform"]));
  if (filter.text) {
    const pattern = containsPattern(filter.text);
    conditions.push(sql`(lower(${jobs.title}) LIKE ${pattern} ESCAPE '\\' OR lower(${jobs.document}) LIKE ${pattern} ESCAPE '\\')`);
  }
  if (conditions.length === 0) return null;
  return db
    .select({ ciphertext: jobs.ciphertext })
    .from(jobs)
    .where(and(...conditions));
}

/** An earlier job of a client, as the repost signal first compares it (modules/jobs/signals.ts): its title only. */
export interface EarlierJob {
  ciphertext: string;
  companyId: string;
  url: string;
  title: string;
  postedAtTs: number;
}

/** The same list padded to a power of two (repeating its last item), so a handful of statement texts serve every size. */
function padded<T>(list: readonly T[]): T[] {
  const out = [...list];
  let size = 1;
  while (size < out.length) size *= 2;
  while (out.length < size) out.push(out[out.length - 1]!);
  return out;
}

/** No job has an empty company id (normalize.ts keeps none): pads a read's company list without adding rows. */
const NO_COMPANY = "";

/**
 * The jobs of these companies posted (or, unpublished, first seen) at or after sinceTs, newest first, at most
 * `perCompany` each: one read per 128 companies, a newest-first walk of jobs_company_posted_idx per company that
 * stops at `perCompany`, of columns only (no document), so a prolific client costs no more than another.
 */
export async function recentJobsOfCompanies(db: Db, companyIds: readonly string[], sinceTs: number, perCompany: number): Promise<EarlierJob[]> {
  const out: EarlierJob[] = [];
  const unique = [...new Set(companyIds)];
  const posted = "COALESCE(publish_time_ts, first_seen_at_ts)";
  for (let at = 0; at < unique.length; at += 128) {
    const chunk = unique.slice(at, at + 128);
    const size = padded(chunk).length;
    while (chunk.length < size) chunk.push(NO_COMPANY);
    const rows = await rawMany<Omit<EarlierJob, "postedAtTs"> & { postedAtTs: number | string }>(
      db,
      `jobs.recentOfCompanies:${size}`,
      chunk
        .map(
          (_, i) =>
            `SELECT * FROM (SELECT ciphertext, company_id AS "companyId", url, title, ${posted} AS "postedAtTs" FROM jobs
             WHERE company_id = ? AND ${posted} >= ? ORDER BY ${posted} DESC LIMIT ?) AS c${i}`,
        )
        .join(" UNION ALL "),
      chunk.flatMap((c) => [c, sinceTs, perCompany]),
    );
    for (const r of rows) out.push({ ...r, postedAtTs: Number(r.postedAtTs) });
  }
  return out.sort((a, b) => b.postedAtTs - a.postedAtTs);
}

/** The descriptions of these archived jobs, taken out of their documents by the database (a repost's second look). */
export async function descriptionsOf(db: Db, ciphertexts: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  // The match fields hold the description in a few kB; a job archived before them has it only in its document.
  const description = isPg(db)
    ? `COALESCE((t.fields::jsonb)->>'description', (j.document::jsonb)->>'description')`
    : `COALESCE(json_extract(t.fields, '$.description'), json_extract(j.document, '$.description'))`;
  const unique = [...new Set(ciphertexts)];
  for (let at = 0; at < unique.length; at += 512) {
    const chunk = padded(unique.slice(at, at + 512));
    const rows = await rawMany<{ ciphertext: string; description: unknown }>(
      db,
      `jobs.descriptionsOf:${chunk.length}`,
      `SELECT j.ciphertext, ${description} AS description FROM jobs j LEFT JOIN job_texts t ON t.job_ciphertext = j.ciphertext
       WHERE j.ciphertext IN (${chunk.map(() => "?").join(", ")})`,
      chunk,
    );
    for (const r of rows) found.set(r.ciphertext, typeof r.description === "string" ? r.description : "");
  }
  return found;
}

/**
 * The newest fixed-price jobs and their budgets, from jobs_first_seen_idx alone, for the price sample's first fill
 * (jobs/price-sample.ts, which reads their skills with textsOf). Ties on first-seen time go by ciphertext, so the
 * same archive gives the same jobs.
 */
export async function recentFixedPriceJobs(db: Db, limit: number): Promise<{ ciphertext: string; fixedBudget: number }[]> {
  const rows = await rawMany<{ ciphertext: string; fixedBudget: number | string }>(
    db,
    "jobs.recentFixedPrice",
    `SELECT ciphertext, fixed_budget AS "fixedBudget" FROM jobs WHERE fixed_budget IS NOT NULL AND fixed_budget > 0
     ORDER BY first_seen_at_ts DESC, ciphertext DESC LIMIT ?`,
    [limit],
  );
  return rows.map((r) => ({ ciphertext: r.ciphertext, fixedBudget: Number(r.fixedBudget) }));
}

/**
 * The match fields of these archived jobs, in reads of 500: from job_texts, or for a job archived before it
 * existed, from its document, normalized (one that no longer normalizes is left out).
 */
export async function textsOf(db: Db, ciphertexts: readonly string[]): Promise<Map<string, MatchFields>> {
  const out = new Map<string, MatchFields>();
  for (let at = 0; at < ciphertexts.length; at += 500) {
    const chunk = ciphertexts.slice(at, at + 500);
    const rows = await rawMany<{ ciphertext: string; fields: unknown; document: unknown }>(
      db,
      `jobs.textsOf:${chunk.length}`,
      `SELECT j.ciphertext, t.fields, CASE WHEN t.fields IS NULL THEN j.document END AS document
       FROM jobs j LEFT JOIN job_texts t ON t.job_ciphertext = j.ciphertext WHERE j.ciphertext IN (${chunk.map(() => "?").join(", ")})`,
      chunk,
    );
    for (const r of rows) {
      if (r.fields !== null && r.fields !== undefined) {
        out.set(r.ciphertext, jsonValue(r.fields) as MatchFields);
        continue;
      }
      const n = normalizeJob(jsonValue(r.document) as Record<string, unknown>);
      if (n.ok) out.set(r.ciphertext, matchFieldsOf(n.job));
    }
  }
  return out;
}

/** The signals stored on these archived jobs (jobs.signals, raw; read them with signalsOf). */
export async function signalsOfJobs(db: Db, ciphertexts: readonly string[]): Promise<Map<string, { signals: unknown; companyId: string | null }>> {
  if (ciphertexts.length === 0) return new Map();
  const { jobs } = tables(db);
  const rows = await many(
    db,
    db
      .select({ ciphertext: jobs.ciphertext, signals: jobs.signals, companyId: jobs.companyId })
      .from(jobs)
      .where(inArray(jobs.ciphertext, [...new Set(ciphertexts)])),
  );
  return new Map(rows.map((r) => [r.ciphertext, { signals: r.signals, companyId: r.companyId }]));
}
