/**
 * The background checkpoint thread (see ./checkpoint): its own connection to the database file folds the WAL
 * back into the file every interval, so no commit on the server's thread runs a checkpoint itself.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

self.onmessage = (event: MessageEvent<{ start?: { path: string; intervalMs: number }; stop?: true }>) => {
  const { start, stop } = event.data;
  if (start) {
    db = new Database(start.path);
    // PASSIVE never waits for a lock and never blocks the writer; the timeout only covers opening the WAL index.
    db.run("PRAGMA busy_timeout = 5000");
    const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
    timer = setInterval(() => {
      try {
        checkpoint.get();
      } catch {
        // SQLITE_BUSY while another connection restarts the WAL: the next round folds it.
      }
    }, start.intervalMs);
    self.postMessage({ ready: true });
  }
  if (stop) {
    if (timer) clearInterval(timer);
    db?.close();
    db = null;
    self.postMessage({ stopped: true });
  }
};
