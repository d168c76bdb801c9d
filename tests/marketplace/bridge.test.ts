import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { Webhook } from "standardwebhooks";
import type { Db } from "../../src/db/client";
import { ManualClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { generateSecret, signedHeaders } from "../../src/lib/standard-webhooks";
import { bridgeCallbackRoutes } from "../../src/marketplace/bridge/callback";
import { createBridgeDriver, NOT_CONFIGURED, type BridgeDeps } from "../../src/marketplace/bridge/driver";
import * as repo from "../../src/marketplace/remote/repo";
import type { SubmitRequest } from "../../src/marketplace/driver";
import { startBridgeReceiver, unreachableUrl } from "../helpers/bridge-receiver";
import { openTestDb } from "../helpers/db";

const SECRET = generateSecret();
const TIMEOUT_MS = 300;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function submission(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return {
    applicationId: "0190f0aa-1111-7000-8000-000000000001",
    accountId: "acc_1",
    freelancerId: "fl_1",
    profileId: "prof_1",
    job: {
      ciphertext: "~01abc",
      url: "https://www.upwork.com/jobs/~01abc",
      title: "Build a Bun API",
      jobType: "HOURLY",
      document: { big: "archived document, not sent" },
      publishTimeTs: 1_768_000_000_000,
      usOnly: false,
    },
    coverLetter: "Hello, I have built three Elysia services.",
    bid: { hourlyRate: 45, fixedBid: null, timeline: "1 to 3 months", boostBids: 0 },
    answers: [{ position: 0, answer: "Yes, five years." }],
    ...over,
  };
}

/** A driver on a fresh database, its callback route mounted on a bare Elysia app, and a scripted receiver. */
async function setup(opts: { url?: string | null; secret?: string | null; timeoutMs?: number } = {}) {
  const testDb = await openTestDb();
  const db: Db = testDb.db;
  const clock = new ManualClock(Date.now());
  const log = memoryLogger();
  const app = new Elysia();
  const receiver = await startBridgeReceiver({
    secret: SECRET,
    deliver: (request) => app.handle(request),
    nowS: () => Math.floor(clock.now() / 1000),
  });
  const deps: BridgeDeps = {
    db,
    clock,
    log,
    config: {
      bridgeUrl: opts.url === null ? undefined : (opts.url ?? receiver.url),
      bridgeSecret: opts.secret === null ? undefined : (opts.secret ?? SECRET),
      bridgeTimeoutMs: opts.timeoutMs ?? TIMEOUT_MS,
    },
  };
  const driver = createBridgeDriver(deps);
  app.use(bridgeCallbackRoutes(deps, driver));
  cleanups.push(
    () => receiver.close(),
    () => testDb.close(),
  );

  async function callback(body: unknown, o: { secret?: string; timestampS?: number; raw?: string } = {}) {
    const raw = o.raw ?? JSON.stringify(body);
    const headers = signedHeaders(o.secret ?? SECRET, `cb_${crypto.randomUUID()}`, raw, o.timestampS ?? Math.floor(clock.now() / 1000));
    const res = await app.handle(
      new Request("http://localhost/bridge/callback", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw }),
    );
    return { status: res.status, body: (await res.json()) as any };
  }

  return { db, clock, log, app, receiver, driver, deps, callback };
}

const APP_ID = submission().applicationId;

describe("submit", () => {
  test("sends one signed proposal.submit with the full payload and returns the final status in the response", async () => {
    const { receiver, driver, db } = await setup();
    receiver.enqueue({ json: { status: "applied", message: "Proposal sent for 16 Connects" } });

    expect(await driver.submit(submission())).toEqual({ status: "applied", message: "Proposal sent for 16 Connects" });

    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req!.method).toBe("POST");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["webhook-id"]).toStartWith(`sub_${APP_ID}_`);
    // An independent verifier (the reference library) accepts the signature over the exact bytes.
    expect(new Webhook(SECRET).verify(req!.raw, req!.headers)).toEqual(req!.body);
    expect(req!.body).toEqual({
      type: "proposal.submit",
      applicationId: APP_ID,
      accountId: "acc_1",
      freelancerId: "fl_1",
      profileId: "prof_1",
      job: { ciphertext: "~01abc", url: "https://www.upwork.com/jobs/~01abc", title: "Build a Bun API", jobType: "HOURLY" },
      coverLetter: "Hello, I have built three Elysia services.",
      bid: { hourlyRate: 45, fixedBid: null, timeline: "1 to 3 months", boostBids: 0 },
      answers: [{ position: 0, answer: "Yes, five years." }],
      callbackPath: "/bridge/callback",
    });
    expect((await repo.findOutcome(db, APP_ID))?.status).toBe("applied");
  });

  test("each attempt has its own webhook-id; a known outcome is returned without sending again", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { status: "logged_out", message: "Login page shown" } }, { json: { status: "not_enough_connects", message: "Need 16, have 4" } });
    expect((await driver.submit(submission())).status).toBe("logged_out");
    // logged_out means nothing was submitted: the retry is sent.
    expect(await driver.submit(submission())).toEqual({ status: "not_enough_connects", message: "Need 16, have 4" });
    expect(receiver.requests[0]!.headers["webhook-id"]).not.toBe(receiver.requests[1]!.headers["webhook-id"]);
    expect((await driver.submit(submission())).status).toBe("not_enough_connects");
    expect(receiver.requests).toHaveLength(2);
  });

  test("202 then a signed callback through the route resolves the waiting submit", async () => {
    const { receiver, driver, db } = await setup({ timeoutMs: 1000 });
    receiver.enqueue({ acceptThenCallback: { outcome: { status: "applied", message: "Sent from my browser" }, afterMs: 50 } });

    expect(await driver.submit(submission())).toEqual({ status: "applied", message: "Sent from my browser" });
    await receiver.settled();
    expect(receiver.callbacks).toEqual([{ status: 200, body: { ok: true } }]);
    expect(await repo.findOutcome(db, APP_ID)).toMatchObject({ status: "applied", message: "Sent from my browser" });
    expect(driver.waiting()).toBe(0);
  });

  test("a callback that arrives before the 202 response is found in the table", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ acceptThenCallback: { outcome: { status: "not_available", message: "Job closed" }, beforeReply: true } });
    expect(await driver.submit(submission())).toEqual({ status: "not_available", message: "Job closed" });
  });

  test("a callback with a bad signature gets 401, stores nothing, and the submit times out", async () => {
    const { receiver, driver, db } = await setup();
    receiver.enqueue({ acceptThenCallback: { outcome: { status: "applied" }, secret: generateSecret() } });
    const started = performance.now();
    await expect(driver.submit(submission())).rejects.toThrow(/sent no outcome to \/bridge\/callback within 300 ms/);
    expect(performance.now() - started).toBeLessThan(1500);
    await receiver.settled();
    expect(receiver.callbacks[0]!.status).toBe(401);
    expect(receiver.callbacks[0]!.body.error).toMatch(/Invalid signature/);
    expect(await repo.findOutcome(db, APP_ID)).toBeUndefined();
    expect(driver.waiting()).toBe(0);
  });

  test("no callback in time throws (the queue retries)", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ status: 202, json: { accepted: true } });
    await expect(driver.submit(submission())).rejects.toThrow(/no outcome/);
    expect(driver.waiting()).toBe(0);
  });

  test("an answer slower than the timeout throws", async () => {
    const { receiver, driver } = await setup({ timeoutMs: 200 });
    receiver.enqueue({ json: { status: "applied" }, delayMs: 800 });
    await expect(driver.submit(submission())).rejects.toThrow(/no answer within 200 ms/);
  });

  test("500, a dropped connection, an unreachable submitter and 200 garbage all throw", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue(
      { status: 500, json: { error: "boom" } },
      { dropConnection: true },
      { json: { status: "maybe", message: "?" } },
      { text: "<html>ok</html>" },
    );
    await expect(driver.submit(submission())).rejects.toThrow(/HTTP 500/);
    await expect(driver.submit(submission())).rejects.toThrow(/could not be reached/);
    await expect(driver.submit(submission())).rejects.toThrow(/without a valid/);
    await expect(driver.submit(submission())).rejects.toThrow(/without a valid/);

    const down = await setup({ url: await unreachableUrl() });
    await expect(down.driver.submit(submission())).rejects.toThrow(/could not be reached/);
  });

  test("a 3xx throws and the redirect target is never contacted", async () => {
    const { receiver, driver } = await setup();
    for (const status of [301, 302, 307, 308]) {
      receiver.enqueue({ status, headers: { location: receiver.url.replace("/submit", "/redirect-target") } });
      await expect(driver.submit(submission())).rejects.toThrow(new RegExp(`redirect \\(HTTP ${status}\\)`));
    }
    expect(receiver.requests.map((r) => r.path)).toEqual(["/submit", "/submit", "/submit", "/submit"]);
  });

  test("a 4xx refusal returns failed with the submitter's message; 404 and 429 are retried", async () => {
    const { receiver, driver, db } = await setup();
    receiver.enqueue({ status: 400, json: { message: "Unknown profileId prof_1" } }, { status: 422, text: "bad timeline" }, { status: 404 }, { status: 429 });
    expect(await driver.submit(submission())).toEqual({ status: "failed", message: "Unknown profileId prof_1" });
    expect(await driver.submit(submission())).toEqual({ status: "failed", message: "bad timeline" });
    await expect(driver.submit(submission())).rejects.toThrow(/HTTP 404/);
    await expect(driver.submit(submission())).rejects.toThrow(/HTTP 429/);
    // A refusal is our reading of an HTTP status, not an outcome the submitter reported: nothing is stored.
    expect(await repo.findOutcome(db, APP_ID)).toBeUndefined();
  });

  test("not configured: failed with a clear message, nothing sent", async () => {
    for (const missing of [{ url: null }, { secret: null }]) {
      const { receiver, driver } = await setup(missing);
      expect(await driver.submit(submission())).toEqual({ status: "failed", message: NOT_CONFIGURED });
      expect(await driver.lookup(submission())).toBeNull();
      expect(await driver.engagement(APP_ID, "acc_1")).toBeNull();
      expect(await driver.reconnect("acc_1")).toBe(false);
      await expect(driver.freelancers("acc_1")).rejects.toThrow(NOT_CONFIGURED);
      expect(receiver.requests).toHaveLength(0);
    }
  });
});

describe("callback route", () => {
  test("first outcome wins; a stored logged_out is replaced by a later outcome", async () => {
    const { callback, db } = await setup();
    expect(await callback({ applicationId: "a1", status: "logged_out", message: "Login page" })).toEqual({ status: 200, body: { ok: true } });
    expect((await callback({ applicationId: "a1", status: "applied", message: "Sent" })).status).toBe(200);
    expect((await callback({ applicationId: "a1", status: "failed", message: "Late duplicate" })).status).toBe(200);
    expect(await repo.findOutcome(db, "a1")).toMatchObject({ status: "applied", message: "Sent" });
  });

  test("a stale or future timestamp gets 401", async () => {
    const { callback, clock, db } = await setup();
    const nowS = Math.floor(clock.now() / 1000);
    expect((await callback({ applicationId: "a1", status: "applied" }, { timestampS: nowS - 301 })).status).toBe(401);
    const future = await callback({ applicationId: "a1", status: "applied" }, { timestampS: nowS + 301 });
    expect(future.status).toBe(401);
    expect(future.body.error).toMatch(/in the future/);
    expect(await repo.findOutcome(db, "a1")).toBeUndefined();
  });

  test("missing signature headers get 401", async () => {
    const { app } = await setup();
    const res = await app.handle(
      new Request("http://localhost/bridge/callback", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"applicationId":"a1","status":"applied"}',
      }),
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toMatch(/Missing webhook-id/);
  });

  test("a correctly signed but invalid body gets 400 and stores nothing", async () => {
    const { callback, db } = await setup();
    const badStatus = await callback({ applicationId: "a1", status: "submitted", message: "?" });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error).toMatch(/status/);
    expect((await callback({ status: "applied" })).status).toBe(400);
    expect((await callback(null, { raw: "{not json" })).status).toBe(400);
    expect(await repo.findOutcome(db, "a1")).toBeUndefined();
  });

  test("Connects: an applied callback's counts reach the waiting submit; bad counts are a 400 naming the field", async () => {
    const { receiver, driver, db, callback, deps } = await setup({ timeoutMs: 1000 });
    for (const [field, value] of [
      ["connectsRequired", 1001],
      ["connectsRequired", -1],
      ["connectsRequired", 1.5],
      ["boostConnects", "2"],
    ] as const) {
      const res = await callback({ applicationId: APP_ID, status: "applied", connectsRequired: 12, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect(await repo.findOutcome(db, APP_ID)).toBeUndefined();

    receiver.enqueue({ acceptThenCallback: { outcome: { status: "applied", message: "Sent", connectsRequired: 12, boostConnects: 3 } as never, afterMs: 50 } });
    expect(await driver.submit(submission())).toEqual({ status: "applied", message: "Sent", connects: { required: 12, boost: 3 } });
    // Left out: no boost. Not applied: nothing was charged, so no Connects go with it.
    const other = submission({ applicationId: "0190f0aa-1111-7000-8000-000000000002" });
    receiver.enqueue({ acceptThenCallback: { outcome: { status: "applied", connectsRequired: 7 } as never, beforeReply: true } });
    expect((await driver.submit(other)).connects).toEqual({ required: 7, boost: 0 });
    const refused = submission({ applicationId: "0190f0aa-1111-7000-8000-000000000003" });
    receiver.enqueue({ acceptThenCallback: { outcome: { status: "not_enough_connects", connectsRequired: 7 } as never, beforeReply: true } });
    expect((await driver.submit(refused)).connects).toBeUndefined();
    // Kept in the outcome's row: a driver of another node, or after a restart, reads them back with it.
    const restarted = createBridgeDriver(deps);
    expect(await restarted.lookup(submission())).toEqual({ status: "applied", message: "Sent", connects: { required: 12, boost: 3 } });
    expect((await restarted.lookup(refused)) as unknown).toMatchObject({ status: "not_enough_connects" });
    expect(((await restarted.lookup(refused)) as { connects?: unknown }).connects).toBeUndefined();
  });

  test("Connects in a 200 answer are kept when valid and left out when not (the status stands)", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { status: "applied", message: "ok", connectsRequired: 16, boostConnects: 0 } });
    expect(await driver.submit(submission())).toEqual({ status: "applied", message: "ok", connects: { required: 16, boost: 0 } });
    receiver.enqueue({ json: { status: "applied", message: "ok", connectsRequired: 99_999 } });
    expect(await driver.submit(submission({ applicationId: "0190f0aa-1111-7000-8000-000000000004" }))).toEqual({ status: "applied", message: "ok" });
  });

  test("answers 404 when no bridge secret is configured", async () => {
    const { callback } = await setup({ secret: null });
    expect((await callback({ applicationId: "a1", status: "applied" })).status).toBe(404);
  });

  test("works behind the real app's JSON body parser (the signature covers the raw bytes)", async () => {
    const { createTestApp } = await import("../helpers/app");
    const t = await createTestApp({ config: { bridgeSecret: SECRET, bridgeUrl: "http://127.0.0.1:9/unused" } });
    cleanups.push(() => t.close());
    const deps = { db: t.deps.db, clock: t.clock, log: t.log, config: t.deps.config };
    const app = t.app.use(bridgeCallbackRoutes(deps, createBridgeDriver(deps)));
    // Spacing that JSON.stringify would not reproduce: re-serialising the parsed body would break the signature.
    const raw = '{ "applicationId": "a9",  "status": "applied", "message": "ok" }';
    const headers = signedHeaders(SECRET, "cb_real_app", raw, Math.floor(t.clock.now() / 1000));
    const res = await app.handle(
      new Request("http://localhost/bridge/callback", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw }),
    );
    expect(`${res.status} ${await res.text()}`).toBe('200 {"ok":true}');
    expect((await repo.findOutcome(t.deps.db, "a9"))?.status).toBe("applied");
  });
});

describe("lookup", () => {
  test("a stored outcome answers without asking the submitter", async () => {
    const { receiver, driver, callback } = await setup();
    await callback({ applicationId: APP_ID, status: "not_eligible", message: "US only" });
    expect(await driver.lookup(submission())).toEqual({ status: "not_eligible", message: "US only" });
    expect(receiver.requests).toHaveLength(0);
  });

  test("asks the submitter: its outcome, null on 404, null for logged_out", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { status: "applied", message: "Found in my log" } });
    expect(await driver.lookup(submission())).toEqual({ status: "applied", message: "Found in my log" });
    const req = receiver.requests[0]!;
    expect(req.body).toEqual({ type: "proposal.lookup", applicationId: APP_ID, accountId: "acc_1" });
    expect(() => new Webhook(SECRET).verify(req.raw, req.headers)).not.toThrow();

    const other = submission({ applicationId: "app-2" });
    receiver.enqueue({ status: 404, json: { error: "no record" } }, { json: { status: "logged_out", message: "Session expired" } });
    expect(await driver.lookup(other)).toBeNull();
    expect(await driver.lookup(other)).toBeNull();
  });

  test('"unknown" when the submitter cannot be reached or answers garbage', async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { status: "processing" } }, { status: 500 }, { text: "not json" }, { status: 302, headers: { location: "http://127.0.0.1:9/" } });
    for (let i = 0; i < 4; i++) expect(await driver.lookup(submission())).toBe("unknown");
    const down = await setup({ url: await unreachableUrl() });
    expect(await down.driver.lookup(submission())).toBe("unknown");
  });
});

describe("engagement, freelancers, reconnect", () => {
  test("engagement: the submitter's answer, null on 404 or garbage", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { viewed: true, replied: false, viewedAt: 1_768_000_000_000 } }, { status: 404 }, { json: { viewed: "yes", replied: false } });
    expect(await driver.engagement(APP_ID, "acc_1")).toEqual({ viewed: true, replied: false, viewedAt: 1_768_000_000_000 });
    expect(receiver.requests[0]!.body).toEqual({ type: "proposal.engagement", applicationId: APP_ID, accountId: "acc_1" });
    expect(await driver.engagement(APP_ID, "acc_1")).toBeNull();
    expect(await driver.engagement(APP_ID, "acc_1")).toBeNull();
  });

  test("freelancers: a valid list is returned with only the interface's fields", async () => {
    const { receiver, driver } = await setup();
    const freelancer = {
      id: "fl_1",
      name: "Ada L.",
      avatarUrl: null,
      baseHourlyRate: 60,
      secretNote: "not ours to pass on",
      profiles: [
        { type: "default", name: "Ada L.", hourlyRate: 60, currency: "USD", profileId: "~01ada" },
        { type: "specialization", name: "Bun APIs", hourlyRate: null, currency: "USD", profileId: "1234567890", extra: 1 },
      ],
    };
    receiver.enqueue({ json: { freelancers: [freelancer] } });
    const list = await driver.freelancers("acc_1");
    expect(receiver.requests[0]!.body).toEqual({ type: "freelancers.list", accountId: "acc_1" });
    const { secretNote: _, ...expected } = freelancer;
    expect(list).toEqual([{ ...expected, profiles: expected.profiles.map(({ extra: _e, ...p }: any) => p) }]);
  });

  test("freelancers: a wrong shape, an error status or no answer throws a clear Error", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { freelancers: [{ id: "fl_1", name: "Ada", profiles: [] }] } }, { status: 503 });
    await expect(driver.freelancers("acc_1")).rejects.toThrow(/freelancers list is not in the expected shape \(\/freelancers\/0\/avatarUrl/);
    await expect(driver.freelancers("acc_1")).rejects.toThrow(/answered HTTP 503/);
    const down = await setup({ url: await unreachableUrl() });
    await expect(down.driver.freelancers("acc_1")).rejects.toThrow(/Could not list freelancers through the bridge/);
  });

  test("reconnect: the submitter's ok, false on trouble", async () => {
    const { receiver, driver } = await setup();
    receiver.enqueue({ json: { ok: true } }, { json: { ok: false } }, { status: 500 }, { json: { ok: "sure" } });
    expect(await driver.reconnect("acc_1")).toBe(true);
    expect(receiver.requests[0]!.body).toEqual({ type: "session.reconnect", accountId: "acc_1" });
    expect(await driver.reconnect("acc_1")).toBe(false);
    expect(await driver.reconnect("acc_1")).toBe(false);
    expect(await driver.reconnect("acc_1")).toBe(false);
  });
});
