/**
 * An archived job with its document normalised, for the senders that read one job many times in a moment: a
 * job that enters 30 feeds is one webhook or alert per feed, and each read its row (parsing the document) and
 * normalised it again. The last few are kept per database and reused while the row is unchanged, which a
 * one-row, three-column read tells: updated_at_ts, explored_at_ts and the document's length all stay the same
 * only when the document does.
 */
import type { Db } from "../../db/client";
import { databaseIdentity, rawMany } from "../../db/query";
import { type NormalizedJob, normalizeJob } from "./normalize";
import { findJob, type JobRow } from "./repo";

export interface ReadJob {
  row: JobRow;
  job: NormalizedJob;
}

/** Enough for the jobs of a few ingest batches in flight; each entry is one parsed document. */
const KEPT = 64;
const kept = new WeakMap<object, Map<string, { version: string; read: ReadJob }>>();

/** Reads under way, per handle: callers asking for the same job meanwhile wait for that read. */
const reading = new WeakMap<Db, Map<string, Promise<ReadJob | null>>>();

/**
 * The job and its normalised document, or null when it is not archived (or its document no longer normalises).
 * Callers on the same handle share the read under way: a job entering many feeds is as many deliveries asking at
 * once, each of which read and normalised it again (docs/performance.md, 'Why the code is as it is'). A transaction's handle is a handle of
 * its own, so nothing uncommitted is shared outside it.
 */
export function readNormalizedJob(db: Db, ciphertext: string): Promise<ReadJob | null> {
  let reads = reading.get(db);
  if (!reads) reading.set(db, (reads = new Map()));
  const underWay = reads.get(ciphertext);
  if (underWay) return underWay;
  const read = readKept(db, ciphertext).finally(() => reads.delete(ciphertext));
  reads.set(ciphertext, read);
  return read;
}

async function readKept(db: Db, ciphertext: string): Promise<ReadJob | null> {
  const versions = await rawMany<{ u: number | string; e: number | string; n: number | string }>(
    db,
    "jobs.version",
    `SELECT updated_at_ts AS u, explored_at_ts AS e, length(document) AS n FROM jobs WHERE ciphertext = ?`,
    [ciphertext],
  );
  const v = versions[0];
  if (!v) return null;
  const version = `${v.u}:${v.e}:${v.n}`;
  const owner = databaseIdentity(db);
  let cache = kept.get(owner);
  const hit = cache?.get(ciphertext);
  if (hit && hit.version === version) return hit.read;
  const row = await findJob(db, ciphertext);
  const normalized = row ? normalizeJob(row.document) : null;
  if (!row || !normalized?.ok) return null;
  const read = { row, job: normalized.job };
  // Keyed by the version of the row just read (it may have changed since the version was read: then the next
  // read sees a different version and reads again).
  const readVersion = `${row.updatedAtTs}:${row.exploredAtTs}:${v.n}`;
  if (readVersion === version) {
    if (!cache) kept.set(owner, (cache = new Map()));
    cache.delete(ciphertext);
    cache.set(ciphertext, { version, read });
    // Oldest first in insertion order: drop it past the limit.
    if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  }
  return read;
}
