import type { NormalizedJob } from "../../src/modules/jobs/normalize";
import type { MatchableJob } from "../../src/modules/feeds/matcher";
import type { FeedRow } from "../../src/modules/feeds/repo";

/** A normalized marketplace job with plain defaults; tests override what they look at. */
export function makeJob(over: Partial<MatchableJob> = {}): MatchableJob {
  const base: NormalizedJob = {
    ciphertext: "~021000000000000000001",
    jobUid: "1000000000000000001",
    platform: "marketplace",
    title: "Build a dashboard",
    description: "We need a developer to build an analytics dashboard.",
    skills: [],
    url: "https://www.upwork.com/jobs/~021000000000000000001",
    jobType: "HOURLY",
    hourlyMin: 30,
    hourlyMax: 60,
    fixedBudget: null,
    currency: "USD",
    clientCountry: "US",
    clientTotalSpent: 5000,
    paymentVerified: true,
    clientRating: 4.8,
    clientReviews: 12,
    hasClientStats: true,
    usOnly: false,
    contactEmails: [],
    emailFound: false,
    publishTimeTs: Date.UTC(2026, 0, 15),
    companyId: "1500000000000000001",
    engagementWeeks: null,
    engagementLabel: null,
    screeningQuestions: [],
    exploredAt: null,
  };
  return { ...base, firstSeenAtTs: Date.UTC(2026, 0, 15, 12), ...over };
}

/** A feed row as stored, with the API's defaults; tests override the filters they exercise. */
export function makeFeedRow(over: Partial<FeedRow> = {}): FeedRow {
  return {
    id: "feed-1",
    accountId: "acct-1",
    title: "Feed",
    profilePrompt: "",
    minScore: 0,
    signalRules: {},
    alertFavoured: true,
    includes: [],
    excludes: [],
    minHourlyRate: null,
    minFixedPrice: null,
    clientMinSpent: null,
    countryFilterMode: "exclude",
    excludedCountries: [],
    includedCountries: [],
    platforms: null,
    proposalGenerationPrompt: null,
    notificationsMuted: false,
    outcomeEvents: false,
    applyMode: "alert",
    autoMinScore: null,
    autoMinExpectedUsd: null,
    freelancerId: null,
    profileId: null,
    overBudget: "skip",
    emailFound: "all",
    jobTypes: [],
    usOnlyMode: "all",
    paymentVerifiedOnly: false,
    clientMinRating: null,
    clientMinReviews: null,
    webhookUrl: null,
    webhookSecret: null,
    webhookPreviousSecret: null,
    webhookPreviousUntilTs: null,
    webhookFailingSinceTs: null,
    webhookDisabledAtTs: null,
    webhookDisabledReason: null,
    webhookLeaseUntilTs: null,
    createdAtTs: Date.UTC(2026, 0, 1),
    updatedAtTs: Date.UTC(2026, 0, 1),
    ...over,
  };
}

let docCounter = 0;

/** A small but real marketplace document (search tile + public details), for ingestion tests. */
export function makeDoc(
  over: {
    ciphertext?: string;
    title?: string;
    description?: string;
    skills?: string[];
    jobType?: "HOURLY" | "FIXED";
    hourly?: [number, number];
    fixed?: number;
    country?: string;
    exploredAt?: number;
    usOnly?: boolean;
    paymentVerified?: boolean;
    companyId?: string;
    questions?: string[];
    publishTime?: string;
  } = {},
): Record<string, unknown> {
  const n = ++docCounter;
  const id = String(1_900_000_000_000_000_000n + BigInt(n) * 7919n);
  const ciphertext = over.ciphertext ?? `~02${id}`;
  const jobType = over.jobType ?? (over.fixed !== undefined ? "FIXED" : "HOURLY");
  const doc: Record<string, unknown> = {
    id,
    title: over.title ?? `Job ${n}`,
    description: over.description ?? "A job description.",
    ontologySkills: (over.skills ?? []).map((s, i) => ({ uid: `skill-${i}`, prefLabel: s })),
    jobTile: {
      job: {
        id,
        ciphertext,
        jobType,
        publishTime: over.publishTime ?? "2026-01-15T11:59:00.000Z",
        hourlyBudgetMin: jobType === "HOURLY" ? String(over.hourly?.[0] ?? 30) : null,
        hourlyBudgetMax: jobType === "HOURLY" ? String(over.hourly?.[1] ?? 60) : null,
        fixedPriceAmount: jobType === "FIXED" ? { isoCurrencyCode: "USD", amount: String(over.fixed ?? 500) } : null,
      },
    },
    upworkHistoryData: {
      client: {
        paymentVerificationStatus: over.paymentVerified === false ? "UNVERIFIED" : "VERIFIED",
        country: over.country ?? "United States",
        totalReviews: 10,
        totalFeedback: 4.9,
        totalSpent: { isoCurrencyCode: "USD", amount: "12000.0" },
      },
    },
    jobDetailsResponse: {
      data: {
        jobPubDetails: {
          qualifications: over.usOnly ? { countries: ["United States"], locationCheckRequired: true } : { countries: null, locationCheckRequired: false },
          buyer: { company: { companyId: over.companyId ?? "1500000000000000001" } },
        },
      },
    },
  };
  if (over.exploredAt !== undefined) doc.exploredAt = over.exploredAt;
  if (over.questions) doc.screeningQuestions = over.questions.map((question, position) => ({ position, question }));
  return doc;
}
