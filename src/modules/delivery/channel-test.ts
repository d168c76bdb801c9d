/**
 * POST /api/v1/channels/{id}/test: the archived sample job rendered for the
 * channel and sent now, through the same code the deliverer uses (its routes
 * are in index.ts). It lives with the deliverer, not in modules/channels,
 * because it is a delivery: the sample payload and the sending are here.
 */
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import type { Db } from "../../db/client";
import { newId } from "../../lib/ids";
import type { AuthContext } from "../accounts/service";
import type { Pacer } from "../channels/pace";
import { findChannel, noteChannelOutcome } from "../channels/repo";
import type { ChannelTarget } from "../channels/model";
import type { ChannelTestResult } from "../channels/http-model";
import type { ChannelSender } from "./channel-delivery";
import { samplePayload } from "../feeds/outbox-event-payload";

export interface ChannelTestDeps {
  db: Db;
  clock: Clock;
  channelPacer: Pacer;
}

/**
 * Sends the sample alert to the caller's channel now and says what came of it (200 either way; `ok` tells).
 * Within the platform's pace like every alert: a channel sent to a moment ago answers 429 with Retry-After.
 */
export async function sendChannelTest(deps: ChannelTestDeps, sender: ChannelSender, auth: AuthContext, channelId: string): Promise<ChannelTestResult> {
  const { db, clock, channelPacer: pacer } = deps;
  const row = await findChannel(db, auth.accountId, channelId);
  if (!row) throw notFound("Channel not found");
  let channel: ChannelTarget;
  try {
    channel = await sender.open(row);
  } catch (err) {
    return { ok: false, statusCode: null, error: (err as Error).message, retryAfterMs: null, durationMs: 0 };
  }
  const now = clock.now();
  const buckets = sender.buckets(channel);
  const waitMs = pacer.reserve(buckets, now);
  if (waitMs > 0) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError(
      "rate_limited",
      `This channel was sent to a moment ago; its platform allows the next message in ${seconds} s`,
      {},
      { "retry-after": String(seconds) },
    );
  }
  const payload = await samplePayload(db, clock, { eventId: `evt_${newId()}`, createdAtTs: now, feed: { id: row.id, title: `Test alert for ${row.name}` } });
  if (payload === null) throw new AppError("internal", "the sample job could not be archived");
  const outcome = await sender.send(channel, payload);
  if (outcome.retryAfterMs !== null) pacer.hold(buckets, clock.now() + outcome.retryAfterMs);
  await noteChannelOutcome(
    db,
    row.id,
    outcome.ok ? { deliveredAtTs: now + outcome.durationMs } : { error: outcome.error ?? "the platform refused the message" },
  );
  return {
    ok: outcome.ok,
    statusCode: outcome.statusCode,
    error: outcome.error,
    retryAfterMs: outcome.retryAfterMs,
    ...(outcome.messageId === undefined ? {} : { messageId: outcome.messageId }),
    durationMs: outcome.durationMs,
  };
}
