import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Settings } from "../extension/src/messages";
import { until } from "./helpers/browser";

/**
 * The extension's poll loop (extension/src/companion.ts) against a fake `chrome.storage` and a loopback server
 * standing in for jobpilot: pairing that changes while the loop is busy must not leave the companion idle until the
 * next alarm (30 s). The browser end-to-end tests cover the loop with the real extension; these pin the races.
 */

let stored: Settings = {};
/** When set, the next storage read waits for it and answers with what was stored when the read began. */
let holdNextRead: Promise<void> | null = null;
(globalThis as { chrome?: unknown }).chrome = {
  storage: {
    local: {
      async get() {
        const snapshot = { ...stored };
        const hold = holdNextRead;
        holdNextRead = null;
        if (hold !== null) await hold;
        return snapshot;
      },
      async set(patch: Partial<Settings>) {
        stored = { ...stored, ...patch };
      },
    },
  },
};
// Loaded by a path held in a variable so the server's typecheck does not follow it: the extension's code is typed
// against Chrome's API (extension/tsconfig.json, its own typecheck in CI), which the server's program does not include.
const companionModule = "../extension/src/companion";
const { ensurePolling } = (await import(companionModule)) as { ensurePolling: () => Promise<void> };

/** The keys each poll presented, in order; `refuse` keys get 401, after `refuseAfterMs`. */
const polls: string[] = [];
const refuse = new Set<string>();
/** Refused keys the server says were replaced by a newer pairing (GET /api/v1/companion/pair/state). */
const replaced = new Set<string>();
let refuseAfterMs = 0;
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const key = request.headers.get("x-api-key") ?? "";
      if (new URL(request.url).pathname === "/api/v1/companion/pair/state") {
        return Response.json({ state: replaced.has(key) ? "replaced" : refuse.has(key) ? "revoked" : "active" });
      }
      polls.push(key);
      if (refuse.has(key)) {
        await Bun.sleep(refuseAfterMs);
        return Response.json({ error: "Missing or invalid API key" }, { status: 401 });
      }
      // An empty long poll, answered at once: the loop polls again.
      await Bun.sleep(20);
      return Response.json({ task: null });
    },
  });
});
afterAll(() => server.stop(true));

/** The keys polled so far, for a wait's failure message. */
const pollsSoFar = async () => `polls: ${JSON.stringify(polls)}`;

/** Unpairs and waits for the loop to stop, so each test starts with none running. */
afterEach(async () => {
  stored = {};
  refuse.clear();
  refuseAfterMs = 0;
  const before = polls.length;
  await Bun.sleep(100);
  const settled = polls.length;
  await Bun.sleep(100);
  expect(polls.length, "the loop stopped once unpaired").toBe(settled);
  expect(settled - before).toBeLessThanOrEqual(2);
  polls.length = 0;
});

describe("the companion's poll loop", () => {
  test("a key stored while the loop is reading the old, empty settings is polled with at once", async () => {
    let release!: () => void;
    holdNextRead = new Promise<void>((resolve) => (release = resolve));
    const first = ensurePolling(); // reads storage (held): nothing paired yet in what it will see
    await Bun.sleep(10);
    stored = { server: server.url.origin, apiKey: "jp_live_new" };
    void ensurePolling(); // what chrome.storage.onChanged does; the loop is running, so this only asks it to read again
    release();
    await until("a poll with the new key", 3000, () => polls.includes("jp_live_new"), pollsSoFar);
    stored = {};
    await first;
  });

  test("a key refused while a new one was stored meanwhile: the loop polls with the new one", async () => {
    refuse.add("jp_live_old");
    refuseAfterMs = 1000; // longer than until()'s 200 ms step: the new key is stored while this poll waits
    stored = { server: server.url.origin, apiKey: "jp_live_old" };
    const loop = ensurePolling();
    await until("the poll with the old key", 3000, () => polls.includes("jp_live_old"), pollsSoFar);
    stored = { ...stored, apiKey: "jp_live_new" }; // paired again while that poll waits for its 401
    void ensurePolling();
    await until("a poll with the new key", 3000, () => polls.includes("jp_live_new"), pollsSoFar);
    stored = {};
    await loop;
  });

  test("a refused key with nothing new stored stops the loop and says so", async () => {
    refuse.add("jp_live_old");
    stored = { server: server.url.origin, apiKey: "jp_live_old" };
    await ensurePolling();
    expect(polls).toEqual(["jp_live_old"]);
    expect(stored.lastStatus).toBe("the server refused the key: pair again");
    expect(stored.connection).toBe("refused");
  });

  test("a key replaced by pairing again stops the loop, and the options page is told it was replaced", async () => {
    refuse.add("jp_live_replaced");
    replaced.add("jp_live_replaced");
    stored = { server: server.url.origin, apiKey: "jp_live_replaced" };
    await ensurePolling();
    expect(polls.at(-1)).toBe("jp_live_replaced");
    expect(stored.connection).toBe("replaced");
    expect(stored.lastStatus).toContain("replaced this one");
  });
});
