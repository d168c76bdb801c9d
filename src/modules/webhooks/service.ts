import { tx, type Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { AuthContext } from "../accounts/service";
import * as outbox from "../feeds/outbox";
import { WEBHOOK_TARGET } from "../feeds/outbox";
import { isChannelOfFeed } from "../feeds/feed-channels";
import { channelLabels } from "../channels/repo";
import { findFeed } from "../feeds/repo";
import { MUTED_MESSAGE } from "../feeds/service";
import * as repo from "./repo";

export interface WebhooksDeps {
  db: Db;
  clock: Clock;
  webhookRetryScheduleMs: number[];
  wake: () => void;
}

async function requireFeed(deps: WebhooksDeps, auth: AuthContext, feedId: string) {
  const feed = await findFeed(deps.db, auth.accountId, feedId);
  if (!feed) throw notFound("Feed not found");
  return feed;
}

/** The feed's webhook events newest first, each with its attempts (extension API, also the dashboard's). */
export async function listDeliveries(deps: WebhooksDeps, auth: AuthContext, feedId: string, query: { limit?: number; offset?: number; status?: string }) {
  const feed = await requireFeed(deps, auth, feedId);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const { items, total } = await outbox.listEvents(deps.db, feedId, { limit, offset, status: query.status });
  const attempts = await repo.attemptsOf(
    deps.db,
    items.map((e) => e.seq),
  );
  const channels = await channelLabels(deps.db, [...new Set(items.filter((e) => e.target !== WEBHOOK_TARGET).map((e) => e.target))]);
  // A channel deleted since is still named by its id.
  const targetOf = (target: string) =>
    target === WEBHOOK_TARGET ? WEBHOOK_TARGET : { channelId: target, type: channels.get(target)?.type ?? null, name: channels.get(target)?.name ?? null };
  return {
    endpoint: {
      url: feed.webhookUrl,
      disabledAt: feed.webhookDisabledAtTs,
      disabledReason: feed.webhookDisabledReason,
      failingSince: feed.webhookFailingSinceTs,
    },
    deliveries: items.map((e) => ({
      eventId: e.id,
      type: e.type,
      target: targetOf(e.target),
      status: e.status,
      jobId: e.jobCiphertext,
      processedJobId: e.feedJobId,
      createdAt: e.createdAtTs,
      attempts: attempts
        .filter((a) => a.eventSeq === e.seq)
        .map((a) => ({ attempt: a.attempt, at: a.startedAtTs, durationMs: a.durationMs, statusCode: a.statusCode, error: a.error })),
      nextAttemptAt: e.nextAttemptAtTs,
      deliveredAt: e.deliveredAtTs,
      lastError: e.lastError,
    })),
    total,
    limit,
    offset,
  };
}

/** Sends an event again now: one more attempt for a failed one, or an early one for one waiting to retry. */
export async function retryDelivery(deps: WebhooksDeps, auth: AuthContext, feedId: string, eventId: string) {
  // Read and written in one transaction: a delivery finishing meanwhile cannot slip between the checks and the write.
  await tx(deps.db, async (db) => {
    const feed = await requireFeed({ ...deps, db }, auth, feedId);
    const event = await outbox.findEvent(db, feedId, eventId);
    if (!event) throw notFound("Delivery not found");
    if (event.status === "delivered") throw new AppError("conflict", "This event was already delivered");
    if (event.target === WEBHOOK_TARGET) {
      if (!feed.webhookUrl) throw new AppError("bad_request", "The feed has no webhook URL");
      if (feed.webhookDisabledAtTs !== null) throw new AppError("bad_request", "The webhook endpoint is disabled: save the webhook URL again to re-enable it");
    } else if (!(await isChannelOfFeed(db, feedId, event.target))) {
      throw new AppError("bad_request", "The event's channel is no longer on this feed (or was deleted)");
    }
    if (feed.notificationsMuted) throw new AppError("conflict", MUTED_MESSAGE);
    // Leaves room for exactly one more attempt when the retries are spent.
    await outbox.setEventState(db, event.seq, {
      status: "retrying",
      nextAttemptAtTs: deps.clock.now(),
      attempts: Math.min(event.attempts, deps.webhookRetryScheduleMs.length),
    });
  });
  deps.wake();
  return { queued: true as const, eventId };
}
