import type { Db } from "../../db/client";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import { retryAfterMs } from "../../lib/retry-after";
import { EgressBlockedError, safeFetch, type EgressPolicy, type Resolver } from "../../lib/ssrf";
import { sign, signedHeaders } from "../../lib/standard-webhooks";
import { PoolLoop } from "../../worker/loop";
import { isAlertEvent, isOutcomeEvent, JOB_MATCHED_EVENT } from "../feeds/admit";
import * as outbox from "../feeds/outbox";
import { WEBHOOK_TARGET } from "../feeds/outbox";
import { type FairCursor, hasDueWork, newFairCursor, pauseKeyOf } from "../feeds/outbox-fair";
import { findFeedById, noteDeliveryOutcome, type FeedRow } from "../feeds/repo";
import { type OpenedCache, openWebhook, type WebhookValues, WebhookSealError } from "../feeds/webhook-seal";
import { eventPayload } from "../feeds/outbox-event-payload";
import { type EventPayload, isOutcomePayload } from "../feeds/outbox-payload";
import { OUTCOME_GONE, outcomePayload } from "./outcome-payload";
import { ALERT_UNREADABLE, automationPayload, HELD_GONE, isAutomationEvent } from "./automation-payload";
import { isAutomationPayload } from "../feeds/outbox-payload-automation";
import { alertValueLine } from "../value/service";
import { ChannelSender } from "./channel-delivery";
import type { ChannelMessage, ChannelTarget } from "../channels/model";
import type { Pacer } from "../channels/pace";
import { findChannelById, noteChannelOutcome } from "../channels/repo";
import { isChannelOfFeed } from "../feeds/feed-channels";
import { closeWindow, DIGEST_EVENT, endedWindows, holdEvent, isHeldAlready, skipDigest } from "../feeds/outbox-digests";
import { holdUntil } from "../channels/schedule";
import { digestMessage } from "./channel-digest";
import * as repo from "./repo";

export interface DelivererDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: {
    webhookRetryScheduleMs: number[];
    webhookTimeoutMs: number;
    webhookConcurrency: number;
    /** Deliveries one account may have in flight at once (accountConcurrency of the two settings). */
    webhookAccountConcurrency: number;
    webhookDisableAfterMs: number;
    egress: EgressPolicy;
    telegramApiUrl: string;
    /** Where alerts link to the job's dashboard page; null: no link. */
    dashboardBaseUrl: string | null;
    /** JOBPILOT_CONNECT_PRICE_USD: an outcome event's connectsCostUsd. */
    connectPriceUsd: number;
  };
  resolve?: Resolver;
  /** Opens the channels' sealed settings and the feeds' sealed webhook URLs and secrets (deps.secretKey). */
  secretKey: string | null;
  /** The process's pace of sends per platform limit (deps.channelPacer). */
  pacer: Pacer;
  metrics: Metrics;
}

/** The deliveries' kind label on the shared delivery metrics (notification channels count under their own). */
const KIND = "webhook";

const DEDUPE_WINDOW_MS = 24 * 3_600_000;

/**
 * How long a node holds a feed (PostgreSQL) while it sends one of its events: well past the receiver's
 * timeout, so a live node never loses it mid-delivery; a dead node's feeds are free again after this.
 */
export function feedLeaseMs(webhookTimeoutMs: number): number {
  return Math.max(5_000, 3 * webhookTimeoutMs);
}

/**
 * An account's share of the delivery slots: JOBPILOT_WEBHOOK_ACCOUNT_CONCURRENCY when set (above 0), else a
 * quarter of JOBPILOT_WEBHOOK_CONCURRENCY (at least 1), so one account's slow receivers or backlog leave
 * three quarters of the slots to the others.
 */
export function accountConcurrency(webhookConcurrency: number, setting: number): number {
  return setting > 0 ? Math.min(setting, webhookConcurrency) : Math.max(1, Math.floor(webhookConcurrency / 4));
}

/** Consecutive timeouts (or refused connections) of one webhook that open its breaker. */
export const BREAKER_FAILURES = 3;

/** Index seeks one account's walk may make per pick (outbox-fair.ts): the bound on a pick's cost. */
const SEEKS_PER_ACCOUNT = 64;

/** The wait before retry n (1-based) after a failure; Retry-After on 429/503 is honoured within [delay, 2×delay]. */
function retryDelay(scheduleMs: number[], failedAttempts: number, statusCode: number | null, retryAfter: string | null, nowTs: number): number | null {
  const base = scheduleMs[failedAttempts - 1];
  if (base === undefined) return null;
  if (statusCode === 429 || statusCode === 503) {
    const asked = retryAfterMs(retryAfter, nowTs);
    if (asked !== null) return Math.min(2 * base, Math.max(base, asked));
  }
  return base;
}

/**
 * Delivers the outbox: each event to its target, the feed's webhook or one of
 * its notification channels. Per (feed, target), one attempt at a time and
 * first attempts in match order (events are taken oldest first and a target
 * with an attempt in flight is skipped this round; on PostgreSQL a feed is
 * leased cluster-wide while any of its events is in flight, see
 * outbox.claimDueEvents). A webhook event waiting for a retry does not hold
 * back the feed's newer events; a channel's does (outbox.channelHead). A
 * channel whose platform pace says wait is paused, not slept on: its event
 * stays due and the loop is woken when the wait is over. Targets deliver
 * concurrently up to the global bound. Every attempt and the event's new
 * state are written in one transaction after the send; a crash before that
 * leaves the event due, so it is sent again with the same event id
 * (at-least-once).
 */
export class WebhookDeliverer extends PoolLoop {
  /** Target keys (outbox.targetKey) with an event in flight: one at a time each. */
  private readonly busyKeys = new Set<string>();
  /** Per feed, events in flight and (PostgreSQL) the lease they were claimed under: let go with the last one. */
  private readonly feedsInFlight = new Map<string, { count: number; leaseUntilTs: number | null }>();
  /** Channels not to send to before the given time (their pace, or their head event's retry). */
  private readonly pausedUntil = new Map<string, number>();
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeAtTs = Number.POSITIVE_INFINITY;
  private bookings: { booking: repo.AttemptBooking; resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Deliveries in flight per account: each may have accountConcurrency() at once. */
  private readonly accountsInFlight = new Map<string, number>();
  /** Where the last fair pick left off (outbox-fair.ts). */
  private readonly cursor: FairCursor = newFairCursor();
  /** Per webhook (its feed id): timeouts in a row, and whether its breaker is open (it is paused meanwhile). */
  private readonly breakers = new Map<string, { failures: number; isOpen: boolean }>();
  private isBooking = false;
  /** The feeds' webhook values opened, by envelope: a feed's next event opens nothing again. */
  private readonly openedWebhooks: OpenedCache = new Map();

  private readonly channels: ChannelSender;

  constructor(private readonly deps: DelivererDeps) {
    super("webhooks", 250, deps.log);
    const { config } = deps;
    this.channels = new ChannelSender({
      clock: deps.clock,
      secretKey: deps.secretKey,
      pacer: deps.pacer,
      egress: config.egress,
      resolve: deps.resolve,
      config: { timeoutMs: config.webhookTimeoutMs, telegramApiUrl: config.telegramApiUrl, dashboardBaseUrl: config.dashboardBaseUrl },
    });
  }

  /**
   * Resolves when nothing is in flight and nothing can be sent now: no event is due but those of channels
   * paused for their pace or a retry (tests and benchmarks; with a test clock, move it to send those).
   */
  idle(timeoutMs = 10_000): Promise<void> {
    return this.waitIdle(
      async () => {
        const now = this.deps.clock.now();
        if ((await endedWindows(this.deps.db, now, 1)).length > 0) return false;
        const paused = this.pausedTargets(now);
        return !(await hasDueWork(this.deps.db, now, (feedId, target) => paused.has(pauseKeyOf(feedId, target))));
      },
      timeoutMs,
      "webhook deliveries",
    );
  }

  override async stop(): Promise<void> {
    await super.stop();
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
  }

  protected async round(): Promise<void> {
    const free = this.deps.config.webhookConcurrency - this.inFlight.size;
    if (free <= 0) return;
    // A few times the free slots: enough to find events of feeds that are not busy, without reading the whole backlog.
    const { db, clock, config } = this.deps;
    const now = clock.now();
    // Held alerts whose digest is due become digest events first, so this round can claim them.
    for (const w of await endedWindows(db, now, 64)) await closeWindow(db, w.feedId, w.target, now);
    const perAccount = accountConcurrency(config.webhookConcurrency, config.webhookAccountConcurrency);
    const claimed = await outbox.claimDueEvents(
      db,
      now,
      SEEKS_PER_ACCOUNT,
      free,
      this.busyKeys,
      feedLeaseMs(config.webhookTimeoutMs),
      this.pausedTargets(now),
      {
        cursor: this.cursor,
        roomOf: (accountId) => perAccount - (this.accountsInFlight.get(accountId) ?? 0),
      },
    );
    for (const [target, untilTs] of claimed.pauses) this.pause(target, untilTs);
    for (const e of claimed.events) {
      const key = outbox.targetKey(e.feedId, e.target);
      this.busyKeys.add(key);
      this.accountsInFlight.set(e.accountId, (this.accountsInFlight.get(e.accountId) ?? 0) + 1);
      const held = this.feedsInFlight.get(e.feedId);
      if (held) held.count++;
      else this.feedsInFlight.set(e.feedId, { count: 1, leaseUntilTs: claimed.leaseUntilTs });
      const work = this.deliver(e)
        .catch((err) => this.deps.log.error("webhook delivery crashed", { event: e.id, err: err as Error }))
        // PostgreSQL: the feed is let go only after its last attempt in flight is committed, so the next holder reads it.
        .then(() => this.letGoOf(e.feedId))
        .catch((err) => this.deps.log.error("webhook feed lease release failed", { feed: e.feedId, err: err as Error }));
      this.track(work, () => {
        this.busyKeys.delete(key);
        const n = (this.accountsInFlight.get(e.accountId) ?? 1) - 1;
        if (n > 0) this.accountsInFlight.set(e.accountId, n);
        else this.accountsInFlight.delete(e.accountId);
      });
    }
  }

  private async letGoOf(feedId: string): Promise<void> {
    const held = this.feedsInFlight.get(feedId)!;
    if (--held.count > 0) return;
    this.feedsInFlight.delete(feedId);
    if (held.leaseUntilTs !== null) await outbox.releaseFeeds(this.deps.db, [feedId], held.leaseUntilTs);
  }

  /** The channels paused at `nowTs`; those whose pause is over are forgotten. */
  private pausedTargets(nowTs: number): Set<string> {
    const paused = new Set<string>();
    for (const [target, untilTs] of this.pausedUntil) {
      if (untilTs > nowTs) paused.add(target);
      else this.pausedUntil.delete(target);
    }
    return paused;
  }

  /**
   * Sends nothing to `target` before `untilTs`, and wakes the loop then: a waiting event is not held in
   * flight (nor slept on), so it blocks no other target, and goes as soon as its time comes.
   */
  private pause(target: string, untilTs: number): void {
    this.pausedUntil.set(target, Math.max(this.pausedUntil.get(target) ?? 0, untilTs));
    if (untilTs >= this.wakeAtTs) return;
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeAtTs = untilTs;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.wakeAtTs = Number.POSITIVE_INFINITY;
        this.notify();
      },
      Math.max(0, untilTs - this.deps.clock.now()),
    );
    this.wakeTimer.unref?.();
  }

  /**
   * Books a delivery's attempt together with the others that end in the same turn of the event loop: one
   * commit (one fsync on SQLite) for the lot instead of one each. Resolves once this one is committed; the
   * feed stays busy (and on PostgreSQL leased) until then, so per-feed order is as with one commit each, and a
   * crash before the commit leaves the event due, to go out again with the same webhook-id (at-least-once).
   */
  private book(e: outbox.EventRow, attempt: repo.AttemptBooking["attempt"], next: repo.AttemptBooking["next"]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.bookings.push({ booking: { e, attempt, next }, resolve, reject });
      if (!this.isBooking) {
        this.isBooking = true;
        setImmediate(() => void this.flushBookings());
      }
    });
  }

  private async flushBookings(): Promise<void> {
    const { db } = this.deps;
    // Bookings that arrive while this batch commits (e.g. waiting for an ingest transaction) make the next one.
    while (this.bookings.length > 0) {
      const batch = this.bookings.splice(0);
      try {
        await repo.recordAttempts(
          db,
          batch.map((b) => b.booking),
        );
        for (const b of batch) b.resolve();
      } catch {
        // One bad row (its event deleted with its feed mid-delivery) must not sink the others: one by one.
        for (const b of batch) await repo.recordAttempts(db, [b.booking]).then(b.resolve, b.reject);
      }
    }
    this.isBooking = false;
  }

  private async deliver(e: outbox.EventRow): Promise<void> {
    const feed = await findFeedById(this.deps.db, e.feedId);
    if (!feed) return; // deleted: its events went with it
    if (e.target === WEBHOOK_TARGET) return this.deliverToWebhook(e, feed);
    return this.deliverToChannel(e, feed);
  }

  private async deliverToWebhook(e: outbox.EventRow, feed: FeedRow): Promise<void> {
    const { db, clock, config, metrics } = this.deps;
    const now = clock.now();
    if (!feed.webhookUrl || !feed.webhookSecret || feed.webhookDisabledAtTs !== null) {
      return this.skip(e, KIND, "skipped", feed.webhookDisabledAtTs ? "The webhook endpoint is disabled" : "The feed has no webhook URL");
    }
    // Muted means nothing is sent, including events written before the feed was muted.
    if (feed.notificationsMuted) return this.skip(e, KIND, "skipped", "Notifications are muted on this feed");
    if (e.type === JOB_MATCHED_EVENT && (await outbox.deliveredRecently(db, e, now - DEDUPE_WINDOW_MS)))
      return this.skip(e, KIND, "suppressed", "This job already notified this feed within 24 hours");
    let hook: WebhookValues;
    try {
      hook = await openWebhook(this.deps.secretKey, feed, this.openedWebhooks);
    } catch (err) {
      if (!(err instanceof WebhookSealError)) throw err;
      // Not worth retrying: the values stay unreadable until the key is restored or the URL saved again.
      return this.failUnreadable(e, feed, err.message);
    }
    const { webhookUrl: url, webhookSecret: secret, webhookPreviousSecret: previousSecret } = hook;
    if (!url || !secret) return this.skip(e, KIND, "skipped", "The feed has no webhook URL");
    const payload = await this.payloadOf(e, feed);
    if (payload === null) return this.skip(e, KIND, "skipped", goneReason(e.type));
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "jobpilot-webhooks",
      ...signedHeaders(secret, e.id, body, now / 1000),
    };
    // During a secret rotation both secrets sign, so receivers can switch without dropping events.
    if (previousSecret && (feed.webhookPreviousUntilTs ?? 0) > now) {
      headers["webhook-signature"] += ` ${sign(previousSecret, e.id, Math.floor(now / 1000), body)}`;
    }
    const started = performance.now();
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    let error: string | null = null;
    let isBlocked = false;
    try {
      const res = await safeFetch(url, { method: "POST", headers, body, timeoutMs: config.webhookTimeoutMs }, config.egress, this.deps.resolve);
      const code = res.status;
      statusCode = code;
      retryAfter = res.headers.get("retry-after");
      await res.body?.cancel().catch(() => {});
      if (code < 200 || code >= 300) error = code >= 300 && code < 400 ? `HTTP ${code} (redirects are not followed)` : `HTTP ${code}`;
    } catch (err) {
      const name = (err as Error)?.name;
      if (err instanceof EgressBlockedError) {
        error = `blocked: ${(err as Error).message}`;
        isBlocked = true;
      } else if (name === "TimeoutError" || name === "AbortError") error = `no answer within ${config.webhookTimeoutMs} ms`;
      else error = `connection failed: ${(err as Error)?.message ?? String(err)}`;
    }
    const seconds = (performance.now() - started) / 1000;
    const attempt = { startedAtTs: now, durationMs: Math.round(seconds * 1000), statusCode, error };
    this.noteAnswer(feed.id, statusCode !== null || isBlocked);
    if (error === null) {
      await this.book(e, attempt, { status: "delivered", nextAttemptAtTs: null });
      metrics.delivery(KIND, "delivered", seconds);
      this.observeAlerted(e, payload, attempt.startedAtTs + attempt.durationMs);
      if (feed.webhookFailingSinceTs !== null) await noteDeliveryOutcome(db, feed.id, true, now, config.webhookDisableAfterMs, "");
      return;
    }
    const failedAt = clock.now();
    // A refused destination is refused again on every retry: the event fails now (the attempt's error says "blocked").
    const delay = isBlocked ? null : retryDelay(config.webhookRetryScheduleMs, e.attempts + 1, statusCode, retryAfter, failedAt);
    if (delay !== null) {
      await this.book(e, attempt, { status: "retrying", nextAttemptAtTs: failedAt + delay });
      metrics.delivery(KIND, "retry", seconds);
      return;
    }
    await this.book(e, attempt, { status: "failed", nextAttemptAtTs: null });
    metrics.delivery(KIND, "failed", seconds);
    const state = await noteDeliveryOutcome(db, feed.id, false, failedAt, config.webhookDisableAfterMs, error);
    this.deps.log.warn(isBlocked ? "webhook event failed: the address is blocked" : "webhook event failed after all retries", {
      event: e.id,
      feed: feed.id,
      error,
      endpoint: state,
    });
  }

  /** Fails an event whose feed's webhook values this key cannot open: one attempt saying so, and the endpoint's failing streak. */
  private async failUnreadable(e: outbox.EventRow, feed: FeedRow, error: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.book(e, { startedAtTs: now, durationMs: 0, statusCode: null, error }, { status: "failed", nextAttemptAtTs: null });
    this.deps.metrics.delivery(KIND, "failed");
    await noteDeliveryOutcome(this.deps.db, feed.id, false, now, this.deps.config.webhookDisableAfterMs, error);
    this.deps.log.warn("webhook event failed: the feed's webhook URL and secret cannot be opened", { event: e.id, feed: feed.id, error });
  }

  /**
   * The webhook's breaker. A receiver that answers (any status) closes it. One that does not (timeout,
   * refused connection) BREAKER_FAILURES times in a row opens it: the webhook is paused for the retry
   * schedule's first delay, so a slow receiver holds at most one slot (one delivery per target at a time)
   * and only now and then, instead of one for every new event. Its events stay due and keep their attempts;
   * the failed ones retry per the schedule. When the pause ends one event goes (half-open): an answer closes
   * the breaker, another timeout opens it again at once. Kept per process: on PostgreSQL each node has its own.
   */
  private noteAnswer(feedId: string, isAnswered: boolean): void {
    if (isAnswered) {
      this.breakers.delete(feedId);
      return;
    }
    const b = this.breakers.get(feedId) ?? { failures: 0, isOpen: false };
    b.failures++;
    this.breakers.set(feedId, b);
    if (b.isOpen || b.failures >= BREAKER_FAILURES) {
      b.isOpen = true;
      const cooldownMs = this.deps.config.webhookRetryScheduleMs[0] ?? 30_000;
      this.pause(feedId, this.deps.clock.now() + cooldownMs);
      this.deps.log.warn("webhook breaker open: the receiver does not answer", { feed: feedId, failures: b.failures, pausedForMs: cooldownMs });
    }
  }

  /** Whether the webhook's breaker is open (tests and the doctor's word for it). */
  isBreakerOpen(feedId: string): boolean {
    return this.breakers.get(feedId)?.isOpen ?? false;
  }

  /** Ends an event without an attempt: it will not be sent (and says why); a digest's alerts with it. */
  private async skip(e: outbox.EventRow, kind: string, status: "skipped" | "suppressed", why: string): Promise<void> {
    if (e.type === DIGEST_EVENT) await skipDigest(this.deps.db, e.seq, why);
    else await outbox.setEventState(this.deps.db, e.seq, { status, nextAttemptAtTs: null, lastError: why });
    this.deps.metrics.delivery(kind, "skipped");
  }

  /** The body of a job's event or of a proposal's (outcome) event, read now; null when what it is about is gone. */
  private payloadOf(e: outbox.EventRow, feed: FeedRow): Promise<EventPayload | null> {
    const about = { id: feed.id, title: feed.title };
    if (isOutcomeEvent(e.type)) return outcomePayload(this.deps.db, e, about, this.deps.config.connectPriceUsd);
    if (isAutomationEvent(e.type)) return automationPayload(this.deps.db, e, about, this.deps.config.dashboardBaseUrl);
    return eventPayload(this.deps.db, this.deps.clock, e, { ...about, accountId: feed.accountId });
  }

  /**
   * The channel's message for the event: the job's alert, a proposal's outcome alert, or the digest's list; null
   * when there is nothing left to say. The alert hands back its payload too, for the speed-to-lead histogram once
   * it is delivered.
   */
  private async messageOf(e: outbox.EventRow, feed: FeedRow, channel: ChannelTarget): Promise<{ message: ChannelMessage; payload?: EventPayload } | null> {
    if (e.type === DIGEST_EVENT) {
      const message = await digestMessage(this.deps, this.channels, channel, e, { id: feed.id, title: feed.title, accountId: feed.accountId });
      return message === null ? null : { message };
    }
    const payload = await this.payloadOf(e, feed);
    if (payload === null) return null;
    if (isOutcomePayload(payload)) return { message: this.channels.renderOutcome(channel.type, payload), payload };
    if (isAutomationPayload(payload)) return { message: this.channels.renderAutomation(channel.type, payload), payload };
    // The value line is the feed's account's (its own outcomes); a test alert's sample job is worth nothing to anyone.
    const value = e.type === JOB_MATCHED_EVENT ? await alertValueLine(this.deps, feed.accountId, payload) : null;
    return { message: this.channels.render(channel.type, payload, value), payload };
  }

  /** A job's alert reached a target at `atTs`: publish → alerted, by the job's source (test and outcome events are no job's alert). */
  private observeAlerted(e: outbox.EventRow, payload: EventPayload | undefined, atTs: number): void {
    if (e.type !== JOB_MATCHED_EVENT || !payload || isOutcomePayload(payload) || isAutomationPayload(payload) || payload.publishTime === null) return;
    this.deps.metrics.observeSpeed("alerted", payload.source, Date.parse(payload.publishTime), atTs);
  }

  /**
   * One attempt to send an event to one of the feed's channels. A channel that must wait (its platform's
   * pace) is paused and the event left due, untouched: it goes when the pause ends, before the channel's
   * newer events (outbox.channelHead), and waits for nothing else.
   */
  private async deliverToChannel(e: outbox.EventRow, feed: FeedRow): Promise<void> {
    const { db, clock, config, pacer, metrics } = this.deps;
    // Counted by platform (the metrics' `kind`); an event whose channel is gone counts as "channel".
    const row = await findChannelById(db, e.target);
    const kind = row?.type ?? "channel";
    if (feed.notificationsMuted) return this.skip(e, kind, "skipped", "Notifications are muted on this feed");
    if (!row) return this.skip(e, kind, "skipped", "The channel was deleted");
    if (!(await isChannelOfFeed(db, feed.id, row.id))) return this.skip(e, kind, "skipped", "The channel is no longer on this feed");
    const now = clock.now();
    if (e.type === JOB_MATCHED_EVENT) {
      const why = "This job already notified this channel of this feed within 24 hours";
      if (await outbox.deliveredRecently(db, e, now - DEDUPE_WINDOW_MS)) return this.skip(e, kind, "suppressed", why);
      // Digest mode or quiet hours: held for the digest (feeds/outbox-digests.ts), which goes when this says.
      const untilTs = holdUntil(row, now);
      if (untilTs !== null) {
        if (await isHeldAlready(db, e)) return this.skip(e, kind, "suppressed", why);
        return holdEvent(db, e.seq, untilTs);
      }
    }
    let channel: ChannelTarget;
    try {
      channel = await this.channels.open(row);
    } catch (err) {
      // Not worth retrying: the settings stay unreadable until the key is restored or the channel saved again.
      const error = (err as Error).message;
      await this.book(e, { startedAtTs: now, durationMs: 0, statusCode: null, error }, { status: "failed", nextAttemptAtTs: null });
      await noteChannelOutcome(db, row.id, { error });
      metrics.delivery(kind, "failed");
      return;
    }
    const buckets = this.channels.buckets(channel);
    const waitMs = pacer.waitMs(buckets, now);
    if (waitMs > 0) return this.pause(e.target, now + waitMs);
    const made = await this.messageOf(e, feed, channel);
    if (made === null) return this.skip(e, kind, "skipped", e.type === DIGEST_EVENT ? "None of the digest's jobs is archived any more" : goneReason(e.type));
    // Asked again at the last moment: another delivery may have taken the slot while the message was made.
    const startedAtTs = clock.now();
    const stillWaitMs = pacer.reserve(buckets, startedAtTs);
    if (stillWaitMs > 0) return this.pause(e.target, startedAtTs + stillWaitMs);
    const outcome = await this.channels.sendMessage(channel, made.message);
    const attempt = { startedAtTs, durationMs: outcome.durationMs, statusCode: outcome.statusCode, error: outcome.error };
    const seconds = outcome.durationMs / 1000;
    if (outcome.ok) {
      await this.book(e, attempt, { status: "delivered", nextAttemptAtTs: null });
      await noteChannelOutcome(db, row.id, { deliveredAtTs: startedAtTs + outcome.durationMs });
      metrics.delivery(kind, "delivered", seconds);
      this.observeAlerted(e, made.payload, startedAtTs + outcome.durationMs);
      return;
    }
    const failedAt = clock.now();
    const error = outcome.error ?? "the platform refused the message";
    // The platform's own word on when to come back wins over the schedule, and holds every send to that limit.
    if (outcome.retryAfterMs !== null) pacer.hold(buckets, failedAt + outcome.retryAfterMs);
    const scheduled = config.webhookRetryScheduleMs[e.attempts];
    const delay = !outcome.isRetryable || scheduled === undefined ? null : (outcome.retryAfterMs ?? scheduled);
    if (delay !== null) {
      await this.book(e, attempt, { status: "retrying", nextAttemptAtTs: failedAt + delay });
      metrics.delivery(kind, "retry", seconds);
      // The channel's newer events wait behind this one (channelHead): no need to look at them before then.
      this.pause(e.target, failedAt + delay);
    } else {
      await this.book(e, attempt, { status: "failed", nextAttemptAtTs: null });
      metrics.delivery(kind, "failed", seconds);
      this.deps.log.warn("channel event failed", { event: e.id, feed: feed.id, channel: row.id, type: row.type, error });
    }
    await noteChannelOutcome(db, row.id, { error });
  }
}

/** Why an event whose payload cannot be built is skipped, in the words of what it was about. */
function goneReason(type: string): string {
  if (isOutcomeEvent(type)) return OUTCOME_GONE;
  if (isAlertEvent(type)) return ALERT_UNREADABLE;
  if (isAutomationEvent(type)) return HELD_GONE;
  return "The matched job is no longer archived";
}
