import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { startBackgroundCheckpoint } from "../../src/db/checkpoint";
import { closeAnyDatabase } from "../../src/db/open";

const dir = mkdtempSync(join(tmpdir(), "jobpilot-ckpt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const autoCheckpoint = (client: Database) => (client.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("background WAL checkpoint", () => {
  test("once its thread is up, commits stop checkpointing and the thread folds the WAL into the file", async () => {
    const path = join(dir, "a.db");
    const db = openDatabase(path);
    db.$client.run("CREATE TABLE t (v TEXT NOT NULL)");
    startBackgroundCheckpoint(db, path, { intervalMs: 20 });
    await until("the thread to take over", () => autoCheckpoint(db.$client) === 0);
    const insert = db.$client.prepare("INSERT INTO t (v) VALUES (?)");
    for (let i = 0; i < 300; i++) insert.run("x".repeat(8_000)); // ~600 pages of WAL, each insert its own commit
    // The rows reach the database file itself (not only the WAL) without any commit here checkpointing.
    await until("the database file to grow", () => statSync(path).size > 2_000_000);
    expect((db.$client.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(300);
    await closeAnyDatabase(db);
    const reopened = new Database(path);
    expect((reopened.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(300);
    reopened.close();
  });

  test("stopping the thread hands checkpointing back to the connection", async () => {
    const path = join(dir, "b.db");
    const db = openDatabase(path);
    const checkpoint = startBackgroundCheckpoint(db, path, { intervalMs: 20 });
    await until("the thread to take over", () => autoCheckpoint(db.$client) === 0);
    await checkpoint.stop();
    expect(autoCheckpoint(db.$client)).toBe(1000);
    await closeAnyDatabase(db);
  });
});
