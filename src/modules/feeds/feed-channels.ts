/**
 * Queries of `feed_channels`: which notification channels each feed sends its
 * matches to (besides its webhook), in the order the client gave them.
 */
import { asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, manyNow, rawMany, tables } from "../../db/query";

/** The feed's channel ids in their order. */
export async function channelIdsOf(db: Db, feedId: string): Promise<string[]> {
  return (await channelIdsOfFeeds(db, [feedId])).get(feedId) ?? [];
}

/** Each of these feeds' channel ids in their order (feeds with none are left out). */
export async function channelIdsOfFeeds(db: Db, feedIds: readonly string[]): Promise<Map<string, string[]>> {
  if (feedIds.length === 0) return new Map();
  const { feedChannels } = tables(db);
  return grouped(
    await many(
      db,
      db
        .select()
        .from(feedChannels)
        .where(inArray(feedChannels.feedId, [...feedIds]))
        .orderBy(asc(feedChannels.feedId), asc(feedChannels.position)),
    ),
  );
}

/** Every feed's channel ids (feeds with none are left out): what the feed index loads with the feeds. */
export async function allChannelIds(db: Db): Promise<Map<string, string[]>> {
  return grouped(await many(db, allChannelsQuery(db)));
}

/** allChannelIds at once (SQLite only; see manyNow). */
export function allChannelIdsNow(db: Db): Map<string, string[]> {
  return grouped(manyNow(db, allChannelsQuery(db)));
}

/** Every feed's channels in their order: the one query of allChannelIds and allChannelIdsNow. */
function allChannelsQuery(db: Db) {
  const { feedChannels } = tables(db);
  return db.select().from(feedChannels).orderBy(asc(feedChannels.feedId), asc(feedChannels.position));
}

function grouped(rows: { feedId: string; channelId: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.feedId);
    if (list) list.push(r.channelId);
    else out.set(r.feedId, [r.channelId]);
  }
  return out;
}

/** Replaces the feed's channels with `channelIds` (already checked to be the feed's account's). */
export async function setChannelIds(db: Db, feedId: string, channelIds: readonly string[]): Promise<void> {
  const { feedChannels } = tables(db);
  await exec(db, db.delete(feedChannels).where(eq(feedChannels.feedId, feedId)));
  if (channelIds.length > 0) await exec(db, db.insert(feedChannels).values(channelIds.map((channelId, position) => ({ feedId, channelId, position }))));
}

/** Whether the channel is still one of the feed's (an event written before it was taken off is not sent). */
export async function isChannelOfFeed(db: Db, feedId: string, channelId: string): Promise<boolean> {
  // Plain SQL: asked once per channel alert sent.
  const rows = await rawMany(db, "feeds.isChannelOfFeed", "SELECT 1 AS hit FROM feed_channels WHERE feed_id = ? AND channel_id = ?", [feedId, channelId]);
  return rows.length > 0;
}

/** The feeds the channel is on. */
export async function feedsOfChannel(db: Db, channelId: string): Promise<string[]> {
  const { feedChannels } = tables(db);
  const rows = await many(db, db.select({ feedId: feedChannels.feedId }).from(feedChannels).where(eq(feedChannels.channelId, channelId)));
  return rows.map((r) => r.feedId);
}

/** Takes the channel off every feed; returns the ids of the feeds it was on. */
export async function removeChannel(db: Db, channelId: string): Promise<string[]> {
  const { feedChannels } = tables(db);
  const rows = await many(db, db.delete(feedChannels).where(eq(feedChannels.channelId, channelId)).returning({ feedId: feedChannels.feedId }));
  return rows.map((r) => r.feedId);
}

/**
 * The account's feed–channel links, leaving out those of `exceptFeedId` (the feed being saved): what the
 * fan-out ceiling counts, each link being one more event per match.
 */
export async function countLinksOfAccount(db: Db, accountId: string, exceptFeedId: string | null): Promise<number> {
  const rows = await rawMany<{ n: number | string }>(
    db,
    "feeds.countLinksOfAccount",
    "SELECT count(*) AS n FROM feed_channels fc JOIN feeds f ON f.id = fc.feed_id WHERE f.account_id = ? AND fc.feed_id != ?",
    [accountId, exceptFeedId ?? ""],
  );
  return Number(rows[0]?.n ?? 0);
}
