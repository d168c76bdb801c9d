import type { Db } from "../../db/client";
import { isPg } from "../../db/query";
import { allChannelIds } from "./feed-channels";
import type { FeedIndex, IndexedFeedRow } from "./matcher";
import { allFeeds, feedsFingerprint } from "./repo";

/** Every feed with its channel ids: what an index is loaded with. */
export async function indexedFeeds(db: Db): Promise<IndexedFeedRow[]> {
  const [rows, channels] = await Promise.all([allFeeds(db), allChannelIds(db)]);
  return rows.map((row) => ({ ...row, channelIds: channels.get(row.id) ?? [] }));
}

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
  if (!isPg(db)) return;
  const print = await feedsFingerprint(db);
  if (loadedAt.get(index) === print) return;
  const rows = await indexedFeeds(db);
  const live = new Set(rows.map((r) => r.id));
  for (const id of index.ids()) if (!live.has(id)) index.remove(id);
  for (const row of rows) index.upsert(row);
  loadedAt.set(index, print);
}
