import { tx, type Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { AuthContext } from "../accounts/service";
import { isAlertEvent } from "../feeds/admit";
import * as outbox from "../feeds/outbox";
import * as digests from "../feeds/outbox-digests";
import { WEBHOOK_TARGET } from "../feeds/outbox";
import { feedsOfChannel, isChannelOfFeed } from "../feeds/feed-channels";
import { channelLabels, findChannel } from "../channels/repo";
import { findFeed } from "../feeds/repo";
import { MUTED_MESSAGE } from "../feeds/service";
import { openWebhookOrNull } from "../feeds/webhook-seal";
import * as repo from "./repo";

export interface WebhooksDeps {
  db: Db;
  clock: Clock;
  webhookRetryScheduleMs: number[];
  wake: () => void;
  /** Opens the feed's sealed webhook URL (feeds/webhook-seal.ts). */
  secretKey: string | null;
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
  // An alert that went in a digest names it; a digest says how many alerts it carries.
  const inDigests = [...new Set(items.flatMap((e) => (e.digestSeq === null ? [] : [Number(e.digestSeq)])))];
  const digestIds = await digests.digestIds(deps.db, inDigests);
  const digestSizes = await digests.digestSizes(
    deps.db,
    items.filter((e) => e.type === digests.DIGEST_EVENT).map((e) => e.seq),
  );
  const channels = await channelLabels(deps.db, [...new Set(items.filter((e) => e.target !== WEBHOOK_TARGET).map((e) => e.target))]);
  // A channel deleted since is still named by its id.
  const targetOf = (target: string) =>
    target === WEBHOOK_TARGET ? WEBHOOK_TARGET : { channelId: target, type: channels.get(target)?.type ?? null, name: channels.get(target)?.name ?? null };
  return {
    endpoint: {
      // Unreadable under this key: shown as none; the deliveries' errors say why.
      url: (await openWebhookOrNull(deps.secretKey, feed))?.webhookUrl ?? null,
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
      // An alert's row keeps its facts there (feeds/admit.ts AlertFacts), not a feed entry.
      processedJobId: isAlertEvent(e.type) ? null : e.feedJobId,
      createdAt: e.createdAtTs,
      attempts: attempts
        .filter((a) => a.eventSeq === e.seq)
        .map((a) => ({ attempt: a.attempt, at: a.startedAtTs, durationMs: a.durationMs, statusCode: a.statusCode, error: a.error })),
      nextAttemptAt: e.nextAttemptAtTs,
      deliveredAt: e.deliveredAtTs,
      lastError: e.lastError,
      digestEventId: e.digestSeq === null ? null : (digestIds.get(Number(e.digestSeq)) ?? null),
      ...(e.type === digests.DIGEST_EVENT ? { digestSize: digestSizes.get(e.seq) ?? 0 } : {}),
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
    if (event.status === "held" || event.status === "in_digest") {
      throw new AppError("conflict", "This alert waits for its channel's digest (digest mode or quiet hours); retry the digest event instead once it exists");
    }
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

/**
 * The newest events sent (or to be sent) to one of the account's channels, through the feeds it is on now,
 * newest first: the dashboard's channel page.
 */
export async function listChannelDeliveries(deps: Pick<WebhooksDeps, "db">, auth: AuthContext, channelId: string, limit: number) {
  const { db } = deps;
  if (!(await findChannel(db, auth.accountId, channelId))) throw notFound("Channel not found");
  const feedIds = await feedsOfChannel(db, channelId);
  const titles = new Map<string, string>();
  const items: outbox.EventRow[] = [];
  for (const feedId of feedIds) {
    const feed = await findFeed(db, auth.accountId, feedId);
    if (!feed) continue;
    titles.set(feedId, feed.title);
    items.push(...(await outbox.recentEventsTo(db, feedId, channelId, limit)));
  }
  const newest = items.sort((a, b) => b.seq - a.seq).slice(0, limit);
  const sizes = await digests.digestSizes(
    db,
    newest.filter((e) => e.type === digests.DIGEST_EVENT).map((e) => e.seq),
  );
  return newest.map((e) => ({
    eventId: e.id,
    feedId: e.feedId,
    feedTitle: titles.get(e.feedId) ?? "",
    type: e.type,
    status: e.status,
    jobId: e.jobCiphertext,
    createdAt: e.createdAtTs,
    deliveredAt: e.deliveredAtTs,
    nextAttemptAt: e.nextAttemptAtTs,
    attempts: e.attempts,
    lastError: e.lastError,
    digestSize: e.type === digests.DIGEST_EVENT ? (sizes.get(e.seq) ?? 0) : null,
  }));
}
