/**
 * Captured pages: a job posting the user is viewing in their own browser,
 * posted by the bookmarklet (or any client) and archived like any other job.
 * Nothing here fetches the page: for the professional network we only ever
 * see what the user chose to send (docs/reference/marketplace-data.md §4).
 */
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { normalizeCountry } from "../../lib/countries";
import { sha256Hex } from "../../lib/hash";
import { htmlToText, tidy } from "../../lib/html";
import { iso } from "../../lib/time";
import type { AuthContext } from "../accounts/service";
import { matchesOfJob } from "../feeds/repo";
import type { JobDocument } from "../../sources/document";
import { ingestDocuments } from "../intake/ingest";
import { normalizeJob } from "../jobs/normalize";
import { findArchived } from "../jobs/archive";
import { recordCompanionCapture, recordCompanionWatch } from "../intake/companion";
import { MAX_DESCRIPTION_TEXT, type CaptureBody, type CaptureJobsBody, type CaptureJobsResult, type CaptureResult, type CaptureStatusBody } from "./model";

// The HTML converter is shared with the job-board adapters (src/lib/html.ts); re-exported because the capture tests check it here.
export { htmlToText } from "../../lib/html";

const CAPTURE_SOURCE = "capture";

function invalid(field: string, problem: string): AppError {
  return new AppError("bad_request", `Invalid body: ${field} ${problem}`, { details: [`${field} ${problem}`] });
}

// ---------------------------------------------------------------------------
// URL → job id

/** Query parameters that only say how the user got to the page; they must not make one job look like two. */
const TRACKING_PARAMS = new Set([
  "fbclid",
  "gclid",
  "dclid",
  "gbraid",
  "wbraid",
  "msclkid",
  "yclid",
  "igshid",
  "mc_cid",
  "mc_eid",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  "ref",
  "ref_src",
  "refid",
  "trackingid",
  "trk",
  "trkinfo",
  "lipi",
  "licu",
  "originalsubdomain",
  "ebp",
  "recommendedflavor",
  "gh_src",
  "lever-source",
  "lever-origin",
]);

function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_PARAMS.has(lower);
}

/** The URL without fragment and tracking parameters, the rest sorted, and no trailing slash: one string per page. */
function normalizeUrl(url: URL): string {
  const clean = new URL(url.href);
  clean.hash = "";
  const kept = [...clean.searchParams].filter(([name]) => !isTracking(name)).sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  clean.search = new URLSearchParams(kept).toString();
  if (clean.pathname.length > 1 && clean.pathname.endsWith("/")) clean.pathname = clean.pathname.replace(/\/+$/, "");
  return clean.href;
}

// "/jobs/view/123", "/jobs/view/senior-engineer-at-acme-123/": the id is the trailing digits of the segment.
const JOB_VIEW_PATH = /\/jobs\/view\/(?:[^/]*-)?(\d{1,20})(?:\/|$)/;
const DIGITS = /^\d{1,20}$/;

/**
 * The document id and the URL to store. A professional-network job id from the
 * path or `currentJobId` makes every view of the job (search page, job page,
 * localized host) one job; anything else is keyed by a hash of the normalized URL.
 */
export function captureIdentity(platform: "professional_network" | "web", url: URL): { id: string; url: string } {
  if (platform === "professional_network") {
    const fromPath = JOB_VIEW_PATH.exec(url.pathname)?.[1];
    const fromQuery = url.searchParams.get("currentJobId")?.trim();
    const jobId = fromPath ?? (fromQuery && DIGITS.test(fromQuery) ? fromQuery : undefined);
    if (jobId !== undefined) return { id: jobId, url: `${url.origin}/jobs/view/${jobId}/` };
  }
  const normalized = normalizeUrl(url);
  return { id: sha256Hex(normalized).slice(0, 24), url: normalized };
}

// ---------------------------------------------------------------------------
// Location → country

// Two-letter parts of a location are usually US states or provinces ("Austin, TX", "Toronto, ON"), not countries.
const TWO_LETTER_COUNTRIES: Record<string, string> = { UK: "GB", US: "US" };
const LOCATION_SEPARATORS = /[,;()[\]|·•/]| - /;
const WORK_MODES = /\b(?:remote|hybrid|on-?site|in-?office)\b/gi;

/** ISO-2 code of the country a free-text location names ("Berlin, Germany (Remote)" → DE), or undefined. */
export function countryOfLocation(location: string | undefined): string | undefined {
  if (!location) return undefined;
  const parts = location
    .split(LOCATION_SEPARATORS)
    .map((p) => p.replace(WORK_MODES, "").trim())
    .filter(Boolean);
  // The country is normally last; "Atlanta, Georgia" names a state, so Georgia counts only on its own.
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part.length <= 2) {
      const code = TWO_LETTER_COUNTRIES[part.toUpperCase()];
      if (code) return code;
      continue;
    }
    if (part.toLowerCase() === "georgia" && parts.length > 1) continue;
    const code = normalizeCountry(part);
    if (code) return code;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// The capture

const EMAIL = /^[^\s@<>()[\]",;:]+@[^\s@<>()[\]",;:]+\.[a-zA-Z]{2,24}$/;
type CaptureDeps = Pick<Deps, "db" | "clock" | "feedIndex" | "config" | "wake" | "metrics">;

/** The archived document for a capture, or a 400 naming the first bad field. */
function captureDocument(body: CaptureBody, nowTs: number): JobDocument {
  let parsed: URL;
  try {
    parsed = new URL(body.url.trim());
  } catch {
    throw invalid("url", "must be an absolute http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("url", "must be an http or https URL");
  const title = body.title.replace(/\s+/g, " ").trim();
  if (title === "") throw invalid("title", "must not be blank");
  const contactEmail = body.contactEmail?.trim() || undefined;
  if (contactEmail !== undefined && !EMAIL.test(contactEmail)) throw invalid("contactEmail", "must be an e-mail address");

  const platform = body.platform ?? "professional_network";
  const { id, url } = captureIdentity(platform, parsed);
  // A page whose description could not be read still carries its title; normalizeJob needs some description.
  const fromHtml = body.descriptionHtml ? htmlToText(body.descriptionHtml) : "";
  const description = (fromHtml || tidy(body.description ?? "") || title).slice(0, MAX_DESCRIPTION_TEXT);
  const company = body.company?.replace(/\s+/g, " ").trim() || undefined;
  const location = body.location?.replace(/\s+/g, " ").trim() || undefined;
  const country = countryOfLocation(location);

  const doc: JobDocument = { platform, source: CAPTURE_SOURCE, id, title, description, url, jobTile: { job: { publishTime: iso(nowTs) } } };
  if (company !== undefined || country !== undefined) {
    doc.client = {};
    if (company !== undefined) doc.client.name = company;
    if (country !== undefined) doc.client.country = country;
  }
  if (location !== undefined) doc.location = location;
  if (contactEmail !== undefined) doc.contactEmail = contactEmail;
  return doc;
}

/**
 * Archives the page and runs it through every feed (ingestDocuments). `matched`
 * counts only the caller's feeds: other accounts' feeds see the job too, but
 * how many of them wanted it is theirs to know.
 */
export async function captureJob(deps: CaptureDeps, auth: AuthContext, body: CaptureBody): Promise<{ status: 200 | 201; result: CaptureResult }> {
  const doc = captureDocument(body, deps.clock.now());
  const normalized = normalizeJob(doc);
  if (!normalized.ok) throw new AppError("bad_request", `Invalid body: ${normalized.error}`, { details: [normalized.error] });
  const ingested = await ingestDocuments(deps, [doc], { source: CAPTURE_SOURCE });
  if (ingested.rejected > 0) {
    const error = ingested.errors[0]?.error ?? "the page could not be archived";
    throw new AppError("bad_request", `Invalid body: ${error}`, { details: [error] });
  }
  const ciphertext = normalized.job.ciphertext;
  const inserted = ingested.inserted > 0;
  // A job seen for the first time can only have the feed entries this ingest just wrote.
  const matched = inserted ? (await matchesOfJob(deps.db, auth.accountId, ciphertext)).length : 0;
  return { status: inserted ? 201 : 200, result: { captured: true, ciphertext, inserted, matched } };
}

// ---------------------------------------------------------------------------
// The browser companion's batches

const COMPANION_SOURCE = "companion";
const NEEDS_YOU: Record<"login" | "challenge", string> = {
  login: "the marketplace shows its login page in your browser; log in there and watching resumes",
  challenge: "the marketplace shows a bot check in your browser; answer it there and watching resumes",
};

/**
 * Marketplace jobs the companion read from a page the user's browser showed, archived through the same
 * normaliser and de-duplication by ciphertext as every source (ingestDocuments): a job seen before refreshes
 * its document and is not notified again. Only marketplace documents are taken here; each bad one is rejected
 * with its index and the rest go in. The batch counts as the account's companion source's latest capture.
 */
export async function captureMarketplaceJobs(deps: CaptureDeps, auth: AuthContext, body: CaptureJobsBody): Promise<CaptureJobsResult> {
  let page: URL;
  try {
    page = new URL(body.pageUrl);
  } catch {
    throw invalid("pageUrl", "must be an absolute http or https URL");
  }
  if (page.protocol !== "http:" && page.protocol !== "https:") throw invalid("pageUrl", "must be an http or https URL");
  const errors: { at: number; error: string }[] = [];
  const docs: unknown[] = [];
  const positions: number[] = [];
  const ciphertexts: string[] = [];
  body.jobs.forEach((doc, i) => {
    const platform = doc && typeof doc === "object" ? (doc as Record<string, unknown>).platform : undefined;
    if (platform !== undefined && platform !== "marketplace") {
      errors.push({ at: i, error: 'platform must be "marketplace" (other pages go to POST /api/v1/capture)' });
      return;
    }
    const normalized = normalizeJob(doc);
    if (!normalized.ok) {
      errors.push({ at: i, error: normalized.error });
      return;
    }
    docs.push(doc);
    positions.push(i);
    ciphertexts.push(normalized.job.ciphertext);
  });
  const known = docs.length > 0 ? await findArchived(deps.db, ciphertexts) : new Map<string, number>();
  const ingested = docs.length > 0 ? await ingestDocuments(deps, docs, { source: COMPANION_SOURCE, numbering: (i) => positions[i]! }) : null;
  for (const e of ingested?.errors ?? []) errors.push(e);
  // Entries in the caller's feeds for the jobs that were new before this batch (other accounts' feeds are theirs to know).
  let matched = 0;
  for (const c of new Set(ciphertexts.filter((c) => !known.has(c)))) matched += (await matchesOfJob(deps.db, auth.accountId, c)).length;
  const result: CaptureJobsResult = {
    received: body.jobs.length,
    inserted: ingested?.inserted ?? 0,
    updated: ingested?.updated ?? 0,
    rejected: errors.length,
    matched,
    errors: errors.sort((a, b) => a.at - b.at),
  };
  await recordCompanionCapture(deps.db, auth.accountId, deps.clock.now(), { seen: result.received, inserted: result.inserted });
  return result;
}

/** The companion's watch state, shown as its source status; a login or bot-check page is "needs you". */
export async function reportCompanionStatus(deps: Pick<Deps, "db" | "clock">, auth: AuthContext, body: CaptureStatusBody): Promise<{ recorded: true }> {
  const needsYou = body.needsYou ? NEEDS_YOU[body.needsYou] : null;
  await recordCompanionWatch(deps.db, auth.accountId, deps.clock.now(), { needsYou, watch: body.watch });
  return { recorded: true };
}
