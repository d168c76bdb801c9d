/**
 * The automation settings as the API and the dashboard read and change them: the limits (the account's and each
 * freelancer's), today's / this week's / this month's usage against them, the Connects balance, feeds' apply
 * modes, and the audit log.
 */
import { tx } from "../../db/client";
import type { ApplyMode, OverBudgetAction } from "../../db/enums";
import { AppError, notFound } from "../../errors";
import { isKnownZone } from "../../lib/time-zone";
import { listFreelancers } from "../../marketplace/driver";
import type { DriverDeps } from "../../marketplace/drivers";
import { driverFor } from "../accounts/drivers";
import type { AuthContext } from "../accounts/service";
import { findFeed } from "../feeds/repo";
import { type FeedsDeps, setFeedApplyMode } from "../feeds/service";
import { checkConnectsAlerts } from "./alerts";
import type { FeedRouting } from "./feed-routing";
import { actorIds, actorOf, audit, type GovernorDeps, limitsFor, zoneOf } from "./governor";
import { AUDIT_KEEP_DAYS, hasConnectsBudget, type Limits, type LimitsPatch } from "./limits";
import { periodSpan, type Period } from "./periods";
import * as repo from "./repo";

export type AutomationDeps = GovernorDeps & DriverDeps & FeedsDeps & { feedRouting: FeedRouting };

export interface PeriodUsage {
  from: number;
  to: number;
  proposals: number;
  connects: number;
}

export interface AutomationView {
  freelancerId: string | null;
  limits: Limits;
  /** What the account set (null: the defaults) and, with a freelancer, what that freelancer overrides. */
  accountSet: Partial<Limits>;
  freelancerSet: Partial<Limits> | null;
  usage: { today: PeriodUsage; week: PeriodUsage; month: PeriodUsage; lastHour: { proposals: number } };
  balance: { available: number; source: string; readAt: number } | null;
}

/** The freelancer's name, or a 404 when the account has no such freelancer. */
async function checkFreelancer(deps: AutomationDeps, auth: AuthContext, freelancerId: string | undefined): Promise<string | null> {
  if (freelancerId === undefined) return null;
  const freelancers = await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId);
  const found = freelancers.find((f) => f.id === freelancerId);
  if (!found) throw notFound("freelancerId: freelancer not found (GET /api/auto-apply-v2/freelancers lists them)");
  return found.name || null;
}

/** GET /api/v1/automation: the effective limits for the account (or one freelancer) and the usage against them. */
export async function getAutomation(deps: AutomationDeps, auth: AuthContext, freelancerId?: string): Promise<AutomationView> {
  await checkFreelancer(deps, auth, freelancerId);
  const who = freelancerId ?? null;
  const { limits, own, account } = await limitsFor(deps.db, auth.accountId, who);
  const now = deps.clock.now();
  const zone = zoneOf(limits);
  const usage = deps.automationUsage;
  const period = async (p: Period): Promise<PeriodUsage> => {
    const span = periodSpan(p, zone, now);
    return {
      from: span.from,
      to: span.to,
      proposals: await usage.submissionsSince(deps.db, auth.accountId, who, span.from),
      connects: await usage.connectsSince(deps.db, auth.accountId, who, span.from),
    };
  };
  const balanceRow = who === null ? undefined : await repo.findBalance(deps.db, auth.accountId, who);
  return {
    freelancerId: who,
    limits,
    accountSet: account ?? {},
    freelancerSet: who === null ? null : (own ?? {}),
    usage: {
      today: await period("day"),
      week: await period("week"),
      month: await period("month"),
      lastHour: { proposals: await usage.submissionsSince(deps.db, auth.accountId, who, now - 3_600_000 + 1) },
    },
    balance: balanceRow ? { available: balanceRow.available, source: balanceRow.source, readAt: balanceRow.readAtTs } : null,
  };
}

/** PATCH /api/v1/automation: changes the account's limits, or one freelancer's with freelancerId. */
export async function patchAutomation(deps: AutomationDeps, auth: AuthContext, body: LimitsPatch & { freelancerId?: string }): Promise<AutomationView> {
  const { freelancerId, ...patch } = body;
  await checkFreelancer(deps, auth, freelancerId);
  if (patch.workingHours && !isKnownZone(patch.workingHours.timeZone)) {
    throw new AppError("bad_request", `workingHours.timeZone: unknown time zone "${patch.workingHours.timeZone}" (use an IANA name such as Europe/Berlin)`);
  }
  if (patch.workingHours && patch.workingHours.start === patch.workingHours.end) {
    throw new AppError("bad_request", "workingHours.end: must differ from start (a span of no time)");
  }
  await tx(deps.db, async (db) => {
    const stored = await repo.storedLimits(db, auth.accountId, freelancerId ?? null);
    const current = (freelancerId === undefined ? stored.account : stored.freelancer) ?? {};
    const next: Partial<Limits> = { ...current, ...patch } as Partial<Limits>;
    await repo.saveLimits(db, auth.accountId, freelancerId ?? "", next, deps.clock.now());
    await audit(db, {
      accountId: auth.accountId,
      freelancerId: freelancerId ?? null,
      applicationId: null,
      action: "limits",
      rule: `changed by ${actorOf(auth)}`,
      detail: JSON.stringify(patch),
      atTs: deps.clock.now(),
      ...actorIds(auth),
    });
  });
  return getAutomation(deps, auth, freelancerId);
}

/** PUT /api/v1/automation/connects: the freelancer's available Connects, set by hand (drivers that read it set it too). */
export async function setBalance(deps: AutomationDeps, auth: AuthContext, body: { freelancerId: string; available: number }): Promise<AutomationView> {
  const name = await checkFreelancer(deps, auth, body.freelancerId);
  await tx(deps.db, async (db) => {
    await repo.saveBalance(db, {
      accountId: auth.accountId,
      freelancerId: body.freelancerId,
      available: body.available,
      source: "manual",
      readAtTs: deps.clock.now(),
    });
    await checkConnectsAlerts({ ...deps, db }, { accountId: auth.accountId, freelancerId: body.freelancerId, freelancerName: name });
  });
  return getAutomation(deps, auth, body.freelancerId);
}

/**
 * A balance a driver read off the apply page (the companion, the sandbox): kept as the freelancer's latest, and
 * alerted on (alerts.ts) in the same transaction; with automationUsage the budgets are checked too.
 */
export async function noteBalance(
  deps: Pick<AutomationDeps, "db" | "clock"> & Partial<Pick<AutomationDeps, "automationUsage">>,
  accountId: string,
  freelancerId: string,
  available: number,
  source: string,
): Promise<void> {
  await tx(deps.db, async (db) => {
    await repo.saveBalance(db, { accountId, freelancerId, available, source, readAtTs: deps.clock.now() });
    await checkConnectsAlerts({ ...deps, db }, { accountId, freelancerId });
  });
}

export interface FeedAutomation {
  feedId: string;
  applyMode: ApplyMode;
  minScore: number | null;
  minExpectedUsd: number | null;
  overBudget: OverBudgetAction;
  /** Routing: the freelancer and profile the feed's jobs go out as (null: the primary one), and its members. */
  freelancerId: string | null;
  profileId: string | null;
  memberIds: string[];
}

export async function getFeedAutomation(deps: Pick<AutomationDeps, "db" | "feedRouting">, auth: AuthContext, feedId: string): Promise<FeedAutomation> {
  const feed = await findFeed(deps.db, auth.accountId, feedId);
  if (!feed) throw notFound("feed not found");
  return {
    feedId: feed.id,
    applyMode: feed.applyMode,
    minScore: feed.autoMinScore,
    minExpectedUsd: feed.autoMinExpectedUsd,
    overBudget: feed.overBudget,
    freelancerId: feed.freelancerId,
    profileId: feed.profileId,
    memberIds: await deps.feedRouting.membersOfFeed(deps.db, feed.id),
  };
}

export interface FeedRoutingInput {
  freelancerId?: string | null;
  profileId?: string | null;
}

/**
 * The freelancer and profile a feed routes to, checked against the account's roster (400 naming the field): a
 * freelancer alone goes out as its default profile, a profile alone names its freelancer, null clears both.
 */
export async function resolveFeedRouting(
  deps: AutomationDeps,
  auth: AuthContext,
  current: { freelancerId: string | null; profileId: string | null },
  body: FeedRoutingInput,
): Promise<{ freelancerId: string | null; profileId: string | null }> {
  if (body.freelancerId === undefined && body.profileId === undefined) return { freelancerId: current.freelancerId, profileId: current.profileId };
  if (body.freelancerId === null) {
    if (body.profileId) throw new AppError("bad_request", "profileId: a profile needs its freelancer; send freelancerId too, or no profileId");
    return { freelancerId: null, profileId: null };
  }
  if (body.freelancerId === undefined && body.profileId === null && current.freelancerId === null) return { freelancerId: null, profileId: null };
  const freelancers = await listFreelancers(await driverFor(deps, auth.accountId), auth.accountId);
  let freelancer: (typeof freelancers)[number] | undefined;
  if (body.freelancerId !== undefined) {
    freelancer = freelancers.find((f) => f.id === body.freelancerId);
    if (!freelancer) throw new AppError("bad_request", "freelancerId is not one of this account's freelancers (GET /api/auto-apply-v2/freelancers lists them)");
  } else if (body.profileId) {
    freelancer = freelancers.find((f) => f.profiles.some((p) => p.profileId === body.profileId));
    if (!freelancer) throw new AppError("bad_request", "profileId is not one of this account's profiles (GET /api/auto-apply-v2/freelancers lists them)");
  } else {
    freelancer = freelancers.find((f) => f.id === current.freelancerId);
    if (!freelancer) throw new AppError("bad_request", "freelancerId: the feed's freelancer is no longer linked to this account; choose another");
  }
  if (body.profileId) {
    if (!freelancer.profiles.some((p) => p.profileId === body.profileId))
      throw new AppError("bad_request", `profileId is not one of ${freelancer.name}'s profiles`);
    return { freelancerId: freelancer.id, profileId: body.profileId };
  }
  const profile = freelancer.profiles.find((p) => p.type === "default") ?? freelancer.profiles[0];
  if (!profile) throw new AppError("bad_request", `freelancerId: ${freelancer.name} has no profile to apply with`);
  return { freelancerId: freelancer.id, profileId: profile.profileId };
}

/**
 * PUT /api/v1/automation/feeds/{feedId}. Auto mode needs working hours and a Connects budget set first: "send
 * without review" is only safe within limits the person chose.
 */
export async function putFeedAutomation(
  deps: AutomationDeps,
  auth: AuthContext,
  feedId: string,
  body: {
    applyMode?: ApplyMode;
    minScore?: number | null;
    minExpectedUsd?: number | null;
    overBudget?: OverBudgetAction;
    freelancerId?: string | null;
    profileId?: string | null;
    memberIds?: string[];
  },
): Promise<FeedAutomation> {
  const feed = await findFeed(deps.db, auth.accountId, feedId);
  if (!feed) throw notFound("feed not found");
  // Routing is checked before anything is written, so a bad freelancer or member changes nothing.
  const routing = await resolveFeedRouting(deps, auth, feed, body);
  const memberIds = body.memberIds === undefined ? undefined : await deps.feedRouting.checkFeedMembers(deps.db, auth.accountId, body.memberIds);
  if (body.applyMode === "auto") {
    const { limits } = await limitsFor(deps.db, auth.accountId, null);
    if (limits.workingHours === null) throw new AppError("bad_request", "applyMode: auto needs working hours first (PATCH /api/v1/automation workingHours)");
    if (!hasConnectsBudget(limits))
      throw new AppError(
        "bad_request",
        "applyMode: auto needs a Connects budget first (PATCH /api/v1/automation connectsPerDay, connectsPerWeek or connectsPerMonth)",
      );
  }
  const next = {
    applyMode: body.applyMode ?? feed.applyMode,
    autoMinScore: body.minScore === undefined ? feed.autoMinScore : body.minScore,
    autoMinExpectedUsd: body.minExpectedUsd === undefined ? feed.autoMinExpectedUsd : body.minExpectedUsd,
    overBudget: body.overBudget ?? feed.overBudget,
    ...routing,
  };
  await setFeedApplyMode(deps, auth, feedId, next, async (db) => {
    if (memberIds !== undefined) await deps.feedRouting.setFeedMembers(db, feedId, memberIds);
    await audit(db, {
      accountId: auth.accountId,
      freelancerId: null,
      applicationId: null,
      action: "feed_mode",
      rule: `changed by ${actorOf(auth)}`,
      detail: `feed ${feedId}: ${JSON.stringify(memberIds === undefined ? next : { ...next, memberIds })}`,
      atTs: deps.clock.now(),
      ...actorIds(auth),
    });
  });
  return getFeedAutomation(deps, auth, feedId);
}

export interface AuditEntry {
  at: number;
  action: string;
  actor: string | null;
  memberId: string | null;
  keyId: string | null;
  freelancerId: string | null;
  applicationId: string | null;
  rule: string;
  detail: string;
}

export async function listAudit(
  deps: AutomationDeps,
  auth: AuthContext,
  q: { limit: number; offset: number; freelancerId?: string; memberId?: string },
): Promise<{ entries: AuditEntry[]; total: number; limit: number; offset: number }> {
  const { rows, total } = await repo.listAudit(deps.db, auth.accountId, q);
  return {
    entries: rows.map((r) => ({
      at: r.atTs,
      action: r.action,
      actor: r.actor,
      memberId: r.memberId,
      keyId: r.keyId,
      freelancerId: r.freelancerId,
      applicationId: r.applicationId,
      rule: r.rule,
      detail: r.detail,
    })),
    total,
    limit: q.limit,
    offset: q.offset,
  };
}

/** Retention: the audit log keeps 90 days. */
export const pruneAudit = (deps: Pick<AutomationDeps, "db" | "clock">) => repo.pruneAudit(deps.db, deps.clock.now() - AUDIT_KEEP_DAYS * 86_400_000);
