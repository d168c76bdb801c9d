/**
 * Remotive (https://remotive.com/api/remote-jobs): `{"0-legal-notice",
 * "job-count", jobs: [...]}`. Terms: at most ~4 requests a day are asked for
 * (more than 2 a minute is blocked), jobs appear with a 24 h delay, link back
 * to the job and credit Remotive, and do not resubmit the jobs to Jooble,
 * Google Jobs or LinkedIn. So the interval is never below 6 hours, every
 * document keeps the job URL and ends with "Source: Remotive — <url>", and
 * nothing here publishes anywhere.
 */
import type { JobDocument } from "../document";
import type { JobSource, PollContext, PollResult } from "../source";
import { boardDocument, describeJob, inlineText, singleCountry } from "./html";
import { intervalOf, joinUrl, pollJson, uniqueDocuments } from "./http";

export const REMOTIVE_NAME = "remotive";
const BOARD = "Remotive";
const DEFAULT_BASE_URL = "https://remotive.com";
/** ~4 requests a day, as the API asks. */
export const REMOTIVE_MIN_INTERVAL_MS = 6 * 60 * 60_000;

type Raw = Record<string, unknown>;

const JOB_TYPES: Record<string, string> = {
  full_time: "Full-time",
  part_time: "Part-time",
  contract: "Contract",
  freelance: "Freelance",
  internship: "Internship",
  other: "Other",
};

export function createRemotiveSource(opts: { baseUrl?: string; category?: string; intervalMs?: number; userAgent?: string } = {}): JobSource {
  const category = opts.category?.trim() || undefined;
  const query = category ? `?category=${encodeURIComponent(category)}` : "";
  const url = joinUrl(opts.baseUrl ?? DEFAULT_BASE_URL, `/api/remote-jobs${query}`);
  return {
    name: REMOTIVE_NAME,
    intervalMs: intervalOf(opts.intervalMs, REMOTIVE_MIN_INTERVAL_MS, REMOTIVE_MIN_INTERVAL_MS),
    async poll(ctx: PollContext): Promise<PollResult> {
      const got = await pollJson(ctx, REMOTIVE_NAME, url, opts.userAgent);
      if ("result" in got) return got.result;
      const body = got.body;
      const jobs = typeof body === "object" && body !== null ? (body as Raw).jobs : undefined;
      if (!Array.isArray(jobs)) throw new Error(`${REMOTIVE_NAME}: expected {jobs: [...]} from ${url}`);
      // The server-side filter has been seen ignored; check the category here too.
      const wanted = category ? jobs.filter((raw) => inCategory(raw, category)) : jobs;
      const otherCategory = jobs.length - wanted.length;
      const docs = uniqueDocuments(wanted, toDocument);
      ctx.log.debug("remotive polled", { items: jobs.length, docs: docs.length, otherCategory });
      return { docs, state: got.state };
    },
  };
}

/** One element of `jobs` → a web job document; null without an id or title (or for anything that is not a job object). */
export function toDocument(raw: unknown): JobDocument | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const r = raw as Raw;
  const rawId = typeof r.id === "number" && Number.isSafeInteger(r.id) ? String(r.id) : typeof r.id === "string" ? r.id.trim() : "";
  const title = inlineText(r.title);
  if (rawId === "" || title === "") return null;

  const url = typeof r.url === "string" && /^https?:\/\//i.test(r.url.trim()) ? r.url.trim() : `https://remotive.com/remote-jobs/${encodeURIComponent(rawId)}`;
  const company = inlineText(r.company_name);
  const location = inlineText(r.candidate_required_location);
  const salary = inlineText(r.salary);
  const jobType = typeof r.job_type === "string" ? (JOB_TYPES[r.job_type] ?? inlineText(r.job_type)) : "";
  const published = typeof r.publication_date === "string" ? Date.parse(withZone(r.publication_date)) : NaN;
  return boardDocument({
    source: REMOTIVE_NAME,
    key: rawId,
    url,
    title,
    description: describeJob({
      html: typeof r.description === "string" ? r.description : "",
      details: [company && `Company: ${company}`, location && `Location: ${location}`, jobType && `Type: ${jobType}`, salary && `Salary: ${salary}`],
      boardName: BOARD,
      url,
    }),
    tags: r.tags,
    publishTime: Number.isFinite(published) ? new Date(published).toISOString() : null,
    company,
    country: singleCountry(location),
    location,
  });
}

/** Remotive writes "2026-03-09T10:00:00" without a zone; the site runs on UTC. */
function withZone(date: string): string {
  return /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(date.trim()) ? `${date.trim()}Z` : date;
}

/**
 * Whether a job's category (a display name such as "Software Development")
 * matches a category slug ("software-dev"): every word of the slug starts a
 * word of the name, or the slug is the name's initials ("hr" → "Human
 * Resources"). A job without a category is kept.
 */
export function inCategory(raw: unknown, slug: string): boolean {
  const name = typeof raw === "object" && raw !== null ? (raw as Raw).category : undefined;
  if (typeof name !== "string" || name.trim() === "") return true;
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const wanted = slug
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (wanted.length === 0) return true;
  if (wanted.every((w) => words.some((n) => n.startsWith(w)))) return true;
  return wanted.length === 1 && words.map((w) => w[0]).join("") === wanted[0];
}
