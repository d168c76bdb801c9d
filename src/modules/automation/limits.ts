/**
 * The governor's limits: what each one is, its documented default, and its bounds. An account sets its own; a
 * freelancer of the account may override any of them. docs/automation.md's table is generated from LIMITS.
 */
import { t } from "elysia";
import type { WorkingHours } from "./working-hours";

export interface Limits {
  proposalsPerDay: number;
  proposalsPerHour: number;
  minGapMinutes: number;
  companionReadsPerHour: number;
  connectsPerDay: number | null;
  connectsPerWeek: number | null;
  connectsPerMonth: number | null;
  lowBalanceBelow: number | null;
  lowBudgetBelow: number | null;
  similarityThreshold: number;
  workingHours: WorkingHours | null;
}

/**
 * Each limit: its default and what it means, in the words the docs and the dashboard use. Defaults lean to what a
 * careful person does by hand: 15 proposals a day at most 4 an hour, a few minutes apart.
 */
export const LIMITS: Record<keyof Limits, { default: Limits[keyof Limits]; label: string; what: string }> = {
  proposalsPerDay: { default: 15, label: "Proposals a day", what: "Submissions per freelancer per day (their working-hours time zone, else UTC)." },
  proposalsPerHour: { default: 4, label: "Proposals an hour", what: "Submissions per freelancer in any 60 minutes." },
  minGapMinutes: {
    default: 6,
    label: "Minutes between proposals",
    what: "The least time between two submissions of one freelancer; each gap is drawn at random from this to 1.5 times it, as a person's would vary.",
  },
  companionReadsPerHour: {
    default: 60,
    label: "Companion reads an hour",
    what: 'Pages the browser companion captures or reads (job pages, "my proposals") per hour; more are refused until the hour has passed.',
  },
  connectsPerDay: { default: null, label: "Connects a day", what: "Connects automation may spend per day; none: no daily cap." },
  connectsPerWeek: { default: null, label: "Connects a week", what: "Per week (Monday to Sunday); none: no weekly cap." },
  connectsPerMonth: { default: null, label: "Connects a month", what: "Per calendar month; none: no monthly cap." },
  lowBalanceBelow: { default: 30, label: "Alert under this balance", what: "Alert once when the freelancer's available Connects fall under this." },
  lowBudgetBelow: { default: 20, label: "Alert under this budget left", what: "Alert once per period when a Connects budget has less than this left." },
  similarityThreshold: {
    default: 0.8,
    label: "Held when this similar",
    what: "A letter at least this similar (3-word shingles, Jaccard) to one the freelancer sent in the last 30 days is held for review instead of sent.",
  },
  workingHours: {
    default: null,
    label: "Working hours",
    what: "Days and hours, in a time zone, when automation may act; none: any time. Auto mode needs them set.",
  },
};

export const DEFAULT_LIMITS = Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, v.default])) as unknown as Limits;

/** How far back the similarity guard looks. */
export const SIMILARITY_DAYS = 30;
/** How long the audit log keeps an entry. */
export const AUDIT_KEEP_DAYS = 90;

const HHMM = "^([01]\\d|2[0-3]):[0-5]\\d$";
const count = (max: number, what: string) => t.Integer({ minimum: 0, maximum: max, description: what });
const budget = (what: string) => t.Union([t.Integer({ minimum: 0, maximum: 100_000 }), t.Null()], { description: what });

export const WorkingHoursBody = t.Object(
  {
    timeZone: t.String({ minLength: 1, maxLength: 64, description: "IANA time zone, e.g. Europe/Berlin" }),
    days: t.Array(t.Integer({ minimum: 0, maximum: 6 }), { minItems: 1, maxItems: 7, uniqueItems: true, description: "0 = Sunday … 6 = Saturday" }),
    start: t.String({ pattern: HHMM, description: "HH:MM, 24 h" }),
    end: t.String({ pattern: HHMM, description: "HH:MM, 24 h; before start for a span over midnight" }),
  },
  { additionalProperties: false },
);

/** The limits a PATCH may set; null on a budget or alert clears it, null workingHours means any time. */
export const LimitsPatch = t.Object(
  {
    proposalsPerDay: t.Optional(count(200, LIMITS.proposalsPerDay.what)),
    proposalsPerHour: t.Optional(count(50, LIMITS.proposalsPerHour.what)),
    minGapMinutes: t.Optional(count(24 * 60, LIMITS.minGapMinutes.what)),
    companionReadsPerHour: t.Optional(count(1000, LIMITS.companionReadsPerHour.what)),
    connectsPerDay: t.Optional(budget(LIMITS.connectsPerDay.what)),
    connectsPerWeek: t.Optional(budget(LIMITS.connectsPerWeek.what)),
    connectsPerMonth: t.Optional(budget(LIMITS.connectsPerMonth.what)),
    lowBalanceBelow: t.Optional(budget(LIMITS.lowBalanceBelow.what)),
    lowBudgetBelow: t.Optional(budget(LIMITS.lowBudgetBelow.what)),
    similarityThreshold: t.Optional(t.Number({ minimum: 0.3, maximum: 1, description: LIMITS.similarityThreshold.what })),
    workingHours: t.Optional(t.Union([WorkingHoursBody, t.Null()], { description: LIMITS.workingHours.what })),
  },
  { additionalProperties: false },
);
export type LimitsPatch = typeof LimitsPatch.static;

/** The effective limits: the defaults, then the account's, then the freelancer's. */
export function effectiveLimits(account: Partial<Limits> | undefined, freelancer: Partial<Limits> | undefined): Limits {
  return { ...DEFAULT_LIMITS, ...(account ?? {}), ...(freelancer ?? {}) };
}

export const hasConnectsBudget = (l: Limits) => l.connectsPerDay !== null || l.connectsPerWeek !== null || l.connectsPerMonth !== null;
