import type { Db } from "../../db/client";
import { isPg, readNow } from "../../db/query";
import { allChannelIds, allChannelIdsNow } from "./feed-channels";
import type { FeedIndex, IndexedFeedRow } from "./matcher";
import { allFeeds, allFeedsNow, type FeedRow, feedsFingerprint } from "./repo";

/** Every feed with its channel ids: what an index is loaded with. */
export async function indexedFeeds(db: Db): Promise<IndexedFeedRow[]> {
  const [rows, channels] = await Promise.all([allFeeds(db), allChannelIds(db)]);
  return withChannels(rows, channels);
}

const withChannels = (rows: FeedRow[], channels: Map<string, string[]>): IndexedFeedRow[] =>
  rows.map((row) => ({ ...row, channelIds: channels.get(row.id) ?? [] }));

/** The fingerprint (feedsFingerprint) each index was last loaded at. */
const loadedAt = new WeakMap<FeedIndex, string>();

/**
 * Brings a node's feed index up to date before it matches. On SQLite one process owns the database and the
 * feeds service keeps the index in step with every change, so there is nothing to do. On PostgreSQL other
 * nodes create, change and delete feeds too: one aggregate query tells whether anything changed since the
 * index was loaded, and if so every feed is read again (a change of a feed's channels moves its
 * updated_at_ts too). The print is read before the feeds, so a change
 * made in between only costs one more reload next time, never a stale index.
 */
export async function syncFeedIndex(db: Db, index: FeedIndex): Promise<void> {
  if (!isPg(db)) {
    // Loaded once, on first use. Read and applied without yielding, and outside any transaction (readNow waits for
    // the one in hand): a feed written meanwhile is either in these rows or upserted by its writer after its commit.
    if (!index.isLoaded) await readNow(db, () => index.load(withChannels(allFeedsNow(db), allChannelIdsNow(db))));
    return;
  }
  const print = await feedsFingerprint(db);
  if (loadedAt.get(index) === print) return;
  index.load(await indexedFeeds(db));
  loadedAt.set(index, print);
}
