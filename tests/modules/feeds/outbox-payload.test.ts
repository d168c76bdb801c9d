import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { JOB_MATCHED_EVENT, WEBHOOK_TEST_EVENT } from "../../../src/modules/feeds/admit";
import { normalizeJob, type NormalizedJob } from "../../../src/modules/jobs/normalize";
import { WebhookPayloadSchema, type WebhookPayload } from "../../../src/modules/feeds/outbox-payload";
import {
  buildJobMatchedPayload,
  buildTestPayload,
  SAMPLE_JOB_DOCUMENT,
  SAMPLE_JOB_SOURCE,
  type MatchedEventInput,
} from "../../../src/modules/feeds/outbox-payload-build";
import { generateJob } from "../../../src/sources/sandbox/generator";

const NOW = Date.UTC(2026, 2, 1, 9, 30);
const FEED = { id: "0b9d8c1e-4f2a-4c55-9a1e-2f6f3d1b7a10", title: "Rust backend work" };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const TOP_LEVEL_KEYS = [
  "type",
  "id",
  "createdAt",
  "jobId",
  "feedId",
  "jobListenerId",
  "feedTitle",
  "processedJobId",
  "matchingScore",
  "scoreReason",
  "matchedAt",
  "platform",
  "source",
  "ciphertext",
  "url",
  "title",
  "description",
  "skills",
  "jobType",
  "budget",
  "publishTime",
  "screeningQuestions",
  "contactEmails",
  "companyId",
  "client",
].sort();
const CLIENT_KEYS = ["company", "country", "countryName", "totalSpent", "paymentVerified", "rating", "reviews", "hasStats", "clientScore"].sort();

function normalized(doc: unknown): NormalizedJob {
  const result = normalizeJob(doc, { nowTs: NOW });
  if (!result.ok) throw new Error(result.error);
  return result.job;
}

function matched(job: NormalizedJob, over: Partial<MatchedEventInput> = {}): WebhookPayload {
  return buildJobMatchedPayload({
    eventId: "evt_01HQ7Z",
    createdAtTs: NOW + 1_000,
    feed: FEED,
    match: { processedJobId: "5d3c2b1a-0000-4000-8000-000000000001", matchingScore: 8.5, scoreReason: "Strong Rust fit", matchedAtTs: NOW },
    job,
    source: "sandbox",
    ...over,
  });
}

/** The invariants every payload must hold, whatever the job. */
function expectValid(payload: WebhookPayload): void {
  if (!Value.Check(WebhookPayloadSchema, payload)) {
    throw new Error(
      `payload does not match the schema: ${JSON.stringify([...Value.Errors(WebhookPayloadSchema, payload)].slice(0, 5).map((e) => [e.path, e.message]))}`,
    );
  }
  // Exactly the documented fields, all present (undefined would vanish from the JSON).
  expect(Object.keys(payload).sort()).toEqual(TOP_LEVEL_KEYS);
  expect(Object.keys(payload.client).sort()).toEqual(CLIENT_KEYS);
  expect(Object.keys(payload.budget).sort()).toEqual(["currency", "fixedAmount", "hourlyMax", "hourlyMin"]);
  expect(JSON.stringify(payload)).not.toContain("undefined");
  expect(payload.jobId).toBe(payload.ciphertext);
  expect(payload.companyId).toBe(payload.client.company.companyId);
  expect(payload.feedId).toBe(payload.jobListenerId);
  expect(payload.createdAt).toMatch(ISO);
  expect(payload.matchedAt).toMatch(ISO);
  if (payload.publishTime !== null) expect(payload.publishTime).toMatch(ISO);
  expect(payload.client.clientScore).toBeNull();
  // Round-trips through JSON unchanged: no Dates, no functions, no shared oddities.
  expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
}

const webJob = {
  platform: "web",
  id: "remoteok-190233",
  source: "remoteok",
  title: "Senior TypeScript Engineer (Remote)",
  description: "We are hiring a senior TypeScript engineer to work on our billing platform.\n\nApply by writing to jobs@acme.io.",
  url: "https://remoteok.com/remote-jobs/190233",
  ontologySkills: [
    { uid: "1", prefLabel: "TypeScript" },
    { uid: "2", prefLabel: "PostgreSQL" },
  ],
  jobTile: { job: { publishTime: "2026-02-28T18:00:00.000Z" } },
  client: { country: "Germany", name: "Acme GmbH" },
};

describe("job.matched payload", () => {
  test("carries every field, typed, for sandbox documents", () => {
    for (let index = 0; index < 60; index++) {
      const doc = generateJob({ seed: 7, index, nowTs: NOW });
      const job = normalized(doc);
      const payload = matched(job);
      expectValid(payload);
      expect(payload.type).toBe(JOB_MATCHED_EVENT);
      expect(payload.platform).toBe("marketplace");
      expect(payload.ciphertext).toBe(doc.jobTile!.job!.ciphertext!);
      expect(payload.title).toBe(doc.title);
      expect(payload.skills).toEqual(doc.ontologySkills!.map((s) => s.prefLabel));
      expect(payload.budget).toEqual({ hourlyMin: job.hourlyMin, hourlyMax: job.hourlyMax, fixedAmount: job.fixedBudget, currency: job.currency });
      expect(payload.publishTime).toBe(doc.jobTile!.job!.publishTime!);
      // Positions are the document's own, 0-based, usable in apply's questionAnswers.
      expect(payload.screeningQuestions).toEqual(doc.screeningQuestions ?? []);
      expect(payload.screeningQuestions.map((q) => q.position)).toEqual(payload.screeningQuestions.map((_, i) => i));
      const companyId = (doc.jobDetailsResponse?.data?.jobPubDetails?.buyer as { company: { companyId: string } } | undefined)?.company.companyId ?? null;
      expect(payload.companyId).toBe(companyId);
    }
  });

  test("maps a hand-written marketplace document exactly", () => {
    const doc = {
      id: "1890000000000000042",
      title: "Rust developer for a parser",
      description: "Speed up our log parser. Questions to ops@example.com.",
      ontologySkills: [
        { uid: "1", prefLabel: "Rust" },
        { uid: "2", prefLabel: "Parsing" },
      ],
      jobTile: {
        job: {
          ciphertext: "~021890000000000000042",
          jobType: "HOURLY",
          publishTime: "2026-03-01T09:00:00.000Z",
          hourlyBudgetMin: "40.0",
          hourlyBudgetMax: "70.0",
        },
      },
      upworkHistoryData: {
        client: { country: "United Kingdom", totalSpent: { amount: "12500.5" }, paymentVerificationStatus: "VERIFIED", totalFeedback: 4.9, totalReviews: 12 },
      },
      jobDetailsResponse: { data: { jobPubDetails: { buyer: { company: { companyId: "1500000000000000009" } } } } },
      screeningQuestions: [
        { position: 0, question: "Your Rust experience?" },
        { position: 1, question: "Earliest start date?" },
      ],
    };
    const payload = matched(normalized(doc));
    expectValid(payload);
    expect(payload).toEqual({
      type: "job.matched",
      id: "evt_01HQ7Z",
      createdAt: "2026-03-01T09:30:01.000Z",
      jobId: "~021890000000000000042",
      feedId: FEED.id,
      jobListenerId: FEED.id,
      feedTitle: "Rust backend work",
      processedJobId: "5d3c2b1a-0000-4000-8000-000000000001",
      matchingScore: 8.5,
      scoreReason: "Strong Rust fit",
      matchedAt: "2026-03-01T09:30:00.000Z",
      platform: "marketplace",
      source: "sandbox",
      ciphertext: "~021890000000000000042",
      url: "https://www.upwork.com/jobs/~021890000000000000042",
      title: "Rust developer for a parser",
      description: "Speed up our log parser. Questions to ops@example.com.",
      skills: ["Rust", "Parsing"],
      jobType: "HOURLY",
      budget: { hourlyMin: 40, hourlyMax: 70, fixedAmount: null, currency: null },
      publishTime: "2026-03-01T09:00:00.000Z",
      screeningQuestions: [
        { position: 0, question: "Your Rust experience?" },
        { position: 1, question: "Earliest start date?" },
      ],
      contactEmails: ["ops@example.com"],
      companyId: "1500000000000000009",
      client: {
        company: { companyId: "1500000000000000009" },
        country: "GB",
        countryName: "United Kingdom",
        totalSpent: 12500.5,
        paymentVerified: true,
        rating: 4.9,
        reviews: 12,
        hasStats: true,
        clientScore: null,
      },
    });
  });

  test("a web job has the same envelope with nulls where the source has nothing", () => {
    const job = normalized(webJob);
    const payload = matched(job, { source: "remoteok" });
    expectValid(payload);
    expect(payload.platform).toBe("web");
    expect(payload.source).toBe("remoteok");
    expect(payload.jobId).toMatch(/^~w[0-9a-f]{20}$/);
    expect(payload.url).toBe(webJob.url);
    expect(payload.skills).toEqual(["TypeScript", "PostgreSQL"]);
    expect(payload.jobType).toBeNull();
    expect(payload.budget).toEqual({ hourlyMin: null, hourlyMax: null, fixedAmount: null, currency: null });
    expect(payload.publishTime).toBe("2026-02-28T18:00:00.000Z");
    expect(payload.screeningQuestions).toEqual([]);
    expect(payload.contactEmails).toEqual(["jobs@acme.io"]);
    expect(payload.companyId).toBeNull();
    expect(payload.client).toEqual({
      company: { companyId: null },
      country: "DE",
      countryName: "Germany",
      totalSpent: null,
      paymentVerified: null,
      rating: null,
      reviews: null,
      hasStats: false,
      clientScore: null,
    });
  });

  test("a professional-network job without country or publish time still validates", () => {
    const job = normalized({ platform: "professional_network", id: "pn-1", title: "Fractional CTO", description: "Part-time CTO for a seed-stage startup." });
    const payload = matched(job, { source: "push", match: { processedJobId: "p1", matchingScore: 0, scoreReason: null, matchedAtTs: NOW } });
    expectValid(payload);
    expect(payload.url).toBe("");
    expect(payload.publishTime).toBeNull();
    expect(payload.scoreReason).toBeNull();
    expect(payload.client.country).toBeNull();
    expect(payload.client.countryName).toBeNull();
  });

  test("keeps positions that are not a 0..n-1 sequence exactly as the document has them", () => {
    const job = normalized({
      ...generateJob({ seed: 3, index: 1, nowTs: NOW }),
      screeningQuestions: [
        { position: 0, question: "Your rate?" },
        { position: 2, question: "Your timezone?" },
      ],
    });
    expect(matched(job).screeningQuestions).toEqual([
      { position: 0, question: "Your rate?" },
      { position: 2, question: "Your timezone?" },
    ]);
  });

  test("does not share arrays with the normalized job", () => {
    const job = normalized(webJob);
    const payload = matched(job);
    payload.skills.push("mutated");
    payload.contactEmails.push("x@y.io");
    expect(job.skills).toEqual(["TypeScript", "PostgreSQL"]);
    expect(job.contactEmails).toEqual(["jobs@acme.io"]);
  });
});

describe("payload size", () => {
  const bytes = (p: WebhookPayload) => new TextEncoder().encode(JSON.stringify(p)).length;

  test("a 100 KB description is cut at 50,000 characters with ' …' and the body stays under 200 KB", () => {
    const paragraph = "We need an experienced engineer to rebuild our data pipeline. ";
    const description = paragraph.repeat(Math.ceil(100_000 / paragraph.length)).slice(0, 100_000);
    const job = normalized({ ...generateJob({ seed: 1, index: 7, nowTs: NOW }), description });
    expect(job.description.length).toBeGreaterThan(99_000);
    const payload = matched(job);
    expectValid(payload);
    expect(payload.description.length).toBeLessThanOrEqual(50_000);
    expect(payload.description.length).toBeGreaterThan(49_900);
    expect(payload.description.endsWith(" …")).toBe(true);
    expect(description.startsWith(payload.description.slice(0, -2))).toBe(true);
    expect(bytes(payload)).toBeLessThan(200_000);
  });

  test("short descriptions are sent unchanged", () => {
    const job = normalized(webJob);
    expect(matched(job).description).toBe(job.description);
  });

  test("text that grows when JSON-encoded still fits", () => {
    for (const unit of ["\u0001", '"', "日本語", "😀"]) {
      const description = `Start ${unit.repeat(Math.ceil(100_000 / unit.length)).slice(0, 99_000)}`;
      const payload = matched({ ...normalized(webJob), description });
      expectValid(payload);
      expect(payload.description.endsWith(" …")).toBe(true);
      expect(bytes(payload)).toBeLessThan(200_000);
      // Never a lone surrogate half at the cut.
      expect(payload.description).toBe(Buffer.from(payload.description, "utf8").toString("utf8"));
    }
  });

  test("many or long screening questions and skills stay bounded", () => {
    const job: NormalizedJob = {
      ...normalized(webJob),
      skills: Array.from({ length: 5_000 }, (_, i) => `skill ${i} ${"x".repeat(300)}`),
      screeningQuestions: Array.from({ length: 500 }, (_, i) => ({ position: i, question: "Why? ".repeat(2_000) })),
    };
    const payload = matched(job);
    expectValid(payload);
    expect(bytes(payload)).toBeLessThan(600_000);
    expect(payload.screeningQuestions.slice(0, 3).map((q) => q.position)).toEqual([0, 1, 2]);
  });
});

describe("webhook.test payload", () => {
  const input = { eventId: "evt_test1", createdAtTs: NOW, feed: FEED, job: normalized(SAMPLE_JOB_DOCUMENT), source: SAMPLE_JOB_SOURCE };

  test("is a realistic sample job with the test score and no processed job", () => {
    const payload = buildTestPayload(input);
    expectValid(payload);
    expect(payload.type).toBe(WEBHOOK_TEST_EVENT);
    expect(payload.id).toBe("evt_test1");
    expect(payload.createdAt).toBe("2026-03-01T09:30:00.000Z");
    expect(payload.matchedAt).toBe(payload.createdAt);
    expect(payload.feedId).toBe(FEED.id);
    expect(payload.feedTitle).toBe(FEED.title);
    expect(payload.processedJobId).toBeNull();
    expect(payload.matchingScore).toBe(5);
    expect(payload.scoreReason).toBe("Test event: sent when the webhook URL is saved, or on request");
    expect(payload.source).toBe("sample");
    expect(payload.platform).toBe("marketplace");
    // A ciphertext and a company id no marketplace issues (real ids do not start with zeros).
    expect(payload.jobId).toBe("~020000000000000000001");
    expect(payload.companyId).toBe("0000000000000000002");
    expect(payload.url).toBe("https://marketplace.example/jobs/~020000000000000000001");
    expect(payload.title.length).toBeGreaterThan(10);
    expect(payload.description.length).toBeGreaterThan(200);
    expect(payload.skills.length).toBeGreaterThanOrEqual(3);
    // The sample is chosen to show every part of the payload filled in.
    expect(payload.jobType).toBe("HOURLY");
    expect(payload.budget.hourlyMin).toBeGreaterThan(0);
    expect(payload.budget.hourlyMax).toBeGreaterThanOrEqual(payload.budget.hourlyMin!);
    expect(payload.budget.currency).toBe("USD");
    expect(payload.screeningQuestions.length).toBeGreaterThanOrEqual(2);
    expect(payload.screeningQuestions.map((q) => q.position)).toEqual(payload.screeningQuestions.map((_, i) => i));
    expect(payload.companyId).not.toBeNull();
    expect(payload.client.country).toMatch(/^[A-Z]{2}$/);
    expect(payload.client.countryName).not.toBeNull();
    expect(payload.client.paymentVerified).toBe(true);
    expect(payload.client.hasStats).toBe(true);
    expect(payload.client.reviews).toBeGreaterThanOrEqual(5);
  });

  test("the job was published shortly before the event", () => {
    const payload = buildTestPayload(input);
    const age = NOW - Date.parse(payload.publishTime!);
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(30 * 60_000);
  });

  test("is deterministic: same input, same payload; only the event fields follow the input", () => {
    const a = buildTestPayload(input);
    expect(buildTestPayload(input)).toEqual(a);
    const b = buildTestPayload({ ...input, eventId: "evt_other", createdAtTs: NOW + 3_600_000, feed: { id: "f2", title: "Other" } });
    expect(b.ciphertext).toBe(a.ciphertext);
    expect(b.title).toBe(a.title);
    expect(b.description).toBe(a.description);
    expect(b.screeningQuestions).toEqual(a.screeningQuestions);
    expect(Date.parse(b.publishTime!) - Date.parse(a.publishTime!)).toBe(3_600_000);
    expect(b.feedId).toBe("f2");
    expect(b.jobListenerId).toBe("f2");
  });
});
