/**
 * Connects balances reported by the drivers (issue 42): the sandbox's, the browser companion's (read off the apply
 * page) and a bridge submitter's land in connects_balances through the submit task, with the driver as the source,
 * and the governor refuses the next submission the balance cannot pay.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { signedHeaders } from "../../../src/lib/standard-webhooks";
import type { CompanionTask, PageOutcome } from "../../../src/marketplace/companion/contract";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { findFreelancer, findSubmission, setConnects } from "../../../src/marketplace/sandbox/repo";
import { DEFAULT_CONNECTS, freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { createKey, setMarketplaceDriver } from "../../../src/modules/accounts/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { startBridgeReceiver } from "../../helpers/bridge-receiver";
import { makeDoc } from "../../helpers/factories";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const SECRET = `whsec_${Buffer.from("balances-test-secret-0123456789ab").toString("base64")}`;
const attempt = { taskId: 1, attempt: 1, isLastAttempt: false } as never;
const FREELANCER = {
  id: "fl_ada",
  name: "Ada L.",
  avatarUrl: null,
  baseHourlyRate: 60,
  profiles: [{ type: "default", name: "Ada L.", hourlyRate: 60, currency: "USD", profileId: "~01ada" }],
};

async function open(config: Record<string, unknown> = {}) {
  const t = await createTestApp({ clock: new ManualClock(Date.UTC(2026, 11, 7, 10)), config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...config } });
  cleanups.push(() => t.close());
  return t;
}

/** Queues an application through the API for a job posted a minute ago. */
async function queue(t: TestApp, apiKey: string, title: string) {
  const doc = makeDoc({ title, publishTime: new Date(t.clock.now() - 60_000).toISOString() });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const res = await t.request("POST", "/api/auto-apply-v2/apply", {
    key: apiKey,
    json: { jobId: (doc.jobTile as any).job.ciphertext, coverLetter: `About ${title}` },
  });
  expect(res.status, show(res)).toBe(200);
  return res.body.queueId as string;
}

/** The stored balances (PostgreSQL returns its bigint times as strings: read as numbers on both). */
const balances = async (t: TestApp) =>
  (
    await rawMany<{ freelancer_id: string; available: number; source: string; read_at_ts: number | string }>(
      t.deps.db,
      "test.balances",
      "SELECT freelancer_id, available, source, read_at_ts FROM connects_balances ORDER BY freelancer_id",
      [],
    )
  ).map((row) => ({ ...row, available: Number(row.available), read_at_ts: Number(row.read_at_ts) }));

async function statusOf(t: TestApp, apiKey: string, queueId: string) {
  const res = await t.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key: apiKey });
  expect(res.status, show(res)).toBe(200);
  return res.body as { applicationStatus: string; applicationStatusMessage: string | null };
}

describe("balances the drivers report", () => {
  test("sandbox: each outcome records the freelancer's Connects left, and the governor refuses what the balance cannot pay", async () => {
    const t = await open({ governor: true });
    const { accountId, apiKey } = await t.account({ credits: 5 });
    const freelancerId = freelancerIdFor(accountId);

    const first = await queue(t, apiKey, "Rust payments API");
    await submitApplication(t.deps, { applicationId: first }, attempt);
    expect((await statusOf(t, apiKey, first)).applicationStatus).toBe("applied");
    // What the freelancer started with, less what the sandbox took: its own count after the spend.
    const spent = (await findSubmission(t.deps.db, first))!.connectsSpent;
    const left = DEFAULT_CONNECTS - spent;
    expect(spent).toBeGreaterThan(0);
    expect((await findFreelancer(t.deps.db, freelancerId))!.connects).toBe(left);
    expect(await balances(t)).toEqual([{ freelancer_id: freelancerId, available: left, source: "sandbox", read_at_ts: t.clock.now() }]);
    const view = await t.request("GET", `/api/v1/automation?freelancerId=${encodeURIComponent(freelancerId)}`, { key: apiKey });
    expect(view.body.balance).toEqual({ available: left, source: "sandbox", readAt: t.clock.now() });

    // The marketplace's balance falls (Connects spent elsewhere); the next refusal for want of them says so.
    await setConnects(t.deps.db, freelancerId, 5);
    t.clock.advance(60 * 60_000);
    const second = await queue(t, apiKey, "Rust inventory service");
    await submitApplication(t.deps, { applicationId: second }, attempt);
    expect((await statusOf(t, apiKey, second)).applicationStatus).toBe("not_enough_connects");
    expect(await balances(t)).toEqual([{ freelancer_id: freelancerId, available: 5, source: "sandbox", read_at_ts: t.clock.now() }]);

    // Now the governor knows: a third is refused before the sandbox sees it (no submission row for it there).
    t.clock.advance(60 * 60_000);
    const third = await queue(t, apiKey, "Rust robotics tool");
    await submitApplication(t.deps, { applicationId: third }, attempt);
    const refused = await statusOf(t, apiKey, third);
    expect(refused.applicationStatus).toBe("not_enough_connects");
    expect(refused.applicationStatusMessage).toContain("the freelancer has 5 Connects");
    const seen = await rawMany<{ n: number }>(t.deps.db, "test.sandboxSubs", "SELECT count(*) AS n FROM sandbox_submissions WHERE application_id = ?", [third]);
    expect(Number(seen[0]!.n)).toBe(0);
  });

  test("sandbox: an outcome for a freelancer that is not the account's records nothing", async () => {
    const t = await open();
    const { accountId } = await t.account({ credits: 5 });
    await ensureOwnFreelancer(t.deps.db, accountId, t.clock.now());
    const outcome = await t.deps.drivers.sandbox!.submit({
      applicationId: "0190f0aa-1111-7000-8000-00000000000f",
      accountId,
      freelancerId: "~01notmine",
      profileId: "~01notmine",
      job: {
        ciphertext: "~01x",
        url: "https://www.upwork.com/jobs/~01x",
        title: "x",
        jobType: "HOURLY",
        document: {},
        publishTimeTs: t.clock.now(),
        usOnly: false,
      },
      coverLetter: "Hi",
      bid: { hourlyRate: 40, fixedBid: null, timeline: "", boostBids: 0 },
      answers: [],
    });
    expect(outcome.status).toBe("failed");
    expect(outcome.connectsAvailable).toBeUndefined();
  });

  test("companion: the apply page's available Connects, less the cost, become the balance (and a too-few page's count)", async () => {
    const t = await open({ companionTimeoutMs: 10_000, companionMinGapMs: 0 });
    const { accountId, apiKey } = await t.account({ credits: 5 });
    const companion = (await createKey(t.deps, accountId, "browser companion")).apiKey;
    const answers: PageOutcome[] = [
      { page: "submitted", connectsRequired: 12, boostConnects: 3, connectsAvailable: 45 },
      { page: "not_enough_connects", required: 16, available: 9 },
    ];
    let running = true;
    const loop = (async () => {
      while (running) {
        const res = await t.request("GET", "/api/v1/companion/tasks?waitMs=200", { key: companion });
        const task = res.body.task as CompanionTask | null;
        if (!task) continue;
        const op = task.operation;
        const result =
          op.type === "freelancers.list"
            ? { freelancers: [FREELANCER] }
            : op.type === "proposal.submit"
              ? answers.shift()
              : op.type === "proposal.lookup"
                ? { lookup: "none" }
                : null;
        if (result) await t.request("POST", `/api/v1/companion/tasks/${task.taskId}/outcome`, { key: companion, json: { type: op.type, result } });
      }
    })();
    cleanups.push(async () => {
      running = false;
      await loop;
    });
    while (!(await t.deps.drivers.companion.presence(accountId)).connected) await Bun.sleep(5);

    const first = await queue(t, apiKey, "Bun API");
    await submitApplication(t.deps, { applicationId: first }, attempt);
    expect((await statusOf(t, apiKey, first)).applicationStatus).toBe("applied");
    expect(await balances(t)).toEqual([{ freelancer_id: "fl_ada", available: 45, source: "companion", read_at_ts: t.clock.now() }]);

    t.clock.advance(1000);
    const second = await queue(t, apiKey, "Elysia service");
    await submitApplication(t.deps, { applicationId: second }, attempt);
    expect((await statusOf(t, apiKey, second)).applicationStatus).toBe("not_enough_connects");
    expect(await balances(t)).toEqual([{ freelancer_id: "fl_ada", available: 9, source: "companion", read_at_ts: t.clock.now() }]);
  });

  test("companion: a balance out of range is a 400 naming the field, and nothing is recorded", async () => {
    const t = await open();
    const { accountId } = await t.account();
    const companion = (await createKey(t.deps, accountId, "browser companion")).apiKey;
    const res = await t.request("POST", "/api/v1/companion/tasks/nope/outcome", {
      key: companion,
      json: { type: "proposal.submit", result: { page: "submitted", connectsAvailable: -1 } },
    });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error).toContain("result.connectsAvailable");
    expect(await balances(t)).toEqual([]);
  });

  test("bridge: connectsAvailable in the 200 answer and in a callback become the balance; a bad one is left out", async () => {
    let t!: TestApp;
    const receiver = await startBridgeReceiver({ secret: SECRET, deliver: (request) => t.app.handle(request), nowS: () => Math.floor(t.clock.now() / 1000) });
    cleanups.push(() => receiver.close());
    t = await open({ bridgeUrl: receiver.url, bridgeSecret: SECRET, bridgeTimeoutMs: 5000 });
    const { accountId, apiKey } = await t.account({ credits: 5 });
    await setMarketplaceDriver(t.deps, accountId, "bridge");
    const replies: Record<string, unknown>[] = [
      { json: { status: "applied", message: "Sent", connectsRequired: 8, connectsAvailable: 31 } },
      { acceptThenCallback: { outcome: { status: "not_enough_connects", message: "Too few", connectsAvailable: 4 }, afterMs: 20 } },
      { json: { status: "applied", message: "Sent", connectsAvailable: "lots" } },
    ];
    receiver.setFallback((req) =>
      req.body?.type === "freelancers.list" ? { json: { freelancers: [FREELANCER] } } : ((replies.shift() as never) ?? { status: 500 }),
    );

    const first = await queue(t, apiKey, "Bridge one");
    await submitApplication(t.deps, { applicationId: first }, attempt);
    expect((await statusOf(t, apiKey, first)).applicationStatus).toBe("applied");
    expect(await balances(t)).toEqual([{ freelancer_id: "fl_ada", available: 31, source: "bridge", read_at_ts: t.clock.now() }]);

    t.clock.advance(1000);
    const second = await queue(t, apiKey, "Bridge two");
    await submitApplication(t.deps, { applicationId: second }, attempt);
    expect((await statusOf(t, apiKey, second)).applicationStatus).toBe("not_enough_connects");
    expect(await balances(t)).toEqual([{ freelancer_id: "fl_ada", available: 4, source: "bridge", read_at_ts: t.clock.now() }]);

    // Not a count: the outcome stands, the balance stays what it was.
    const before = t.clock.now();
    t.clock.advance(1000);
    const third = await queue(t, apiKey, "Bridge three");
    await submitApplication(t.deps, { applicationId: third }, attempt);
    expect((await statusOf(t, apiKey, third)).applicationStatus).toBe("applied");
    expect(await balances(t)).toEqual([{ freelancer_id: "fl_ada", available: 4, source: "bridge", read_at_ts: before }]);
  });

  test("bridge callback: a balance out of range is a 400 naming the field", async () => {
    const t = await open({ bridgeUrl: "http://127.0.0.1:9/unused", bridgeSecret: SECRET });
    const raw = JSON.stringify({ applicationId: "0190f0aa-1111-7000-8000-000000000009", status: "applied", connectsAvailable: 100_001 });
    const headers = signedHeaders(SECRET, "cb_1", raw, Math.floor(t.clock.now() / 1000));
    const res = await t.app.handle(
      new Request("http://localhost/bridge/callback", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain("connectsAvailable");
  });
});
