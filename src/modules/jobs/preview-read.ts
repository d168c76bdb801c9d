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
import { jsonValue, type MatchFields } from "./repo";
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

/**
 * The jobs first seen in [sinceTs, untilTs), newest first, from jobs_first_seen_idx alone (src/db/schema/jobs.ts):
 * the rows are spread over many pages by their documents, the index holds these columns in a few. What a listed
 * job shows besides comes from repo.ts jobSummaries; its signals from storedSignals.
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
      const list = signalsOf(jsonValue(r.signals));
      if (list.length > 0) out.set(r.ciphertext, list);
    }
  }
  return out;
}

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
  for (const r of rows) texts.set(r.ciphertext, jsonValue(r.fields) as MatchFields);
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
