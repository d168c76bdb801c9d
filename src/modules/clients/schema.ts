/**
 * OpenAPI / response schema of the client jobs record (record.ts builds it).
 * Every key is always present; null means "not known from the archived
 * documents", never zero. Field names under `buyer` are the marketplace's own
 * (docs/reference/marketplace-data.md §1.3–1.4) so existing readers keep working.
 */
import { t } from "elysia";
import { JOB_TYPES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";

const nullableString = (description: string) => t.Nullable(t.String(), { description });
const nullableNumber = (description: string) => t.Nullable(t.Number(), { description });
const nullableCount = (description: string) => t.Nullable(t.Integer({ minimum: 0 }), { description });
const nullableBoolean = (description: string) => t.Nullable(t.Boolean(), { description });
const amount = (description: string) =>
  t.Object({ amount: nullableNumber("Amount in the marketplace's currency (USD); null when unknown") }, { description, additionalProperties: false });
const closed = { additionalProperties: false } as const;

export const BuyerSchema = t.Object(
  {
    company: t.Object(
      {
        name: nullableString("Company name; the authenticated details often hide it, so it may come from the public details"),
        companyId: nullableString("Marketplace company id (19-digit string)"),
        contractDate: nullableString("ISO 8601 date the client joined the marketplace"),
      },
      { description: "buyer.company of the job details", ...closed },
    ),
    location: t.Object(
      {
        city: nullableString("Client city"),
        country: nullableString("Client country as the marketplace spells it (usually the English name)"),
        countryTimezone: nullableString('Client time zone label, e.g. "UTC-05:00 America/Toronto"'),
      },
      { description: "buyer.location of the job details", ...closed },
    ),
    stats: t.Object(
      {
        totalAssignments: nullableCount("Contracts the client has ever started"),
        score: nullableNumber("Average feedback the client received, 0–5 (0 with feedbackCount 0 means unrated)"),
        totalCharges: amount("Total the client has spent"),
        feedbackCount: nullableCount("Number of reviews the client received"),
        totalJobsWithHires: nullableCount("Jobs on which the client hired someone"),
        hoursCount: nullableNumber("Hours billed to the client on hourly contracts"),
      },
      { description: "buyer.stats of the job details", ...closed },
    ),
    avgHourlyJobsRate: amount("Average hourly rate the client paid"),
    postedCount: nullableCount("Jobs the client has posted (buyer.jobs.postedCount)"),
    openCount: nullableCount("Open jobs the marketplace reports for the client (buyer.jobs.openCount)"),
    paymentVerified: nullableBoolean("Payment method verified (isPaymentMethodVerified); null when the marketplace did not say"),
  },
  { description: "Buyer profile: each field is the freshest readable value across the company's documents", ...closed },
);

export const ClientOpenJobSchema = t.Object(
  {
    id: nullableString("Numeric job (opening) id"),
    ciphertext: nullableString("Job ciphertext (~02…); the id used by the apply endpoint"),
    title: nullableString("Job title"),
    type: t.Nullable(literalUnion(JOB_TYPES), { description: "Contract type" }),
    publishTime: nullableString("ISO 8601 publish time; null for jobs known only from the buyer's open-jobs list"),
    budget: t.Object(
      {
        hourlyMin: nullableNumber("Hourly range minimum (hourly jobs)"),
        hourlyMax: nullableNumber("Hourly range maximum (hourly jobs)"),
        fixedAmount: nullableNumber("Fixed price (fixed-price jobs)"),
        currency: nullableString("ISO 4217 currency code of the budget"),
      },
      { description: "Budget as normalised for the feeds; all null when not archived", ...closed },
    ),
    isPtcPrivate: nullableBoolean("Private (PTC) posting flag from buyer.jobs.openJobs"),
  },
  { description: "One open job of the client", ...closed },
);

const FeedbackSchema = (description: string) =>
  t.Nullable(t.Object({ score: nullableNumber("Feedback score, 1–5"), comment: nullableString("Feedback text") }, closed), { description });

export const WorkHistoryEntrySchema = t.Object(
  {
    title: nullableString("Job title (jobInfo.title)"),
    status: nullableString("Contract status as the marketplace reports it, e.g. ACTIVE or CLOSED"),
    startDate: nullableString("ISO 8601 contract start"),
    endDate: nullableString("ISO 8601 contract end; null while the contract is open"),
    totalCharge: nullableNumber("Amount billed on the contract"),
    totalHours: nullableNumber("Hours billed on the contract (0 on fixed-price contracts)"),
    rate: nullableNumber("Hourly rate of the contract (rate.amount); 0 on fixed-price contracts"),
    contractorName: nullableString("Freelancer's display name"),
    jobCiphertext: nullableString("Ciphertext of the contract's job; null for private jobs"),
    feedbackGiven: FeedbackSchema("Feedback the client gave the freelancer (feedback); null when none"),
    feedbackReceived: FeedbackSchema("Feedback the freelancer gave the client (feedbackToClient); null when none"),
  },
  { description: "One past or current contract of the client", ...closed },
);

export const ClientStatsSchema = t.Object(
  {
    jobsPosted: nullableCount("buyer.postedCount"),
    hires: nullableCount("buyer.stats.totalJobsWithHires"),
    hireRate: t.Nullable(t.Number({ minimum: 0, maximum: 1 }), { description: "hires / jobsPosted, 0–1; null when either is unknown or no job was posted" }),
    totalSpent: nullableNumber("buyer.stats.totalCharges.amount"),
    avgHourlyRatePaid: nullableNumber("buyer.avgHourlyJobsRate.amount"),
    avgFeedback: nullableNumber("buyer.stats.score; null when the client has no reviews"),
    openJobs: t.Integer({ minimum: 0, description: "Number of entries in openJobs" }),
    reviews: nullableCount("buyer.stats.feedbackCount"),
  },
  { description: "Aggregates derived from buyer and openJobs", ...closed },
);

export const ClientJobsRecordSchema = t.Object(
  {
    companyId: t.String({ description: "Marketplace company id the record describes" }),
    lastSyncedAt: t.Integer({ description: "Unix ms when the freshest document of the company was explored" }),
    buyer: BuyerSchema,
    openJobs: t.Array(ClientOpenJobSchema, { description: "Open jobs, newest publishTime first; list-only jobs (no publishTime) last" }),
    workHistory: t.Array(WorkHistoryEntrySchema, { description: "Contracts de-duplicated across documents; open ones first, then newest startDate first" }),
    stats: ClientStatsSchema,
  },
  { title: "ClientJobsRecord", description: "Buyer profile, open jobs, work history and aggregate stats of one company", ...closed },
);
