/**
 * Webhook payloads: turns a feed match (or a "webhook URL saved" test) into the
 * JSON body POSTed to the feed's webhook URL. Pure: no database, no clock, no
 * network, so the delivery code can build a body from the outbox row it reads
 * and tests can check every field. The shape is WebhookPayloadSchema
 * (outbox-payload.ts), which also documents it on the OpenAPI page.
 */
import { countryName } from "../../lib/countries";
import { JOB_MATCHED_EVENT, type OutcomeEventType, WEBHOOK_TEST_EVENT } from "./admit";
import type { JobDocument } from "../../sources/document";
import type { NormalizedJob } from "../jobs/normalize";
import { type OutcomePayload, WEBHOOK_DESCRIPTION_MAX_CHARS, type WebhookPayload } from "./outbox-payload";
import sampleJobDocument from "./outbox-sample-job.json" with { type: "json" };

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

const TEST_MATCHING_SCORE = 5;
const TEST_SCORE_REASON = "Test event: sent when the webhook URL is saved, or on request";

/** The payload for a job that entered a feed. */
export function buildJobMatchedPayload(input: MatchedEventInput): WebhookPayload {
  const { match } = input;
  return buildPayload({
    type: JOB_MATCHED_EVENT,
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
 * The job every `webhook.test` carries: a fixed, realistic marketplace document
 * (hourly range, client stats and company, screening questions) with a
 * ciphertext and company id no marketplace issues. The deliverer archives it
 * before sending, so receivers can look it up like any matched job.
 */
export const SAMPLE_JOB_DOCUMENT = sampleJobDocument as unknown as JobDocument;
/** The archive's `source` of the sample job. */
export const SAMPLE_JOB_SOURCE = "sample";

/** The test event's payload around the archived sample job. Same input, same payload. */
export function buildTestPayload(input: {
  eventId: string;
  createdAtTs: number;
  feed: { id: string; title: string };
  job: NormalizedJob;
  source: string;
}): WebhookPayload {
  const { job } = input;
  // The sample is a fixed document; keep its age (from when it was explored) but move it next
  // to the event so a receiver's "how old is this job" logic sees a fresh job.
  const publishTimeTs = job.publishTimeTs === null ? null : input.createdAtTs - ((job.exploredAt ?? job.publishTimeTs) - job.publishTimeTs);
  return buildPayload({
    type: WEBHOOK_TEST_EVENT,
    eventId: input.eventId,
    createdAtTs: input.createdAtTs,
    feed: input.feed,
    processedJobId: null,
    matchingScore: TEST_MATCHING_SCORE,
    scoreReason: TEST_SCORE_REASON,
    matchedAtTs: input.createdAtTs,
    job: { ...job, publishTimeTs },
    source: input.source,
  });
}

/** What an outcome event's payload is made of: the event row, its feed, and the application as it is when sent. */
export interface OutcomeEventInput {
  eventId: string;
  type: OutcomeEventType;
  createdAtTs: number;
  feed: { id: string; title: string };
  processedJobId: string | null;
  job: { ciphertext: string; title: string; url: string };
  application: {
    queueId: string;
    freelancerId: string;
    profileId: string;
    sentAtTs: number;
    /** When it reached the event's stage. */
    stageAtTs: number;
    outcome: OutcomePayload["application"]["outcome"];
    valueUsd: number | null;
    connectsCostUsd: number | null;
  };
}

/** The payload of proposal.viewed / replied / hired: the envelope of job.matched (ids, type, feed, time) and the application. */
export function buildOutcomePayload(input: OutcomeEventInput): OutcomePayload {
  const { application: app, job } = input;
  return {
    type: input.type,
    id: input.eventId,
    createdAt: isoTime(input.createdAtTs),
    jobId: job.ciphertext,
    feedId: input.feed.id,
    feedTitle: input.feed.title,
    processedJobId: input.processedJobId,
    application: {
      queueId: app.queueId,
      jobId: job.ciphertext,
      jobTitle: job.title,
      jobUrl: job.url,
      freelancerId: app.freelancerId,
      profileId: app.profileId,
      sentAt: isoTime(app.sentAtTs),
      stage: input.type === "proposal.viewed" ? "viewed" : input.type === "proposal.replied" ? "replied" : "hired",
      stageAt: isoTime(app.stageAtTs),
      outcome: app.outcome,
      // The value belongs to the hire: the other events carry none, so a receiver never books it twice.
      valueUsd: input.type === "proposal.hired" ? app.valueUsd : null,
      connectsCostUsd: app.connectsCostUsd,
    },
  };
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
