/** Payloads for the channel tests: the sample job as a real match (full), and the same job with everything optional missing (sparse). */
import { clientScore } from "../../../src/modules/jobs/client-score";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import type { WebhookPayload } from "../../../src/modules/feeds/outbox-payload";
import { buildJobMatchedPayload, SAMPLE_JOB_DOCUMENT } from "../../../src/modules/feeds/outbox-payload-build";

/** 26 minutes after the sample job was published. */
export const NOW = Date.UTC(2026, 0, 15, 12, 10);
export const DASHBOARD_JOB_URL = "https://jobpilot.example/dashboard/jobs/5d3c2b1a-0000-4000-8000-000000000001";
export const DASHBOARD_URL = "https://jobpilot.example/dashboard";

export function fullPayload(): WebhookPayload {
  const normalized = normalizeJob(SAMPLE_JOB_DOCUMENT, { nowTs: NOW });
  if (!normalized.ok) throw new Error(normalized.error);
  const payload = buildJobMatchedPayload({
    eventId: "evt_01HQ7Z",
    createdAtTs: NOW,
    feed: { id: "0b9d8c1e-4f2a-4c55-9a1e-2f6f3d1b7a10", title: "Design work" },
    match: {
      processedJobId: "5d3c2b1a-0000-4000-8000-000000000001",
      matchingScore: 8.5,
      scoreReason: "Strong fit: Figma prototypes and a SaaS dashboard audit",
      matchedAtTs: NOW,
    },
    job: normalized.job,
    source: "sandbox",
  });
  const score = clientScore(SAMPLE_JOB_DOCUMENT, NOW);
  payload.client.clientScore = { score: score.score, label: score.label };
  return payload;
}

/** A job the source said little about: no link, budget, client facts, skills, posting time, description or reason. */
export function sparsePayload(): WebhookPayload {
  const full = fullPayload();
  return {
    ...full,
    platform: "web",
    url: "",
    title: "Backend developer",
    description: "",
    skills: [],
    jobType: null,
    budget: { hourlyMin: null, hourlyMax: null, fixedAmount: null, currency: null },
    publishTime: null,
    matchingScore: 5,
    scoreReason: null,
    screeningQuestions: [],
    companyId: null,
    client: {
      company: { companyId: null },
      country: null,
      countryName: null,
      totalSpent: null,
      paymentVerified: null,
      rating: null,
      reviews: null,
      hasStats: false,
      clientScore: null,
    },
  };
}
