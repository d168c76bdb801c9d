/**
 * Whether the database takes writes, for /readyz: a disk that fills up leaves reads working, so /healthz stays
 * 200 and a load balancer would keep sending traffic that cannot be saved. Two signs, either one enough:
 * a write refused for lack of space in the last RECENT_MS (the error handler reports it), and a tiny write of
 * readiness's own (a lease row taken and given back) failing. The probe runs at most every PROBE_EVERY_MS, so
 * an unauthenticated /readyz cannot be turned into a stream of writes. In WAL mode a small write can still fit
 * in the log's existing pages while a larger one cannot, hence the first sign too.
 */
import { holdLease, releaseLease } from "./cluster";
import { type Db, isStorageFull } from "../db/client";

const RECENT_MS = 30_000;
const PROBE_EVERY_MS = 5_000;

export class StorageHealth {
  /** `probe`: whether a small write fails for lack of space (tests pass their own). */
  constructor(private readonly probe: (db: Db, nodeId: string, nowTs: number) => Promise<boolean> = probeWrite) {}

  private lastFullTs: number | null = null;
  private probedAtTs: number | null = null;
  private probeFull = false;

  /** A write was refused because the storage is full (the error handler calls this). */
  reportFull(nowTs: number): void {
    this.lastFullTs = nowTs;
  }

  /** Why writes are failing now, or null when they work (probing with a write of its own when due). */
  async problem(db: Db, nodeId: string, nowTs: number): Promise<string | null> {
    if (this.probedAtTs === null || nowTs - this.probedAtTs >= PROBE_EVERY_MS) {
      this.probedAtTs = nowTs;
      this.probeFull = await this.probe(db, nodeId, nowTs);
    }
    if (this.probeFull) return "the database's storage is full: writes fail";
    if (this.lastFullTs !== null && nowTs - this.lastFullTs < RECENT_MS) return "the database's storage was full for a write in the last 30 s";
    return null;
  }
}

/** True when a small write fails for lack of space; other failures are the database check's to report. */
async function probeWrite(db: Db, nodeId: string, nowTs: number): Promise<boolean> {
  const name = `storage-probe:${nodeId}`;
  try {
    await holdLease(db, name, nodeId, nowTs, 1000);
    await releaseLease(db, name, nodeId);
    return false;
  } catch (err) {
    return isStorageFull(err);
  }
}
