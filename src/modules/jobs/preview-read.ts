/**
 * The archive reads of the feed preview (feeds/preview.ts, issue 45): the jobs first seen in a window with the
 * columns the feed filters read, newest first, without their documents, which are most of a row's bytes and
 * most of the time (parsing 100,000 of them is seconds). The match fields the preview then needs come from
 * job_texts, only those SQL's case-insensitive LIKE finds a keyword's words in (a cheap superset of the matcher's
 * whole-word test, which the preview then runs on them).
 */
import type { Db } from "../../db/client";
import { isPg, rawMany } from "../../db/query";
import type { JobType, Platform } from "../../db/enums";
import { normalizeJob } from "./normalize";
import type { MatchFields } from "./repo";
import { type JobSignal, signalsOf } from "./signals";

/** An archived job as the preview filters it: the normalized filter columns (all in jobs_first_seen_idx), no document. */
export interface WindowJob {
  ciphertext: string;
  platform: Platform;
  jobType: JobType | null;
  hourlyMin: number | null;
  hourlyMax: number | null;
  fixedBudget: number | null;
  clientCountry: string | null;
  clientTotalSpent: number | null;
  paymentVerified: boolean | null;
  clientRating: number | null;
  clientReviews: number | null;
  /**
   * The normalizer also counts client stats present when only other stats fields carry a value; with rating and
   * reviews both unknown no rating or reviews floor can drop the job either way, so the columns tell enough.
   */
  hasClientStats: boolean;
  usOnly: boolean | null;
  emailFound: boolean;
  companyId: string | null;
  firstSeenAtTs: number;
}

interface RawRow {
  ciphertext: string;
  platform: Platform;
  job_type: JobType | null;
  hourly_min: number | null;
  hourly_max: number | null;
  fixed_budget: number | null;
  client_country: string | null;
  client_total_spent: number | null;
  payment_verified: boolean | number | null;
  client_rating: number | null;
  client_reviews: number | null;
  us_only: boolean | number | null;
  email_found: boolean | number;
  company_id: string | null;
  first_seen_at_ts: number | string;
}

const likeOf = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const bool = (v: boolean | number | null) => (v === null ? null : v === true || v === 1);
const num = (v: number | string | null) => (v === null ? null : Number(v));

/**
 * The jobs first seen in [sinceTs, untilTs), newest first, from jobs_first_seen_idx alone (src/db/schema/jobs.ts):
 * the rows are spread over many pages by their documents, the index holds these columns in a few. What a listed
 * job shows besides comes from listedJobs; its signals from storedSignals.
 */
export async function jobsInWindow(db: Db, window: { sinceTs: number; untilTs: number }): Promise<WindowJob[]> {
  const rows = await rawMany<RawRow>(
    db,
    "jobs.window",
    `SELECT ciphertext, platform, job_type, hourly_min, hourly_max, fixed_budget, client_country, client_total_spent,
       payment_verified, client_rating, client_reviews, us_only, email_found, company_id, first_seen_at_ts
     FROM jobs WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ? ORDER BY first_seen_at_ts DESC, ciphertext DESC`,
    [window.sinceTs, window.untilTs],
  );
  const out: WindowJob[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    out[r] = {
      ciphertext: row.ciphertext,
      platform: row.platform,
      jobType: row.job_type,
      hourlyMin: row.hourly_min,
      hourlyMax: row.hourly_max,
      fixedBudget: row.fixed_budget,
      clientCountry: row.client_country,
      clientTotalSpent: row.client_total_spent,
      paymentVerified: bool(row.payment_verified),
      clientRating: row.client_rating,
      clientReviews: row.client_reviews,
      hasClientStats: row.client_rating !== null || row.client_reviews !== null,
      usOnly: bool(row.us_only),
      emailFound: bool(row.email_found) === true,
      companyId: row.company_id,
      firstSeenAtTs: Number(row.first_seen_at_ts),
    };
  }
  return out;
}

/** What a listed job shows beyond its filter columns. */
export interface ListedJob {
  title: string;
  url: string;
  source: string;
  publishTimeTs: number | null;
}

/** The ListedJob of these archived jobs by ciphertext (a preview lists at most a few dozen). */
export async function listedJobs(db: Db, ciphertexts: readonly string[]): Promise<Map<string, ListedJob>> {
  const out = new Map<string, ListedJob>();
  if (ciphertexts.length === 0) return out;
  const rows = await rawMany<{ ciphertext: string; title: string; url: string; source: string; publish_time_ts: number | string | null }>(
    db,
    `jobs.listed:${ciphertexts.length}`,
    `SELECT ciphertext, title, url, source, publish_time_ts FROM jobs WHERE ciphertext IN (${ciphertexts.map(() => "?").join(", ")})`,
    [...ciphertexts],
  );
  for (const r of rows) out.set(r.ciphertext, { title: r.title, url: r.url, source: r.source, publishTimeTs: num(r.publish_time_ts) });
  return out;
}

/** The stored signals of those of these archived jobs that carry any, in reads of 500. */
export async function storedSignals(db: Db, ciphertexts: readonly string[]): Promise<Map<string, JobSignal[]>> {
  const out = new Map<string, JobSignal[]>();
  for (let at = 0; at < ciphertexts.length; at += 500) {
    const chunk = ciphertexts.slice(at, at + 500);
    const rows = await rawMany<{ ciphertext: string; signals: unknown }>(
      db,
      `jobs.storedSignals:${chunk.length}`,
      `SELECT ciphertext, signals FROM jobs WHERE ciphertext IN (${chunk.map(() => "?").join(", ")}) AND signals IS NOT NULL AND signals <> '[]'`,
      chunk,
    );
    for (const r of rows) {
      const list = signalsOf(typeof r.signals === "string" ? JSON.parse(r.signals) : r.signals);
      if (list.length > 0) out.set(r.ciphertext, list);
    }
  }
  return out;
}

/** The words a feed matches on, as `JobText` and the scorer read them (job_texts.fields). */
export type { MatchFields } from "./repo";

const parseJson = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

/**
 * The match fields of the jobs first seen in the window whose text holds, in any case, every word of at least one
 * of the lists (all of them when `lists` is null): one scan of job_texts, whose rows are a few kB beside documents
 * often ten times that (src/db/schema/jobs.ts). `older`: the jobs of the window archived before job_texts existed,
 * whose text only their document holds. SQLite's LIKE folds ASCII case only, so callers give only ASCII lower-case
 * words.
 */
export async function textsInWindow(
  db: Db,
  window: { sinceTs: number; untilTs: number },
  lists: readonly (readonly string[])[] | null,
): Promise<{ texts: Map<string, MatchFields>; older: string[] }> {
  const like = isPg(db) ? "ILIKE" : "LIKE";
  const words = lists?.flat() ?? [];
  const holds = lists ? ` AND (${lists.map((l) => `(${l.map(() => `fields ${like} ? ESCAPE '\\'`).join(" AND ")})`).join(" OR ")})` : "";
  const rows = await rawMany<{ ciphertext: string; fields: unknown }>(
    db,
    `jobs.textsInWindow:${lists?.map((l) => l.length).join(".") ?? "all"}`,
    `SELECT job_ciphertext AS ciphertext, fields FROM job_texts WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ?${holds}`,
    [window.sinceTs, window.untilTs, ...words.map(likeOf)],
  );
  const texts = new Map<string, MatchFields>();
  for (const r of rows) texts.set(r.ciphertext, parseJson(r.fields) as MatchFields);
  return { texts, older: await olderInWindow(db, window) };
}

/**
 * The jobs of the window without a job_texts row: none once every job of it was archived after issue 45, which
 * two counts from indexes alone tell; else looked for row by row.
 */
async function olderInWindow(db: Db, window: { sinceTs: number; untilTs: number }): Promise<string[]> {
  const counts = await rawMany<{ jobs: number | string; texts: number | string }>(
    db,
    "jobs.windowCounts",
    `SELECT (SELECT count(*) FROM jobs WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ?) AS jobs,
       (SELECT count(*) FROM job_texts WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ?) AS texts`,
    [window.sinceTs, window.untilTs, window.sinceTs, window.untilTs],
  );
  if (Number(counts[0]?.jobs ?? 0) === Number(counts[0]?.texts ?? 0)) return [];
  const rows = await rawMany<{ ciphertext: string }>(
    db,
    "jobs.olderInWindow",
    `SELECT ciphertext FROM jobs j WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ?
       AND NOT EXISTS (SELECT 1 FROM job_texts t WHERE t.job_ciphertext = j.ciphertext)`,
    [window.sinceTs, window.untilTs],
  );
  return rows.map((r) => r.ciphertext);
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
        out.set(r.ciphertext, parseJson(r.fields) as MatchFields);
        continue;
      }
      const n = normalizeJob(parseJson(r.document) as Record<string, unknown>);
      if (n.ok) out.set(r.ciphertext, { title: n.job.title, description: n.job.description, skills: n.job.skills });
    }
  }
  return out;
}

/** The jobs first seen in the window, counted by the database alone: the benchmark's baseline. */
export async function countInWindow(db: Db, window: { sinceTs: number; untilTs: number }): Promise<number> {
  const rows = await rawMany<{ n: number | string }>(
    db,
    "jobs.countInWindow",
    "SELECT count(*) AS n FROM jobs WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ?",
    [window.sinceTs, window.untilTs],
  );
  return Number(rows[0]?.n ?? 0);
}
