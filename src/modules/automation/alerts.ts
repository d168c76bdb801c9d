/**
 * The Connects alerts: `connects.low` when a freelancer's available Connects fall under lowBalanceBelow, and
 * `budget.low` when a Connects budget (daily, weekly, monthly; the account's or a freelancer's own) has less than
 * lowBudgetBelow left. Each is sent once per period through automation_alerts (repo.claimAlert): a budget's
 * period is its key (2026-12-02, 2026-12-W1, 2026-12); the balance's is "balance", released once the balance is
 * back at or above the threshold, so the next fall alerts again. Checked after a balance is read or set
 * (service.ts) and after a governed submission settles applied (applications/submit.task.ts).
 *
 * The claim and the alert's events are written in one transaction: an alert is never claimed without its events,
 * nor sent twice by two checks at once (the second claim finds the row).
 */
import { tx } from "../../db/client";
import type { Logger } from "../../lib/log";
import { type AlertFacts, BUDGET_LOW_EVENT, CONNECTS_LOW_EVENT, queueAlertEvents } from "../feeds/admit";
import { limitsFor, zoneOf, type GovernorDeps } from "./governor";
import { effectiveLimits } from "./limits";
import { type Period, periodSpan } from "./periods";
import * as repo from "./repo";

export type AlertDeps = Pick<GovernorDeps, "db" | "clock"> & Partial<Pick<GovernorDeps, "automationUsage">>;

export interface AlertCheck {
  accountId: string;
  freelancerId: string;
  /** The freelancer's name when the caller knows it (shown in the alert instead of the id). */
  freelancerName?: string | null;
  /** The application whose submission spent the Connects: its feed carries the alert, and its job is named. */
  application?: { feedId: string | null; jobCiphertext: string } | null;
  /** A balance the driver just reported, not stored yet (the caller stores it): taken as read now instead of the stored one. */
  reported?: number;
}

/** The balance alert's one period: claimed while the balance is low, released when it is not. */
export const BALANCE_PERIOD = "balance";

const BUDGETS: { period: Period; key: "connectsPerDay" | "connectsPerWeek" | "connectsPerMonth" }[] = [
  { period: "day", key: "connectsPerDay" },
  { period: "week", key: "connectsPerWeek" },
  { period: "month", key: "connectsPerMonth" },
];

/**
 * Checks the freelancer's balance and every budget that counts them, and raises the alerts now due; returns the
 * types raised (one per alert). Without automationUsage (a driver noting a balance it just read) only the balance
 * is checked, as read. Runs in the caller's transaction when given one.
 */
export async function checkConnectsAlerts(deps: AlertDeps, check: AlertCheck): Promise<string[]> {
  return tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    const usage = deps.automationUsage;
    const { limits, own, account } = await limitsFor(db, check.accountId, check.freelancerId);
    const raised: string[] = [];
    const raise = async (type: typeof CONNECTS_LOW_EVENT | typeof BUDGET_LOW_EVENT, claimFor: string, kind: string, period: string, facts: AlertFacts) => {
      if (!(await repo.claimAlert(db, { accountId: check.accountId, freelancerId: claimFor, kind, period, sentAtTs: nowTs }))) return;
      const app = check.application ?? null;
      await queueAlertEvents(db, { accountId: check.accountId, type, facts, feedId: app?.feedId ?? null, jobCiphertext: app?.jobCiphertext ?? null }, nowTs);
      raised.push(type);
    };
    const name = check.freelancerName ?? null;

    const threshold = limits.lowBalanceBelow;
    const balance =
      check.reported === undefined ? await repo.findBalance(db, check.accountId, check.freelancerId) : { available: check.reported, readAtTs: nowTs };
    if (threshold !== null && balance) {
      // What was read, less what governed submissions spent after it was read (the drivers do not all read it again).
      const spent = usage && check.reported === undefined ? await usage.connectsSince(db, check.accountId, check.freelancerId, balance.readAtTs + 1) : 0;
      const available = balance.available - spent;
      const claim = { accountId: check.accountId, freelancerId: check.freelancerId, kind: CONNECTS_LOW_EVENT, period: BALANCE_PERIOD };
      if (available < threshold) {
        await raise(CONNECTS_LOW_EVENT, check.freelancerId, CONNECTS_LOW_EVENT, BALANCE_PERIOD, {
          kind: "balance",
          freelancerId: check.freelancerId,
          freelancerName: name,
          available,
          threshold,
          readAtTs: balance.readAtTs,
          estimated: spent > 0,
        });
      } else await repo.releaseAlert(db, claim);
    }

    if (!usage) return raised;
    // The budgets as the governor counts them (governor.ts judge): the account's count every freelancer, in the
    // freelancer's time zone; a freelancer's own count only them. Each scope alerts under its own threshold.
    const zone = zoneOf(limits);
    const scopes = [
      { scope: "account" as const, set: account ?? {}, counted: null, claimFor: "", under: effectiveLimits(account, undefined).lowBudgetBelow },
      { scope: "freelancer" as const, set: own ?? {}, counted: check.freelancerId, claimFor: check.freelancerId, under: limits.lowBudgetBelow },
    ];
    for (const s of scopes) {
      if (s.under === null) continue;
      for (const b of BUDGETS) {
        const cap = s.set[b.key];
        if (cap === null || cap === undefined) continue;
        const span = periodSpan(b.period, zone, nowTs);
        const spent = await usage.connectsSince(db, check.accountId, s.counted, span.from);
        if (cap - spent >= s.under) continue;
        await raise(BUDGET_LOW_EVENT, s.claimFor, `${BUDGET_LOW_EVENT}:${b.period}`, span.key, {
          kind: "budget",
          scope: s.scope,
          freelancerId: check.freelancerId,
          freelancerName: name,
          period: b.period,
          periodKey: span.key,
          fromTs: span.from,
          toTs: span.to,
          cap,
          spent,
          threshold: s.under,
        });
      }
    }
    return raised;
  });
}

/**
 * The check after a submission settled applied, for applications/submit.task.ts finish() (inside its transaction,
 * before the driver's reported balance is noted: so an alert it raises names this application's feed, and the
 * note's own check then finds it claimed). An alert that cannot be written must not undo or retry a proposal
 * already sent: it is rolled back alone and logged, and the next check raises it.
 */
export async function alertsAfterSubmission(
  deps: AlertDeps & { log: Logger },
  app: { accountId: string; freelancerId: string; feedId: string | null; jobCiphertext: string },
  outcome: { connectsAvailable?: number },
): Promise<void> {
  try {
    await checkConnectsAlerts(deps, {
      accountId: app.accountId,
      freelancerId: app.freelancerId,
      application: { feedId: app.feedId, jobCiphertext: app.jobCiphertext },
      reported: outcome.connectsAvailable,
    });
  } catch (err) {
    deps.log.warn("connects alerts check failed", { account: app.accountId, freelancer: app.freelancerId, err: err as Error });
  }
}
