import type { Db } from "../../db/client";
import { isPg } from "../../db/query";
import type { FeedIndex } from "./matcher";
import { allFeeds, feedsFingerprint } from "./repo";

/** The fingerprint (feedsFingerprint) each index was last loaded at. */
const loadedAt = new WeakMap<FeedIndex, string>();

/**
 * Brings a node's feed index up to date before it matches. On SQLite one process owns the database and the
 * feeds service keeps the index in step with every change, so there is nothing to do. On PostgreSQL other
 * nodes create, change and delete feeds too: one aggregate query tells whether anything changed since the
 * index was loaded, and if so every feed is read again. The print is read before the feeds, so a change
 * made in between only costs one more reload next time, never a stale index.
 */
export async function syncFeedIndex(db: Db, index: FeedIndex): Promise<void> {
  if (!isPg(db)) return;
  const print = await feedsFingerprint(db);
  if (loadedAt.get(index) === print) return;
  const rows = await allFeeds(db);
  const live = new Set(rows.map((r) => r.id));
  for (const id of index.ids()) if (!live.has(id)) index.remove(id);
  for (const row of rows) index.upsert(row);
  loadedAt.set(index, print);
}
