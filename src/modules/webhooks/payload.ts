/**
 * Webhook payloads: turns a feed match (or a "webhook URL saved" test) into the
 * JSON body POSTed to the feed's webhook URL. Pure: no database, no clock, no
 * network, so the delivery code can build a body from the outbox row it reads
 * and tests can check every field. The shape is WebhookPayloadSchema
 * (model.ts), which also documents it on the OpenAPI page.
 */
import { countryName } from "../../lib/countries";
import { generateJob } from "../../sources/sandbox/generator";
import { normalizeJob, type NormalizedJob } from "../jobs/normalize";
import { WEBHOOK_DESCRIPTION_MAX_CHARS, type WebhookPayload } from "./model";

export type { WebhookPayload } from "./model";
export { WebhookPayloadSchema } from "./model";

export const JOB_MATCHED = "job.matched";
export const WEBHOOK_TEST = "webhook.test";

export interface MatchedEventInput {
  /** "evt_…", also the webhook-id header. */
  eventId: string;
  /** Unix ms when the event was written. */
  createdAtTs: number;
  feed: { id: string; title: string };
  match: { processedJobId: string; matchingScore: number; scoreReason: string | null; matchedAtTs: number };
  job: NormalizedJob;
  /** Where the job came from ("sandbox", "push", "remoteok", …). */
  source: string;
}

const TRUNCATION_MARK = " …";
/**
 * Upper bound on the description's share of the body in UTF-8 bytes once JSON
 * encoded. 50,000 characters are about 50 KB of plain text, but text full of
 * quotes, control characters or non-Latin script can grow three- to six-fold
 * when encoded; this cap keeps the whole body well under 200 KB regardless.
 */
const DESCRIPTION_MAX_JSON_BYTES = 120_000;
// Normalisation bounds title, URL and e-mails but not these lists; a pathological
// document must not turn one POST into megabytes.
const MAX_SKILLS = 100;
const MAX_SKILL_CHARS = 200;
const MAX_QUESTIONS = 50;
const MAX_QUESTION_CHARS = 5_000;

export const TEST_MATCHING_SCORE = 5;
export const TEST_SCORE_REASON = "Test event sent when the webhook URL was saved";

/** The payload for a job that entered a feed. */
export function buildJobMatchedPayload(input: MatchedEventInput): WebhookPayload {
  const { match } = input;
  return buildPayload({
    type: JOB_MATCHED,
    eventId: input.eventId,
    createdAtTs: input.createdAtTs,
    feed: input.feed,
    processedJobId: match.processedJobId,
    matchingScore: match.matchingScore,
    scoreReason: match.scoreReason,
    matchedAtTs: match.matchedAtTs,
    job: input.job,
    source: input.source,
  });
}

/**
 * A realistic sample job (from the sandbox generator, seed fixed) sent when a
 * feed's webhook URL is saved, so receivers can be built against real-looking
 * data. Same input, same payload.
 */
export function buildTestPayload(input: { eventId: string; createdAtTs: number; feed: { id: string; title: string } }): WebhookPayload {
  const sample = sampleJob();
  // The sample was generated at a fixed clock; keep its age but move it next
  // to the event so a receiver's "how old is this job" logic sees a fresh job.
  const publishTimeTs = sample.job.publishTimeTs === null ? null : input.createdAtTs - sample.ageMs;
  return buildPayload({
    type: WEBHOOK_TEST,
    eventId: input.eventId,
    createdAtTs: input.createdAtTs,
    feed: input.feed,
    processedJobId: null,
    matchingScore: TEST_MATCHING_SCORE,
    scoreReason: TEST_SCORE_REASON,
    matchedAtTs: input.createdAtTs,
    job: { ...sample.job, publishTimeTs },
    source: "sandbox",
  });
}

interface PayloadParts {
  type: WebhookPayload["type"];
  eventId: string;
  createdAtTs: number;
  feed: { id: string; title: string };
  processedJobId: string | null;
  matchingScore: number;
  scoreReason: string | null;
  matchedAtTs: number;
  job: NormalizedJob;
  source: string;
}

function buildPayload(p: PayloadParts): WebhookPayload {
  const { job } = p;
  const country = job.clientCountry;
  return {
    type: p.type,
    id: p.eventId,
    createdAt: isoTime(p.createdAtTs),
    jobId: job.ciphertext,
    feedId: p.feed.id,
    // The spec's duplicate rule speaks of (jobId, jobListenerId); both names are sent for receivers written against either.
    jobListenerId: p.feed.id,
    feedTitle: p.feed.title,
    processedJobId: p.processedJobId,
    matchingScore: p.matchingScore,
    scoreReason: p.scoreReason,
    matchedAt: isoTime(p.matchedAtTs),
    platform: job.platform,
    source: p.source,
    ciphertext: job.ciphertext,
    url: job.url,
    title: job.title,
    description: fitDescription(job.description),
    skills: job.skills.slice(0, MAX_SKILLS).map((s) => cut(s, MAX_SKILL_CHARS)),
    jobType: job.jobType,
    budget: {
      hourlyMin: job.hourlyMin,
      hourlyMax: job.hourlyMax,
      fixedAmount: job.fixedBudget,
      currency: job.currency,
    },
    publishTime: job.publishTimeTs === null ? null : isoTime(job.publishTimeTs),
    // Positions are copied, never renumbered: apply matches answers by them.
    screeningQuestions: job.screeningQuestions.slice(0, MAX_QUESTIONS).map((q) => ({ position: q.position, question: cut(q.question, MAX_QUESTION_CHARS) })),
    contactEmails: job.contactEmails.slice(),
    companyId: job.companyId,
    client: {
      company: { companyId: job.companyId },
      country,
      countryName: country === null ? null : countryName(country),
      totalSpent: job.clientTotalSpent,
      paymentVerified: job.paymentVerified,
      rating: job.clientRating,
      reviews: job.clientReviews,
      hasStats: job.hasClientStats,
      // Filled by the client-score feature once it exists; the field is in the contract already.
      clientScore: null,
    },
  };
}

/** ISO 8601 in UTC; a timestamp outside Date's range would make toISOString throw, so it falls back to the epoch. */
function isoTime(ts: number): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

/** `text` at most `max` characters long, ending with " …" when shortened, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - TRUNCATION_MARK.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // high surrogate whose partner would be cut off
  return text.slice(0, end).trimEnd() + TRUNCATION_MARK;
}

const encoder = new TextEncoder();
const jsonBytes = (s: string) => encoder.encode(JSON.stringify(s)).length;

/** The description cut to WEBHOOK_DESCRIPTION_MAX_CHARS, then further if its JSON encoding is still too large. */
function fitDescription(description: string): string {
  let out = cut(description, WEBHOOK_DESCRIPTION_MAX_CHARS);
  // Only unusual text gets here; each round shrinks in proportion to the overshoot, so it ends in a few rounds.
  for (let bytes = jsonBytes(out); bytes > DESCRIPTION_MAX_JSON_BYTES; bytes = jsonBytes(out)) {
    const target = Math.floor(out.length * (DESCRIPTION_MAX_JSON_BYTES / bytes) * 0.95);
    out = cut(description, Math.max(TRUNCATION_MARK.length + 1, target));
  }
  return out;
}

// ---------- the test event's sample job ----------

const SAMPLE_SEED = 1;
/** The generator's clock for the sample; fixed so the sample never changes between runs or restarts. */
const SAMPLE_NOW_TS = Date.UTC(2026, 0, 15, 12);
const SAMPLE_SEARCH_LIMIT = 100;

let cachedSample: { job: NormalizedJob; ageMs: number } | undefined;

/**
 * The first sandbox job (seed fixed) that shows every part of the payload:
 * hourly range, client stats and company, and at least two screening
 * questions. Found by search rather than a hard-coded index so a change to the
 * generator's catalogue still yields a complete sample; computed once.
 */
function sampleJob(): { job: NormalizedJob; ageMs: number } {
  if (cachedSample) return cachedSample;
  let fallback: NormalizedJob | undefined;
  for (let index = 0; index < SAMPLE_SEARCH_LIMIT; index++) {
    const result = normalizeJob(generateJob({ seed: SAMPLE_SEED, index, nowTs: SAMPLE_NOW_TS }), { nowTs: SAMPLE_NOW_TS });
    if (!result.ok) continue;
    fallback ??= result.job;
    if (isComplete(result.job)) {
      fallback = result.job;
      break;
    }
  }
  if (!fallback) throw new Error("the sandbox generator produced no valid sample job"); // a generator bug, caught by the tests
  const ageMs = fallback.publishTimeTs === null ? 0 : SAMPLE_NOW_TS - fallback.publishTimeTs;
  cachedSample = { job: fallback, ageMs };
  return cachedSample;
}

function isComplete(job: NormalizedJob): boolean {
  return (
    job.jobType === "HOURLY" &&
    job.hourlyMin !== null &&
    job.hourlyMax !== null &&
    job.currency !== null &&
    job.screeningQuestions.length >= 2 &&
    job.skills.length >= 3 &&
    job.companyId !== null &&
    job.clientCountry !== null &&
    job.paymentVerified === true &&
    job.clientTotalSpent !== null &&
    job.clientRating !== null &&
    (job.clientReviews ?? 0) >= 5 &&
    job.publishTimeTs !== null
  );
}
