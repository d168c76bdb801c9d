import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isStorageFull } from "../../../src/db/client";
import { createErrorHandler, STORAGE_FULL } from "../../../src/http/error-handler";
import { memoryLogger } from "../../../src/lib/log";
import { StorageHealth } from "../../../src/worker/storage-health";
import { useCleanups } from "../../helpers/cleanups";
import { createTestApp, show } from "../../helpers/app";

const later = useCleanups();

/** A small tmpfs of our own to fill up, where this process may mount one (root); else null. */
function smallDisk(): string | null {
  const dir = mkdtempSync(join(tmpdir(), "jp-full-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir], { stderr: "ignore", stdout: "ignore" });
  if (mounted.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  later(() => {
    Bun.spawnSync(["umount", "-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes a file until the disk has no room left (ENOSPC); removing it frees the space again. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const chunk = new Uint8Array(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
}

const disk = process.getuid?.() === 0 ? smallDisk() : null;

describe("a full disk", () => {
  // Needs a file system it can fill: a tmpfs this process mounts, which only root may do (CI runs as root).
  test.skipIf(disk === null)(
    "writes answer 507 saying what to do and change nothing, reads keep working, /readyz is not ready; freeing space recovers on its own",
    async () => {
      const dir = join(disk!, "data");
      mkdirSync(dir);
      const t = await createTestApp({ dbPath: join(dir, "jobpilot.db") });
      later(() => t.close());
      const { apiKey: key } = await t.account();
      const first = await t.request("POST", "/api/v1/feeds", { key, json: { title: "before", minScore: 0 } });
      expect(first.status, show(first)).toBe(201);
      expect((await t.request("GET", "/readyz")).status).toBe(200);

      fill(join(disk!, "filler"));
      later(() => rmSync(join(disk!, "filler"), { force: true }));
      // A commit may still fit in pages the WAL already has; writes go on until one needs room the disk lacks.
      let refused = await t.request("POST", "/api/v1/feeds", { key, json: { title: "during 0", minScore: 0 } });
      let n = 0;
      while (refused.status === 201 && n < 200) refused = await t.request("POST", "/api/v1/feeds", { key, json: { title: `during ${++n}`, minScore: 0 } });
      expect(refused.status, show(refused)).toBe(507);
      expect(refused.body).toEqual({ error: STORAGE_FULL });
      expect(refused.headers.get("retry-after")).toBe("60");
      const list = await t.request("GET", "/api/v1/feeds", { key });
      expect(list.status, show(list)).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(`"during ${n}"`);
      t.clock.advance(5_000);
      const notReady = await t.request("GET", "/readyz");
      expect(notReady.status, show(notReady)).toBe(503);
      expect(notReady.body.checks.storage.ok).toBe(false);
      expect(notReady.body.reason).toContain("storage");
      expect((await t.request("GET", "/healthz")).status).toBe(200);

      rmSync(join(disk!, "filler"), { force: true });
      const after = await t.request("POST", "/api/v1/feeds", { key, json: { title: "after", minScore: 0 } });
      expect(after.status, show(after)).toBe(201);
      // A refusal in the last 30 s still counts; then readiness is back without a restart.
      t.clock.advance(31_000);
      const ready = await t.request("GET", "/readyz");
      expect(ready.status, show(ready)).toBe(200);
      expect(ready.body.checks.storage).toEqual({ ok: true });
    },
    30_000,
  );

  test("both dialects' errors are recognised (SQLite's SQLITE_FULL, PostgreSQL's disk_full 53100, wrapped by drizzle); others are not", () => {
    const sqlite = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL", errno: 13 });
    const pg = Object.assign(new Error('could not extend file "base/16384/16385": No space left on device'), {
      code: "ERR_POSTGRES_SERVER_ERROR",
      errno: "53100",
    });
    const wrapped = Object.assign(new Error("Failed query: insert into feeds …"), { cause: pg });
    for (const err of [sqlite, pg, wrapped]) expect(isStorageFull(err)).toBe(true);
    const unique = Object.assign(new Error("duplicate key value violates unique constraint"), { errno: "23505" });
    for (const err of [unique, new Error("boom"), null, "text"]) expect(isStorageFull(err)).toBe(false);
  });

  test("the error handler answers 507 with Retry-After for either dialect's error, and readiness counts it for 30 s", async () => {
    let probes = 0;
    const storage = new StorageHealth(async () => (probes++, false));
    let now = 1_000_000;
    const handle = createErrorHandler({ log: memoryLogger(), storage, clock: { now: () => now } } as never, () => []);
    const set: { status?: number | string; headers: Record<string, string | number> } = { headers: {} };
    const body = handle({
      code: "UNKNOWN",
      error: Object.assign(new Error("x"), { errno: "53100" }),
      request: new Request("http://localhost/api/v1/feeds"),
      set,
    });
    expect(set.status).toBe(507);
    expect(set.headers["retry-after"]).toBe("60");
    expect(body).toEqual({ error: STORAGE_FULL });
    const db = {} as never;
    expect(await storage.problem(db, "node", now + 1_000)).toContain("last 30 s");
    // The probe's own write runs at most every 5 s, whatever the traffic on /readyz.
    expect(await storage.problem(db, "node", now + 2_000)).toContain("last 30 s");
    expect(probes).toBe(1);
    now += 31_000;
    expect(await storage.problem(db, "node", now)).toBeNull();
    expect(probes).toBe(2);
  });
});
