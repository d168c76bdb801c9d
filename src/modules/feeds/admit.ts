/**
 * The one door into a feed, from ingestion and from the scoring task: the feed entry, one outbox event per target
 * and the start of tracking are written together in the caller's transaction, so a crash leaves all or none. A
 * match with no target writes no event (see docs/architecture.md, 'The one door into a feed').
 */
import type { Db } from "../../db/client";
import type { ApplyMode } from "../../db/enums";
import { enqueueTasks } from "../../worker/tasks";
import { newId } from "../../lib/ids";
import { listEntriesFor } from "../clients/lists-read";
import type { JobSignal } from "../jobs/signals";
import { ensureTrackedMany } from "../jobs/tracking";
import { channelIdsOfFeeds } from "./feed-channels";
import { type EventInsert, insertEvent, insertEvents, pendingOfAccount, WEBHOOK_TARGET } from "./outbox";
import * as repo from "./repo";
import { type SignalRules, type Verdict, verdictFor } from "./signal-rules";

/** A new job entered the feed. */
export const JOB_MATCHED_EVENT = "job.matched";
/** Sent when a webhook URL is saved, and on request: carries the sample job. */
export const WEBHOOK_TEST_EVENT = "webhook.test";
/** A sent proposal newly reached a stage of its funnel (applications/funnel.ts); only to feeds with outcomeEvents on. */
export const PROPOSAL_VIEWED_EVENT = "proposal.viewed";
export const PROPOSAL_REPLIED_EVENT = "proposal.replied";
export const PROPOSAL_HIRED_EVENT = "proposal.hired";
/** The outcome events, in stage order: the order one change that reaches several stages writes them in. */
export const OUTCOME_EVENT_TYPES = [PROPOSAL_VIEWED_EVENT, PROPOSAL_REPLIED_EVENT, PROPOSAL_HIRED_EVENT] as const;
export type OutcomeEventType = (typeof OUTCOME_EVENT_TYPES)[number];
/** A freelancer's available Connects fell under the governor's lowBalanceBelow (modules/automation/alerts.ts). */
export const CONNECTS_LOW_EVENT = "connects.low";
/** A Connects budget (daily, weekly or monthly; the account's or a freelancer's) has less than lowBudgetBelow left. */
export const BUDGET_LOW_EVENT = "budget.low";
/** An application is held for a person's review: a draft-mode draft, or one the governor held (similar letter, budget). */
export const APPLICATION_HELD_EVENT = "application.held";
/** The automation alerts: about the account's Connects, not about a job. */
export const ALERT_EVENT_TYPES = [CONNECTS_LOW_EVENT, BUDGET_LOW_EVENT] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];
export const EVENT_TYPES = [JOB_MATCHED_EVENT, WEBHOOK_TEST_EVENT, ...OUTCOME_EVENT_TYPES, ...ALERT_EVENT_TYPES, APPLICATION_HELD_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isOutcomeEvent(type: string): type is OutcomeEventType {
  return (OUTCOME_EVENT_TYPES as readonly string[]).includes(type);
}

export function isAlertEvent(type: string): type is AlertEventType {
  return (ALERT_EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * An event's delivery state as the deliveries API lists it: pending (no attempt
 * yet), retrying, delivered, failed (retries spent), suppressed (the same job
 * already notified this feed within 24 h) or skipped (no webhook, disabled, or
 * muted). A channel alert can also be held (for its digest: digest mode or
 * quiet hours) and in_digest (its digest is being sent; it takes the digest's
 * outcome). A test event written without a deliverable webhook is `no_endpoint`
 * instead: on record, never delivered and never listed (so were job.matched
 * events without one, which are no longer written).
 */
export const DELIVERY_STATUSES = ["pending", "retrying", "delivered", "failed", "suppressed", "skipped", "held", "in_digest"] as const;

/** A webhook URL is set and not disabled: events written now are worth delivering. */
export function hasDeliverableWebhook(feed: Pick<repo.FeedRow, "webhookUrl" | "webhookDisabledAtTs">): boolean {
  return feed.webhookUrl !== null && feed.webhookDisabledAtTs === null;
}

/** What admission needs to know of a feed (a compiled feed of the index carries it already). */
export interface AdmitFeed {
  id: string;
  accountId: string;
  notificationsMuted: boolean;
  /** hasDeliverableWebhook of the feed as it is now. */
  hasWebhook: boolean;
  /** The feed's notification channels: one more event per match for each. */
  channelIds: readonly string[];
  /** Draft and auto mode (modules/automation): each new entry is also handed to the auto-apply task. */
  applyMode: ApplyMode;
  /** A job scored under it stays out (unless favoured, with alertFavoured); absent: the caller checked the score. */
  minScore?: number;
  /** What the feed does with each signal (issue 45): absent, every signal is a warning. */
  signalRules?: SignalRules;
  /** A favoured client's job enters whatever its score (default true, as the column's). */
  alertFavoured?: boolean;
}

/** The task a draft- or auto-mode feed's new entry is handed to (applications/auto.task.ts). */
export const AUTO_APPLY_TASK = "apply.auto";

export function admitFeedOf(row: repo.FeedRow, channelIds: readonly string[]): AdmitFeed {
  return {
    id: row.id,
    accountId: row.accountId,
    notificationsMuted: row.notificationsMuted,
    hasWebhook: hasDeliverableWebhook(row),
    channelIds,
    applyMode: row.applyMode,
    minScore: row.minScore,
    signalRules: row.signalRules as SignalRules,
    alertFavoured: row.alertFavoured,
  };
}

/**
 * Writes a `webhook.test` event to the feed's outbox (its webhook only) and
 * returns its id; a muted feed gets none (null). Without a deliverable webhook
 * the event is kept as `no_endpoint`: on record, but never in the deliverer's
 * index of due events.
 */
export async function queueTestEvent(
  db: Db,
  feed: Pick<AdmitFeed, "id" | "accountId" | "notificationsMuted" | "hasWebhook">,
  nowTs: number,
): Promise<string | null> {
  if (feed.notificationsMuted) return null;
  const row = eventRow(feed, WEBHOOK_TEST_EVENT, WEBHOOK_TARGET, feed.hasWebhook, nowTs);
  await insertEvent(db, row);
  return row.id;
}

/** An unmuted feed's outbox row for one target: `no_endpoint` when the target cannot be sent to (test events), so the deliverer never sees it. */
function eventRow(
  feed: Pick<AdmitFeed, "id" | "accountId">,
  type: EventType,
  target: string,
  isDeliverable: boolean,
  nowTs: number,
  entry?: { feedJobId: string | null; jobCiphertext: string },
): EventInsert {
  return {
    id: `evt_${newId()}`,
    type,
    accountId: feed.accountId,
    feedId: feed.id,
    target,
    feedJobId: entry?.feedJobId ?? null,
    jobCiphertext: entry?.jobCiphertext ?? null,
    createdAtTs: nowTs,
    status: isDeliverable ? "pending" : "no_endpoint",
    nextAttemptAtTs: isDeliverable ? nowTs : null,
  };
}

/**
 * Events one account may have waiting to be sent (pending or retrying). A match's events past it are not
 * queued: they are written `skipped`, with PENDING_CAP_REASON, so the deliveries list counts them and says why,
 * and the deliverer never sees them. The newest are the ones dropped: what is queued already keeps its place.
 * At the fan-out ceiling (200 feeds, 1,000 channel links) that is about 17 jobs' worth of one account's alerts.
 */
export const MAX_PENDING_EVENTS_PER_ACCOUNT = 20_000;

export const PENDING_CAP_REASON = `Not sent: this account already had ${MAX_PENDING_EVENTS_PER_ACCOUNT.toLocaleString("en-US")} alerts waiting to be delivered (the per-account backlog cap)`;

/** Events past the account's pending cap become skipped, in place; returns how many did. */
async function capPending(db: Db, events: EventInsert[], maxPending: number): Promise<number> {
  const perAccount = new Map<string, EventInsert[]>();
  for (const e of events) {
    if (e.status !== "pending") continue;
    const list = perAccount.get(e.accountId);
    if (list) list.push(e);
    else perAccount.set(e.accountId, [e]);
  }
  let dropped = 0;
  for (const [accountId, list] of perAccount) {
    const room = maxPending - (await pendingOfAccount(db, accountId, maxPending));
    for (const e of list.slice(Math.max(0, room))) {
      e.status = "skipped";
      e.nextAttemptAtTs = null;
      e.lastError = maxPending === MAX_PENDING_EVENTS_PER_ACCOUNT ? PENDING_CAP_REASON : `Not sent: the per-account backlog cap (${maxPending}) was reached`;
      dropped++;
    }
  }
  return dropped;
}

export interface Admission {
  jobCiphertext: string;
  /** The archived document: its counts are the tracker's first check. */
  document: unknown;
  score: number;
  /** default (empty prompt), ai, local or cache. */
  scoreSource: string;
  scoreReason: string | null;
  nowTs: number;
  /** The job's client (the marketplace's company id), for the account's client lists; null or absent: none. */
  companyId?: string | null;
  /** The job's signals as archived (jobs.signals), for the feed's signal rules. */
  signals?: readonly JobSignal[];
}

/** What a screened pair names: the feed's rules and the job's client and signals. */
export interface ScreenPair {
  feed: Pick<AdmitFeed, "id" | "accountId" | "signalRules">;
  job: Pick<Admission, "jobCiphertext" | "companyId" | "signals" | "nowTs">;
}

/**
 * The verdict of the account's client list and the feed's signal rules on each (feed, job) pair
 * (signal-rules.ts), in order, with one read of the lists for the batch. A pair kept out is recorded in
 * filtered_jobs with the reason, in the caller's transaction. Ingestion screens a match before queueing its
 * scoring (a blocked client's job costs no model call) and admitJobs screens again when it enters, since the
 * list may have changed while it was scored.
 */
export async function screenJobs(db: Db, pairs: readonly ScreenPair[]): Promise<Verdict[]> {
  const verdicts = await verdictsOf(db, pairs);
  await recordFiltered(
    db,
    pairs.filter((_, i) => verdicts[i]!.kind === "drop"),
    verdicts.filter((v) => v.kind === "drop"),
  );
  return verdicts;
}

async function verdictsOf(db: Db, pairs: readonly ScreenPair[]): Promise<Verdict[]> {
  const companies = pairs.map((p) => p.job.companyId).filter((c): c is string => typeof c === "string" && c !== "");
  const lists = companies.length > 0 ? await listEntriesFor(db, [...new Set(pairs.map((p) => p.feed.accountId))], companies) : new Map();
  return pairs.map(({ feed, job }) => {
    const entry = job.companyId ? (lists.get(`${feed.accountId}:${job.companyId}`) ?? null) : null;
    return verdictFor(feed.signalRules ?? {}, job.signals ?? [], entry);
  });
}

async function recordFiltered(db: Db, pairs: readonly ScreenPair[], drops: readonly Extract<Verdict, { kind: "drop" }>[]): Promise<void> {
  const rows: repo.FilteredJobRow[] = pairs.map(({ feed, job }, i) => ({
    feedId: feed.id,
    accountId: feed.accountId,
    jobCiphertext: job.jobCiphertext,
    filter: drops[i]!.filter,
    reason: drops[i]!.reason,
    atTs: job.nowTs,
  }));
  await repo.insertFilteredJobs(db, rows);
}

/** Why a job under the feed's minScore went in: its client is favoured and the feed alerts those whatever the score. */
export const FAVOURED_REASON = "favoured client: alerted whatever the score";

/**
 * Puts a job into each of these feeds, writes a `job.matched` event for each
 * target of each feed that is not muted, and starts watching the job's proposal activity;
 * call inside one transaction. A job enters a feed at most once: a feed that
 * has it already changes nothing. Returns how many feeds it entered.
 */
export async function admitJob(db: Db, feeds: readonly AdmitFeed[], job: Admission): Promise<number> {
  return (await admitJobs(db, [{ feeds, job }]))[0]!;
}

/**
 * admitJob for a batch of jobs (each with its feeds), in one statement per table: feed entries, then the
 * events of the entries that went in, in the order given (jobs, then each job's feeds, then each feed's
 * targets: webhook first, then its channels; their seq order is that order), then the tracking of the jobs
 * that entered any feed. Returns how many feeds each job entered.
 */
export async function admitJobs(
  db: Db,
  batch: readonly { feeds: readonly AdmitFeed[]; job: Admission }[],
  opts: { maxPendingPerAccount?: number } = {},
): Promise<number[]> {
  const pairs = batch.flatMap(({ feeds, job }) => feeds.map((feed) => ({ feed, job })));
  const verdicts = await verdictsOf(db, pairs);
  const under = pairs.map(({ feed, job }) => feed.minScore !== undefined && job.score < feed.minScore);
  // Kept out by its client or a signal: recorded, unless its score kept it out anyway (it would not have entered).
  const dropped = pairs.flatMap((p, i) => {
    const v = verdicts[i]!;
    return v.kind === "drop" && !under[i] ? [{ p, v }] : [];
  });
  await recordFiltered(
    db,
    dropped.map((d) => d.p),
    dropped.map((d) => d.v),
  );
  // null: the pair stays out (its client, a signal or its score).
  const entries: (repo.MatchRecord | null)[] = pairs.map(({ feed, job }, i) => {
    const verdict = verdicts[i]!;
    if (verdict.kind === "drop") return null;
    const underScore = under[i]!;
    const favouredIn = underScore && verdict.favoured && feed.alertFavoured !== false;
    if (underScore && !favouredIn) return null;
    return {
      id: newId(),
      feedId: feed.id,
      accountId: feed.accountId,
      jobCiphertext: job.jobCiphertext,
      matchingScore: job.score,
      scoreSource: job.scoreSource,
      scoreReason: favouredIn ? `${job.scoreReason ? `${job.scoreReason} · ` : ""}${FAVOURED_REASON}` : job.scoreReason,
      matchedAtTs: job.nowTs,
    };
  });
  const toInsert = entries.filter((e): e is repo.MatchRecord => e !== null);
  if (toInsert.length === 0) return batch.map(() => 0);
  const inserted = await repo.insertFeedEntries(db, toInsert);
  const events: EventInsert[] = [];
  const tracked: { ciphertext: string; document: unknown; nowTs: number }[] = [];
  const autoApply: { feedJobId: string; accountId: string }[] = [];
  let at = 0;
  const entered = batch.map(({ feeds, job }) => {
    let n = 0;
    for (const feed of feeds) {
      const entry = entries[at++];
      if (!entry || !inserted.has(entry.id)) continue;
      n++;
      // Muted or not: muting silences alerts, not the feed's own apply mode.
      if (feed.applyMode !== "alert") autoApply.push({ feedJobId: entry.id, accountId: feed.accountId });
      if (feed.notificationsMuted) continue;
      const matched = { feedJobId: entry.id, jobCiphertext: job.jobCiphertext };
      if (feed.hasWebhook) events.push(eventRow(feed, JOB_MATCHED_EVENT, WEBHOOK_TARGET, true, job.nowTs, matched));
      for (const channelId of feed.channelIds) events.push(eventRow(feed, JOB_MATCHED_EVENT, channelId, true, job.nowTs, matched));
    }
    // Once per job, not per feed: ingestion admits a new job into many feeds at a time.
    if (n > 0) tracked.push({ ciphertext: job.jobCiphertext, document: job.document, nowTs: job.nowTs });
    return n;
  });
  await capPending(db, events, opts.maxPendingPerAccount ?? MAX_PENDING_EVENTS_PER_ACCOUNT);
  await insertEvents(db, events);
  // The auto-apply task runs on the apply worker, keyed by account like submissions; written with the entries.
  if (autoApply.length > 0) await enqueueTasks(db, AUTO_APPLY_TASK, autoApply, batch[0]!.job.nowTs, { maxAttempts: 5 });
  if (tracked.length > 0) await ensureTrackedMany(db, tracked);
  return entered;
}

/** What an outcome event is about: the application's account, the feed it was applied from (if known) and its job. */
export interface OutcomeSubject {
  accountId: string;
  feedId: string | null;
  jobCiphertext: string;
}

/**
 * Writes the outcome events of one change to an application, inside the caller's transaction (the one that wrote
 * the stage), so a stage is never reached without its events nor an event written for a stage not stored. Each
 * type goes to each target (webhook, channels) of every feed the application concerns (repo.feedsOfApplication)
 * that has outcomeEvents on and is not muted, in the order of `types` per feed. The row names the job and the
 * feed's entry for it; the payload is read from the application when it is sent (delivery/outcome-payload.ts).
 * Returns how many events were written.
 */
export async function queueOutcomeEvents(
  db: Db,
  subject: OutcomeSubject,
  types: readonly OutcomeEventType[],
  nowTs: number,
  opts: { maxPendingPerAccount?: number } = {},
): Promise<number> {
  if (types.length === 0) return 0;
  const found = await repo.feedsOfApplication(db, subject.accountId, subject.feedId, subject.jobCiphertext);
  const wanted = found.filter(({ feed }) => feed.outcomeEvents && !feed.notificationsMuted);
  if (wanted.length === 0) return 0;
  const channels = await channelIdsOfFeeds(
    db,
    wanted.map(({ feed }) => feed.id),
  );
  const events: EventInsert[] = [];
  for (const { feed, feedJobId } of wanted) {
    const targets = [...(hasDeliverableWebhook(feed) ? [WEBHOOK_TARGET] : []), ...(channels.get(feed.id) ?? [])];
    for (const type of types)
      for (const target of targets) events.push(eventRow(feed, type, target, true, nowTs, { feedJobId, jobCiphertext: subject.jobCiphertext }));
  }
  if (events.length === 0) return 0; // the feeds that asked have no webhook or channel to send to
  await capPending(db, events, opts.maxPendingPerAccount ?? MAX_PENDING_EVENTS_PER_ACCOUNT);
  await insertEvents(db, events);
  return events.length;
}

/**
 * What an automation alert said when it was raised (connects.low, budget.low): kept on its events as JSON in
 * feed_job_id, since an alert is about no feed entry and the outbox has no payload column. The payload is built
 * from it when the event is sent (delivery/automation-payload.ts), so it says what crossed the threshold then.
 */
export type AlertFacts =
  | {
      kind: "balance";
      freelancerId: string;
      freelancerName: string | null;
      available: number;
      threshold: number;
      /** When the balance was read (the driver or the person), and whether Connects spent since were taken off it. */
      readAtTs: number;
      estimated: boolean;
    }
  | {
      kind: "budget";
      scope: "account" | "freelancer";
      /** The freelancer whose spending raised it; for an account's budget the one whose submission or balance was checked. */
      freelancerId: string;
      freelancerName: string | null;
      period: "day" | "week" | "month";
      periodKey: string;
      fromTs: number;
      toTs: number;
      cap: number;
      spent: number;
      threshold: number;
    };

/** The alert's facts back from an event's feed_job_id; null when it holds something else. */
export function alertFactsOf(stored: string | null): AlertFacts | null {
  if (stored === null || !stored.startsWith("{")) return null;
  try {
    const facts = JSON.parse(stored) as AlertFacts;
    return facts.kind === "balance" || facts.kind === "budget" ? facts : null;
  } catch {
    return null;
  }
}

/** Apply modes whose feeds hear of the account's Connects when no application names a feed: the ones that spend them. */
const SPENDING_MODES: readonly ApplyMode[] = ["draft", "auto"];

/**
 * Writes an automation alert's events in the caller's transaction (the one that claimed the alert, so it goes out
 * once). The feeds that carry it: the feed of the application that spent the Connects when there is one (and it
 * is still the account's), else every feed of the account in draft or auto mode; muted feeds none. Each goes to
 * the feed's webhook and channels. Returns how many events were written.
 */
export async function queueAlertEvents(
  db: Db,
  alert: { accountId: string; type: AlertEventType; facts: AlertFacts; feedId: string | null; jobCiphertext: string | null },
  nowTs: number,
  opts: { maxPendingPerAccount?: number } = {},
): Promise<number> {
  const own = alert.feedId === null ? undefined : await repo.findFeed(db, alert.accountId, alert.feedId);
  const feeds = own ? [own] : (await repo.listFeeds(db, alert.accountId)).filter((f) => SPENDING_MODES.includes(f.applyMode));
  const subject = { feedJobId: null, jobCiphertext: own ? alert.jobCiphertext : null, facts: JSON.stringify(alert.facts) };
  return queueToFeeds(db, feeds, alert.type, subject, nowTs, opts);
}

/** What a held application's event names: the account, the application's feed (if any) and its job. */
export interface HeldSubject {
  accountId: string;
  feedId: string | null;
  jobCiphertext: string;
}

/**
 * Writes `application.held` events in the transaction that holds the application (draft mode's apply, the
 * governor's hold), so nothing waits for review unannounced. To the application's feed, else the account's feeds
 * that hold the job (as outcome events), when not muted; needs no opt-in: a review request is for whoever set the
 * feed up. The payload is read from the application when sent (delivery/automation-payload.ts).
 */
export async function queueHeldEvents(db: Db, subject: HeldSubject, nowTs: number, opts: { maxPendingPerAccount?: number } = {}): Promise<number> {
  const found = await repo.feedsOfApplication(db, subject.accountId, subject.feedId, subject.jobCiphertext);
  let n = 0;
  for (const { feed, feedJobId } of found) {
    n += await queueToFeeds(db, [feed], APPLICATION_HELD_EVENT, { feedJobId, jobCiphertext: subject.jobCiphertext }, nowTs, opts);
  }
  return n;
}

/** One event of `type` per target (webhook, channels) of each unmuted feed. */
async function queueToFeeds(
  db: Db,
  feeds: readonly repo.FeedRow[],
  type: EventType,
  subject: { feedJobId: string | null; jobCiphertext: string | null; facts?: string },
  nowTs: number,
  opts: { maxPendingPerAccount?: number },
): Promise<number> {
  const wanted = feeds.filter((f) => !f.notificationsMuted);
  if (wanted.length === 0) return 0;
  const channels = await channelIdsOfFeeds(
    db,
    wanted.map((f) => f.id),
  );
  const events: EventInsert[] = [];
  for (const feed of wanted) {
    const targets = [...(hasDeliverableWebhook(feed) ? [WEBHOOK_TARGET] : []), ...(channels.get(feed.id) ?? [])];
    for (const target of targets) {
      const row = eventRow(feed, type, target, true, nowTs);
      events.push({ ...row, feedJobId: subject.feedJobId, jobCiphertext: subject.jobCiphertext, facts: subject.facts ?? null });
    }
  }
  if (events.length === 0) return 0;
  await capPending(db, events, opts.maxPendingPerAccount ?? MAX_PENDING_EVENTS_PER_ACCOUNT);
  await insertEvents(db, events);
  return events.length;
}
