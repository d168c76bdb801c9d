/**
 * The archive reads of the feed preview (feeds/preview.ts, issue 45): the jobs first seen in a window with the
 * columns the feed filters read, newest first, without their documents, which are most of a row's bytes and
 * most of the time (parsing 100,000 of them is seconds). The documents the preview then needs are read by
 * ciphertext, and only those SQL's case-insensitive LIKE finds a keyword's words in (a cheap superset of the
 * matcher's whole-word test, which the preview then runs on them).
 */
import type { Db } from "../../db/client";
import { isPg, rawMany } from "../../db/query";
import type { JobType, Platform } from "../../db/enums";
import { normalizeJob, type NormalizedJob } from "./normalize";
import { type JobSignal, signalsOf } from "./signals";

/** An archived job as the preview filters it: the normalized filter columns, no document. */
export interface WindowJob {
  ciphertext: string;
  platform: Platform;
  title: string;
  url: string;
  source: string;
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
  publishTimeTs: number | null;
  companyId: string | null;
  firstSeenAtTs: number;
}

interface RawRow {
  ciphertext: string;
  platform: Platform;
  title: string;
  url: string;
  source: string;
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
  publish_time_ts: number | string | null;
  company_id: string | null;
  first_seen_at_ts: number | string;
}

const likeOf = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const bool = (v: boolean | number | null) => (v === null ? null : v === true || v === 1);
const num = (v: number | string | null) => (v === null ? null : Number(v));

/**
 * The jobs first seen in [sinceTs, untilTs), newest first, without their documents, nor their signals: the columns
 * added after the document sit after it in each SQLite row, so reading one walks the document's overflow pages
 * (docs/performance.md, "Feed preview"); storedSignals reads them for the few jobs that need them.
 */
export async function jobsInWindow(db: Db, window: { sinceTs: number; untilTs: number }): Promise<WindowJob[]> {
  const rows = await rawMany<RawRow>(
    db,
    "jobs.window",
    `SELECT ciphertext, platform, title, url, source, job_type, hourly_min, hourly_max, fixed_budget, client_country, client_total_spent,
       payment_verified, client_rating, client_reviews, us_only, email_found, publish_time_ts, company_id, first_seen_at_ts
     FROM jobs WHERE first_seen_at_ts >= ? AND first_seen_at_ts < ? ORDER BY first_seen_at_ts DESC, ciphertext DESC`,
    [window.sinceTs, window.untilTs],
  );
  const out: WindowJob[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    out[r] = {
      ciphertext: row.ciphertext,
      platform: row.platform,
      title: row.title,
      url: row.url,
      source: row.source,
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
      publishTimeTs: num(row.publish_time_ts),
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
      const list = signalsOf(typeof r.signals === "string" ? JSON.parse(r.signals) : r.signals);
      if (list.length > 0) out.set(r.ciphertext, list);
    }
  }
  return out;
}

/** The words a feed matches on, as `JobText` and the scorer read them. */
export type MatchFields = Pick<NormalizedJob, "title" | "description" | "skills">;

/**
 * The match fields of those of these archived jobs whose text holds, in any case, every word of at least one of
 * the lists (all of them when `lists` is null), in reads of 500. The stored match_fields column is a few KB where the
 * document is often ten times that, and needs no normalizing; a job archived before the column existed is read from
 * its document. SQLite's LIKE folds ASCII case only, so callers give only ASCII lower-case words.
 */
export async function textsContaining(db: Db, ciphertexts: readonly string[], lists: readonly (readonly string[])[] | null): Promise<Map<string, MatchFields>> {
  const like = isPg(db) ? "ILIKE" : "LIKE";
  const words = lists?.flat() ?? [];
  const searched = "COALESCE(match_fields, document)";
  const text = lists ? ` AND (${lists.map((l) => `(${l.map(() => `${searched} ${like} ? ESCAPE '\\'`).join(" AND ")})`).join(" OR ")})` : "";
  const out = new Map<string, MatchFields>();
  const parse = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
  for (let at = 0; at < ciphertexts.length; at += 500) {
    const chunk = ciphertexts.slice(at, at + 500);
    const rows = await rawMany<{ ciphertext: string; match_fields: unknown; document: unknown }>(
      db,
      `jobs.textsContaining:${chunk.length}:${lists?.map((l) => l.length).join(".") ?? "all"}`,
      `SELECT ciphertext, match_fields, CASE WHEN match_fields IS NULL THEN document END AS document FROM jobs WHERE ciphertext IN (${chunk.map(() => "?").join(", ")})${text}`,
      [...chunk, ...words.map(likeOf)],
    );
    for (const r of rows) {
      if (r.match_fields !== null && r.match_fields !== undefined) {
        out.set(r.ciphertext, parse(r.match_fields) as MatchFields);
        continue;
      }
      // An older row: its document, normalized; one that no longer normalizes holds no keyword.
      const n = normalizeJob(parse(r.document) as Record<string, unknown>);
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
