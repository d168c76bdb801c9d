/**
 * The backup thread (see ./backup): its own connection runs VACUUM INTO, one statement that can take seconds on
 * a large database, so neither the server's requests nor the CLI's progress bar wait for it.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ path: string; into: string }>) => {
  const { path, into } = event.data;
  let db: Database | null = null;
  try {
    db = new Database(path, { readwrite: true, create: false });
    db.run("PRAGMA busy_timeout = 5000");
    const size = db.query("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()").get() as { bytes: number };
    self.postMessage({ totalBytes: size.bytes });
    // One read transaction: a consistent snapshot of a WAL database while the server keeps writing.
    db.query("VACUUM INTO ?").run(into);
    // Closed before "done": the last connection's close checkpoints the WAL under an exclusive lock, and the
    // caller may open the database the moment it hears "done" (and terminates this thread, close or not).
    db.close();
    db = null;
    self.postMessage({ done: true });
  } catch (err) {
    self.postMessage({ error: (err as Error).message });
  } finally {
    db?.close();
  }
};
