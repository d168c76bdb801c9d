import type { Db } from "../../db/client";
import type { Metrics } from "../../metrics";
import type { Clock } from "../../lib/clock";
import type { Logger } from "../../lib/log";
import { retryAfterMs } from "../../lib/retry-after";
import { EgressBlockedError, safeFetch, type EgressPolicy, type Resolver } from "../../lib/ssrf";
import { sign, signedHeaders } from "../../lib/standard-webhooks";
import { PoolLoop } from "../../worker/loop";
import { JOB_MATCHED_EVENT } from "../feeds/admit";
import * as outbox from "../feeds/outbox";
import { findFeedById, findFeedJobById, noteDeliveryOutcome } from "../feeds/repo";
import { normalizeJob } from "../jobs/normalize";
import { archiveWithoutMatching } from "../jobs/archive";
import { findJob } from "../jobs/repo";
import { clientScore } from "../jobs/client-score";
import { buildJobMatchedPayload, buildTestPayload, SAMPLE_JOB_DOCUMENT, SAMPLE_JOB_SOURCE } from "./payload";
import * as repo from "./repo";
import type { WebhookPayload } from "./model";

export interface DelivererDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: {
    webhookRetryScheduleMs: number[];
    webhookTimeoutMs: number;
    webhookConcurrency: number;
    webhookDisableAfterMs: number;
    egress: EgressPolicy;
  };
  resolve?: Resolver;
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
 * Delivers the outbox. Per feed, one attempt at a time and first attempts in
 * match order (events are taken oldest first and a feed with an attempt in
 * flight is skipped this round; on PostgreSQL a feed is leased cluster-wide
 * while in flight, see outbox.claimDueEvents); an event waiting for a retry does not hold
 * back the feed's newer events. Feeds deliver concurrently up to the global
 * bound. Every attempt and the event's new state are written in one
 * transaction after the POST; a crash before that leaves the event due, so it
 * is sent again with the same webhook-id (at-least-once).
 */
/** The payload's client score: the archive's score of the same document, reduced to {score, label}. */
function withClientScore(payload: WebhookPayload, document: unknown, nowTs: number): WebhookPayload {
  const score = clientScore(document, nowTs);
  payload.client.clientScore = { score: score.score, label: score.label };
  return payload;
}

export class WebhookDeliverer extends PoolLoop {
  private readonly busyFeeds = new Set<string>();
  private bookings: { booking: repo.AttemptBooking; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private isBooking = false;

  constructor(private readonly deps: DelivererDeps) {
    super("webhooks", 250, deps.log);
  }

  /** Resolves when no event is due now and nothing is in flight (tests and benchmarks). */
  idle(timeoutMs = 10_000): Promise<void> {
    return this.waitIdle(async () => (await outbox.dueEvents(this.deps.db, this.deps.clock.now(), 1)).length === 0, timeoutMs, "webhook deliveries");
  }

  protected async round(): Promise<void> {
    const free = this.deps.config.webhookConcurrency - this.inFlight.size;
    if (free <= 0) return;
    // A few times the free slots: enough to find events of feeds that are not busy, without reading the whole backlog.
    const { db, clock, config } = this.deps;
    const claimed = await outbox.claimDueEvents(db, clock.now(), Math.max(64, free * 8), free, this.busyFeeds, feedLeaseMs(config.webhookTimeoutMs));
    for (const e of claimed.events) {
      this.busyFeeds.add(e.feedId);
      const work = this.deliver(e)
        .catch((err) => this.deps.log.error("webhook delivery crashed", { event: e.id, err: err as Error }))
        // PostgreSQL: the feed is let go only after the attempt is committed, so the next holder reads it.
        .then(() => (claimed.leaseUntilTs === null ? undefined : outbox.releaseFeeds(db, [e.feedId], claimed.leaseUntilTs)))
        .catch((err) => this.deps.log.error("webhook feed lease release failed", { feed: e.feedId, err: err as Error }));
      this.track(work, () => this.busyFeeds.delete(e.feedId));
    }
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

  private async payloadOf(e: outbox.EventRow, feed: { id: string; title: string }): Promise<unknown | null> {
    const { db, clock } = this.deps;
    if (e.type !== JOB_MATCHED_EVENT) {
      // Archived before it is sent, so a receiver can look the sample up (GET /api/v1/jobs/{ciphertext}) like any job.
      const sample = await findJob(db, await archiveWithoutMatching(db, SAMPLE_JOB_DOCUMENT, SAMPLE_JOB_SOURCE, clock.now()));
      const job = sample ? normalizeJob(sample.document) : null;
      if (!sample || !job?.ok) return null;
      return withClientScore(
        buildTestPayload({ eventId: e.id, createdAtTs: e.createdAtTs, feed, job: job.job, source: sample.source }),
        sample.document,
        clock.now(),
      );
    }
    const match = e.feedJobId ? await findFeedJobById(db, e.feedJobId) : undefined;
    const row = e.jobCiphertext ? await findJob(db, e.jobCiphertext) : undefined;
    const job = row ? normalizeJob(row.document) : null;
    if (!match || !row || !job?.ok) return null;
    const payload = buildJobMatchedPayload({
      eventId: e.id,
      createdAtTs: e.createdAtTs,
      feed,
      match: { processedJobId: match.id, matchingScore: match.matchingScore, scoreReason: match.scoreReason, matchedAtTs: match.matchedAtTs },
      job: job.job,
      source: row.source,
    });
    return withClientScore(payload, row.document, clock.now());
  }

  private async deliver(e: outbox.EventRow): Promise<void> {
    const { db, clock, config, metrics } = this.deps;
    const now = clock.now();
    const feed = await findFeedById(db, e.feedId);
    if (!feed) return; // deleted: its events went with it
    if (!feed.webhookUrl || !feed.webhookSecret || feed.webhookDisabledAtTs !== null) {
      await outbox.setEventState(db, e.seq, {
        status: "skipped",
        nextAttemptAtTs: null,
        lastError: feed.webhookDisabledAtTs ? "The webhook endpoint is disabled" : "The feed has no webhook URL",
      });
      metrics.delivery(KIND, "skipped");
      return;
    }
    // Muted means nothing is sent, including events written before the feed was muted.
    if (feed.notificationsMuted) {
      await outbox.setEventState(db, e.seq, { status: "skipped", nextAttemptAtTs: null, lastError: "Notifications are muted on this feed" });
      metrics.delivery(KIND, "skipped");
      return;
    }
    if (e.type === JOB_MATCHED_EVENT && (await outbox.deliveredRecently(db, e, now - DEDUPE_WINDOW_MS))) {
      await outbox.setEventState(db, e.seq, { status: "suppressed", nextAttemptAtTs: null, lastError: "This job already notified this feed within 24 hours" });
      metrics.delivery(KIND, "skipped");
      return;
    }
    const payload = await this.payloadOf(e, { id: feed.id, title: feed.title });
    if (payload === null) {
      await outbox.setEventState(db, e.seq, { status: "skipped", nextAttemptAtTs: null, lastError: "The matched job is no longer archived" });
      metrics.delivery(KIND, "skipped");
      return;
    }
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "jobpilot-webhooks",
      ...signedHeaders(feed.webhookSecret, e.id, body, now / 1000),
    };
    // During a secret rotation both secrets sign, so receivers can switch without dropping events.
    if (feed.webhookPreviousSecret && (feed.webhookPreviousUntilTs ?? 0) > now) {
      headers["webhook-signature"] += ` ${sign(feed.webhookPreviousSecret, e.id, Math.floor(now / 1000), body)}`;
    }
    const started = performance.now();
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    let error: string | null = null;
    let isBlocked = false;
    try {
      const res = await safeFetch(feed.webhookUrl, { method: "POST", headers, body, timeoutMs: config.webhookTimeoutMs }, config.egress, this.deps.resolve);
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
    if (error === null) {
      await this.book(e, attempt, { status: "delivered", nextAttemptAtTs: null });
      metrics.delivery(KIND, "delivered", seconds);
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
}
