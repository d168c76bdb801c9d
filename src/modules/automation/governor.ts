/**
 * The account-safety governor: the one place that decides whether a submission may go to the marketplace now,
 * later, only after a person's review, or not at all. applications' submit task asks it inside the transaction
 * that then marks the submission as let go (governed_at_ts), so two nodes can never both take the last slot of a
 * cap or the last Connects of a budget: on PostgreSQL the transaction is serializable and one of them is re-run.
 *
 * Order: working hours, the proposal caps, pacing, then the Connects budgets and the balance; then, outside the
 * transaction and only for a submission that would go, the letter similarity guard (similarityHold). Every decision is written to the audit log with the rule that made it.
 */
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { DEFAULT_CONNECTS_REQUIRED } from "../../lib/connects";
import { sha256Hex } from "../../lib/hash";
import { newId } from "../../lib/ids";
import { SESSION_KEY_ID } from "../accounts/model";
import { mostSimilar } from "../../lib/text-similarity";
import { effectiveLimits, type Limits, SIMILARITY_DAYS } from "./limits";
import { type Period, periodSpan } from "./periods";
import * as repo from "./repo";
import type { AutomationUsage } from "./usage";
import { nextWorkingStart } from "./working-hours";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export interface GovernorDeps {
  db: Db;
  clock: Clock;
  config: { governor: boolean };
  automationUsage: AutomationUsage;
}

export interface SubmissionToGovern {
  accountId: string;
  freelancerId: string;
  applicationId: string;
  coverLetter: string;
  boostBids: number;
  /** Connects the job asks for, when its document says; null: the documented default. */
  connectsRequired: number | null;
  /** The person clicks the marketplace's own submit button (the companion in review mode): counted, never held back. */
  byPerson: boolean;
  /**
   * A feed's draft or auto mode queued it and no person approved it: only these wait for working hours. A person's own
   * apply (dashboard, Telegram, API) or approval is evidently made while they work; caps and pacing still apply to it.
   */
  automated: boolean;
  /** What breaking a Connects budget does: end the application, or hold it for review (the feed's setting). */
  overBudget: "skip" | "review";
  /** A person approved this application after it was held: the similarity guard and budgets do not hold it again. */
  approved: boolean;
}

export type Verdict =
  | { kind: "go"; rule: string; estimatedConnects: number }
  | { kind: "wait"; untilTs: number; rule: string }
  | { kind: "hold"; rule: string; reason: string }
  | { kind: "refuse"; rule: string; message: string };

/** Minutes of jitter added to a wait for working hours or a new day, so a queue does not start on the minute. */
const START_JITTER_MINUTES = 10;

/**
 * A number in [0, 1) fixed by a key and a salt. The key is the moment being waited from (the previous submission,
 * the working day's start), not the application: every waiting application then waits for the same instant, so a
 * queue of many still gets a fresh random gap each time rather than the shortest of many draws.
 */
const unit = (key: number, salt: string) => Number.parseInt(sha256Hex(`${salt}:${key}`).slice(0, 8), 16) / 2 ** 32;

export async function limitsFor(
  db: Db,
  accountId: string,
  freelancerId: string | null,
): Promise<{ limits: Limits; own: Partial<Limits> | undefined; account: Partial<Limits> | undefined }> {
  const stored = await repo.storedLimits(db, accountId, freelancerId);
  return { limits: effectiveLimits(stored.account, stored.freelancer), own: stored.freelancer, account: stored.account };
}

export const zoneOf = (l: Limits) => l.workingHours?.timeZone ?? "UTC";

const PERIODS: { period: Period; key: "connectsPerDay" | "connectsPerWeek" | "connectsPerMonth"; words: string }[] = [
  { period: "day", key: "connectsPerDay", words: "daily" },
  { period: "week", key: "connectsPerWeek", words: "weekly" },
  { period: "month", key: "connectsPerMonth", words: "monthly" },
];

/** The decision for one submission at `nowTs`, read inside the caller's transaction. Writes nothing. */
export async function judge(deps: GovernorDeps, db: Db, s: SubmissionToGovern, nowTs: number): Promise<Verdict> {
  const { limits: l, own, account } = await limitsFor(db, s.accountId, s.freelancerId);
  const estimatedConnects = (s.connectsRequired ?? DEFAULT_CONNECTS_REQUIRED) + Math.max(0, s.boostBids);
  if (!deps.config.governor) return { kind: "go", rule: "governor off (JOBPILOT_GOVERNOR=false)", estimatedConnects };
  const usage = deps.automationUsage;
  const zone = zoneOf(l);

  if (s.automated && l.workingHours) {
    const start = nextWorkingStart(l.workingHours, nowTs);
    if (start !== null) {
      const jitter = Math.floor(unit(start, "hours") * START_JITTER_MINUTES * MINUTE_MS);
      return { kind: "wait", untilTs: start + jitter, rule: `working hours: outside ${l.workingHours.start}–${l.workingHours.end} ${zone}` };
    }
  }

  if (!s.byPerson) {
    const day = periodSpan("day", zone, nowTs);
    const today = await usage.submissionsSince(db, s.accountId, s.freelancerId, day.from);
    if (today >= l.proposalsPerDay) {
      const jitter = Math.floor(unit(day.to, "day") * START_JITTER_MINUTES * MINUTE_MS);
      return { kind: "wait", untilTs: day.to + jitter, rule: `daily cap: ${today} of ${l.proposalsPerDay} proposals today` };
    }
    const hourAgo = nowTs - HOUR_MS;
    const thisHour = await usage.submissionsSince(db, s.accountId, s.freelancerId, hourAgo + 1);
    if (thisHour >= l.proposalsPerHour) {
      const oldest = (await usage.oldestSubmissionSince(db, s.accountId, s.freelancerId, hourAgo + 1)) ?? nowTs;
      return { kind: "wait", untilTs: oldest + HOUR_MS, rule: `hourly cap: ${thisHour} of ${l.proposalsPerHour} proposals in the last hour` };
    }
    const last = await usage.lastSubmissionAt(db, s.accountId, s.freelancerId);
    if (last !== null && l.minGapMinutes > 0) {
      const gap = Math.round(l.minGapMinutes * MINUTE_MS * (1 + 0.5 * unit(last, "gap")));
      if (nowTs < last + gap) return { kind: "wait", untilTs: last + gap, rule: `pacing: ${Math.round(gap / 1000)} s after the previous proposal` };
    }
  }

  if (!s.approved) {
    // The account's budgets count every freelancer; a freelancer's own budgets count only them.
    for (const [scope, set, freelancerId] of [
      ["account", account ?? {}, null],
      ["freelancer", own ?? {}, s.freelancerId],
    ] as const) {
      for (const p of PERIODS) {
        const cap = set[p.key] ?? null;
        if (cap === null || cap === undefined) continue;
        const span = periodSpan(p.period, zone, nowTs);
        const spent = await usage.connectsSince(db, s.accountId, freelancerId, span.from);
        if (spent + estimatedConnects > cap) {
          const whose = scope === "account" ? "the account's" : "this freelancer's";
          const message = `Not sent: ${whose} ${p.words} Connects budget is ${cap} and ${spent} are spent; this proposal needs ${estimatedConnects}. Nothing was charged.`;
          const rule = `${p.words} Connects budget (${spent} + ${estimatedConnects} > ${cap})`;
          return s.overBudget === "review" ? { kind: "hold", rule, reason: `budget:${p.period}` } : { kind: "refuse", rule, message };
        }
      }
    }
  }
  const balance = await repo.findBalance(db, s.accountId, s.freelancerId);
  if (balance && balance.available < estimatedConnects) {
    return {
      kind: "refuse",
      rule: `balance (${balance.available} Connects < ${estimatedConnects})`,
      message: `Not sent: the freelancer has ${balance.available} Connects (read ${new Date(balance.readAtTs).toISOString()}) and this proposal needs ${estimatedConnects}. Nothing was charged.`,
    };
  }
  return { kind: "go", rule: s.byPerson ? "sent by the person in review mode" : "within the caps, pacing and budgets", estimatedConnects };
}

/** What kind of wait a rule is ("daily cap", "pacing", …): the words before its colon. */
const waitKind = (rule: string) => rule.split(":")[0];

/**
 * Writes a wait to the audit log unless the application's latest entry is the same kind of wait: a queue of many
 * is judged again each time a slot frees, and the log should say "put off for the daily cap" once, not a hundred times.
 */
export async function auditWait(db: Db, entry: Parameters<typeof audit>[1]): Promise<void> {
  const latest = entry.applicationId === null ? undefined : await repo.latestAuditOf(db, entry.applicationId);
  if (latest?.action === "wait" && waitKind(latest.rule) === waitKind(entry.rule)) return;
  await audit(db, entry);
}

/**
 * The letter similarity guard: a hold when the letter is at least the threshold like one the freelancer sent in the
 * last 30 days, else null. It reads and compares up to hundreds of letters, so the submit task asks it outside the
 * transaction of judge() (which on SQLite holds the write lock), and only once judge() would let the submission go:
 * a queue waiting for a slot is not compared again and again, and the letters sent meanwhile are compared.
 */
export async function similarityHold(deps: GovernorDeps, db: Db, s: SubmissionToGovern, nowTs: number): Promise<Extract<Verdict, { kind: "hold" }> | null> {
  if (!deps.config.governor || s.approved) return null;
  const { limits: l } = await limitsFor(db, s.accountId, s.freelancerId);
  const sent = await deps.automationUsage.sentLetters(db, s.accountId, s.freelancerId, nowTs - SIMILARITY_DAYS * DAY_MS, s.applicationId);
  const best = mostSimilar(
    s.coverLetter,
    sent.map((x) => ({ id: x.id, text: x.coverLetter })),
    l.similarityThreshold,
  );
  if (!best) return null;
  return {
    kind: "hold",
    rule: `letter ${Math.round(best.similarity * 100)} % like one sent in the last ${SIMILARITY_DAYS} days (hold from ${Math.round(l.similarityThreshold * 100)} %)`,
    reason: `similar:${best.item.id}:${best.similarity.toFixed(3)}`,
  };
}

/** Who did it, in words, for the audit log: the member by name, else the API key by its label, else the account. */
export const actorOf = (auth: { keyLabel?: string | null; memberName?: string | null }) =>
  auth.memberName ? auth.memberName : auth.keyLabel ? `key “${auth.keyLabel}”` : "the account";

/** Who did it, as the audit log's columns store it (spread into an audit() entry). */
export const actorIds = (auth: { memberId?: string | null; memberName?: string | null; keyId?: string | null; keyLabel?: string | null }) => ({
  memberId: auth.memberId ?? null,
  // A session opened without a key (a password) used none: no key id, not the session's rate-limit name.
  keyId: auth.keyId === SESSION_KEY_ID ? null : (auth.keyId ?? null),
  actor: actorOf(auth),
});

/** Writes one audit entry (inside the caller's transaction when it has one). */
export async function audit(
  db: Db,
  entry: {
    accountId: string;
    freelancerId: string | null;
    applicationId: string | null;
    action: string;
    rule: string;
    detail: string;
    atTs: number;
    /** Who made the change (none: automation or the command line). */
    memberId?: string | null;
    keyId?: string | null;
    actor?: string | null;
  },
): Promise<void> {
  await repo.insertAudit(db, { id: newId(), ...entry, memberId: entry.memberId ?? null, keyId: entry.keyId ?? null, actor: entry.actor ?? null });
}
