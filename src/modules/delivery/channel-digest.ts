/**
 * A digest event's message (see feeds/outbox-digests.ts for how a digest
 * comes to be): its alerts' jobs read from the archive as they are now, the
 * best DIGEST_TOP_N by matching score listed, the rest counted as "and K
 * more" with a link to the feed in the dashboard. A digest of one job is sent
 * as that job's ordinary alert, which says more than a list of one.
 */
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { ChannelMessage, ChannelTarget } from "../channels/model";
import { digestMembers } from "../feeds/outbox-digests";
import type { EventRow } from "../feeds/outbox";
import type { ChannelSender } from "./channel-delivery";
import { markFavoured, unmarkedEventPayload } from "../feeds/outbox-event-payload";
import type { WebhookPayload } from "../feeds/outbox-payload";
import { alertValueLine } from "../value/service";

/** Jobs a digest lists; the others of its window are "and K more". */
export const DIGEST_TOP_N = 10;

/** The digest's message, or null when none of its jobs is archived any more (nothing to say). */
export async function digestMessage(
  deps: { db: Db; clock: Clock; config: { connectPriceUsd: number } },
  sender: ChannelSender,
  channel: ChannelTarget,
  digest: Pick<EventRow, "seq">,
  feed: { id: string; title: string; accountId: string },
): Promise<ChannelMessage | null> {
  const members = await digestMembers(deps.db, digest.seq);
  const shown: WebhookPayload[] = [];
  let at = 0;
  // Best first; a job gone from the archive is passed over for the next one.
  for (; at < members.length && shown.length < DIGEST_TOP_N; at++) {
    const payload = await unmarkedEventPayload(deps.db, deps.clock, members[at]!, { id: feed.id, title: feed.title });
    if (payload !== null) shown.push(payload);
  }
  if (shown.length === 0) return null;
  // One read of the client lists for all the jobs shown, not one per job.
  await markFavoured(deps.db, feed.accountId, shown);
  const more = members.length - at;
  // As an ordinary alert it carries the value line too (a list's one-line summaries have no room for it).
  if (shown.length === 1 && more === 0) return sender.render(channel.type, shown[0]!, await alertValueLine(deps, feed.accountId, shown[0]!));
  return sender.digestMessage(channel, shown, more, feed.id);
}
