import { afterEach, describe, expect, test } from "bun:test";
import type { CompanionTask } from "../src/marketplace/companion/contract";
import { cacheFreelancers } from "../src/marketplace/companion/repo";
import { COMPANION_KEY_LABEL } from "../src/marketplace/driver";
import { createKey, listKeys } from "../src/modules/accounts/service";
import { submitApplication } from "../src/modules/applications/submit.task";
import { OUTCOME_CHECK_MARGIN_MS, syncEngagement } from "../src/modules/applications/sync.task";
import { ingestDocuments } from "../src/modules/intake/ingest";
import { jobSummaries } from "../src/modules/jobs/repo";
import { createPairingCode, unpairCompanion } from "../src/modules/companion/service";
import { createTestApp, show, type TestApp } from "./helpers/app";
import { makeDoc } from "./helpers/factories";

/**
 * Issue 38, item 8: the companion's task channel is the paired companion's alone, pairing again replaces the old
 * companion, and the outcomes the companion reports (which charge credits) are checked against the next "my
 * proposals" list it reads. In-process; the companion's side is its real HTTP routes called with its key.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const attempt = { taskId: 1, attempt: 1, isLastAttempt: false };

/** A concrete path for a route pattern: every `:param` filled in. */
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, "t1");

/** The account settings under /api/v1/companion: any key of the account may read and set them (the dashboard, scripts). */
const SETTINGS = new Set(["GET /api/v1/companion", "PUT /api/v1/companion/mode"]);

/** Every route of the app under /api/v1/companion that takes an API key, as the app declares it (so a new one is covered). */
function companionRoutes(app: TestApp): { method: string; path: string }[] {
  const seen = new Set<string>();
  return app.app.routes.flatMap((route) => {
    const policy = (route.hooks as { policy?: { public?: boolean } } | undefined)?.policy;
    const key = `${route.method} ${route.path}`;
    if (!route.path.startsWith("/api/v1/companion") || route.method === "OPTIONS" || policy?.public || seen.has(key)) return [];
    seen.add(key);
    return [{ method: route.method, path: route.path }];
  });
}

describe("the companion's task channel takes only the companion's key", () => {
  test("every companion task route answers 403 to any other key of the account; the companion's key passes; settings stay open", async () => {
    t = await createTestApp();
    const { accountId, apiKey } = await t.account();
    const bookmarklet = await createKey(t.deps, accountId, "bookmarklet");
    const unlabelled = await createKey(t.deps, accountId, null);
    const companion = await createKey(t.deps, accountId, COMPANION_KEY_LABEL);
    const routes = companionRoutes(t);
    const tasks = routes.filter((r) => !SETTINGS.has(`${r.method} ${r.path}`));
    // The four task routes today; a new route under /api/v1/companion lands in this list and must refuse too.
    expect(tasks.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      [
        "GET /api/v1/companion/tasks",
        "GET /api/v1/companion/tasks/:taskId",
        "POST /api/v1/companion/tasks/:taskId/outcome",
        "POST /api/v1/companion/tasks/:taskId/review",
      ].sort(),
    );
    const bodyFor = (path: string) =>
      path.endsWith("/outcome") ? { type: "session.reconnect", result: { ok: true } } : path.endsWith("/review") ? {} : undefined;
    for (const route of tasks) {
      const path = concrete(route.path) + (route.path.endsWith("/tasks") ? "?waitMs=0" : "");
      for (const key of [apiKey, bookmarklet.apiKey, unlabelled.apiKey]) {
        const res = await t.request(route.method, path, { key, json: bodyFor(route.path) });
        expect(res.status, `${route.method} ${path}: ${show(res)}`).toBe(403);
        expect(res.body.error, `${route.method} ${path}`).toContain("paired browser companion's key");
      }
      // Refused before the body is looked at: a bad body from another key is still the 403.
      if (route.method === "POST") {
        const bad = await t.request(route.method, path, { key: apiKey, json: { nonsense: true } });
        expect(bad.status, `${route.method} ${path}: ${show(bad)}`).toBe(403);
      }
      // The companion's own key gets through the check (the task does not exist: 404, or the empty poll: 200).
      const own = await t.request(route.method, path, { key: companion.apiKey, json: bodyFor(route.path) });
      expect([200, 404], `${route.method} ${path}: ${show(own)}`).toContain(own.status);
    }
    for (const key of [apiKey, bookmarklet.apiKey]) {
      const status = await t.request("GET", "/api/v1/companion", { key });
      expect(status.status, show(status)).toBe(200);
      const mode = await t.request("PUT", "/api/v1/companion/mode", { key, json: { mode: "review" } });
      expect(mode.status, show(mode)).toBe(200);
    }
  });

  test("the bookmarklet's own key still captures pages", async () => {
    t = await createTestApp();
    const { accountId } = await t.account();
    const bookmarklet = await createKey(t.deps, accountId, "bookmarklet");
    const res = await t.request("POST", "/api/v1/capture", {
      key: bookmarklet.apiKey,
      json: { url: "https://www.linkedin.com/jobs/view/4242424242/", title: "Staff engineer", description: "Build things." },
    });
    expect(res.status, show(res)).toBe(201);
  });
});

describe("pairing again replaces the companion", () => {
  async function pair(app: TestApp, accountId: string): Promise<string> {
    const { code } = await createPairingCode(app.deps, accountId);
    const res = await app.request("POST", "/api/v1/companion/pair", { json: { code } });
    expect(res.status, show(res)).toBe(201);
    return res.body.apiKey as string;
  }
  const poll = (app: TestApp, key: string) => app.request("GET", "/api/v1/companion/tasks?waitMs=0", { key });

  test("the old companion's key is revoked when the new one is issued: old 401, new 200, one live companion key", async () => {
    t = await createTestApp();
    const { accountId, apiKey } = await t.account();
    const first = await pair(t, accountId);
    expect((await poll(t, first)).status).toBe(200);
    const second = await pair(t, accountId);
    const old = await poll(t, first);
    expect(old.status, show(old)).toBe(401);
    const now = await poll(t, second);
    expect(now.status, show(now)).toBe(200);
    const live = (await listKeys(t.deps, accountId)).filter((k) => k.label === COMPANION_KEY_LABEL && k.revokedAtTs === null);
    expect(live).toHaveLength(1);
    // The refused companion learns why (its options page says it was replaced), from the extension's origin, with no valid key.
    const state = async (key: string | null) =>
      t!.request("GET", "/api/v1/companion/pair/state", { headers: { origin: "chrome-extension://abcdefghijklmnop", ...(key ? { "x-api-key": key } : {}) } });
    const replaced = await state(first);
    expect(replaced.status, show(replaced)).toBe(200);
    expect(replaced.body).toEqual({ state: "replaced" });
    expect(replaced.headers.get("access-control-allow-origin")).toBe("*");
    expect((await state(second)).body).toEqual({ state: "active" });
    await unpairCompanion(t.deps, accountId);
    expect((await state(second)).body).toEqual({ state: "revoked" });
    const unknown = await state("jp_not-a-key");
    expect(unknown.status, show(unknown)).toBe(404);
    expect(unknown.body.error).toContain("pair the companion again");
    expect((await state(null)).status).toBe(404);
    // The account's other keys are left alone.
    expect((await t.request("GET", "/api/v1/account", { key: apiKey })).status).toBe(200);
  });

  test("at the key limit, pairing again still works (the old companion's place is freed in the same transaction)", async () => {
    t = await createTestApp({ config: { maxApiKeysPerAccount: 2 } });
    const { accountId } = await t.account();
    const first = await pair(t, accountId);
    const second = await pair(t, accountId);
    expect((await poll(t, first)).status).toBe(401);
    expect((await poll(t, second)).status).toBe(200);
  });
});

describe("reported outcomes are checked against the next 'my proposals' read", () => {
  type Outcome = { page: "submitted" } | { page: "job_unavailable" };

  async function setup() {
    t = await createTestApp({ config: { companionMinGapMs: 0, companionTimeoutMs: 10_000 } });
    const app = t;
    const { accountId, apiKey } = await app.account({ credits: 10 });
    const { apiKey: companionKey } = await createKey(app.deps, accountId, COMPANION_KEY_LABEL);
    const profile = { type: "default", name: "Developer", hourlyRate: 40, currency: "USD", profileId: "~01trustprofile" };
    await cacheFreelancers(
      app.deps.db,
      accountId,
      [{ id: "~01trustprofile", name: "Casey", avatarUrl: null, baseHourlyRate: 40, profiles: [profile] }],
      app.clock.now(),
    );

    const companion = async (method: string, path: string, json?: unknown) => {
      const res = await app.request(method, path, { key: companionKey, json });
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(200);
      return res.body;
    };
    const nextTask = async () => ((await companion("GET", "/api/v1/companion/tasks?waitMs=0")) as { task: CompanionTask | null }).task;
    await nextTask(); // the first poll connects it: the account applies through the companion from here

    /** Applies to a new job and has the companion report `outcome` for it; the job's ciphertext and the queue id. */
    async function applied(title: string, outcome: Outcome): Promise<{ queueId: string; ciphertext: string }> {
      const doc = makeDoc({ title });
      await ingestDocuments(app.deps, [doc as never], { source: "companion" });
      const ciphertext = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const res = await app.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: ciphertext, coverLetter: "Hello, I can help." } });
      expect(res.status, show(res)).toBe(200);
      const queueId = res.body.queueId as string;
      const submitting = submitApplication(app.deps, { applicationId: queueId }, attempt);
      let task: CompanionTask | null = null;
      for (let i = 0; i < 100 && !task; i++) {
        task = await nextTask();
        if (!task) await Bun.sleep(10);
      }
      expect(task?.operation.type).toBe("proposal.submit");
      await companion("POST", `/api/v1/companion/tasks/${task!.taskId}/outcome`, { type: "proposal.submit", result: outcome });
      await submitting;
      return { queueId, ciphertext };
    }

    /** Answers every queued engagement read with the given "my proposals" list (or none). */
    async function answerReads(list: { readAt: number; url: string; jobs: string[] } | null): Promise<number> {
      let answered = 0;
      for (let task = await nextTask(); task; task = await nextTask()) {
        expect(task.operation.type).toBe("proposal.engagement");
        const result = { viewed: false, replied: false, ...(list ? { proposals: list } : {}) };
        await companion("POST", `/api/v1/companion/tasks/${task.taskId}/outcome`, { type: "proposal.engagement", result });
        answered++;
      }
      return answered;
    }

    const status = async (queueId: string) => {
      const res = await app.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key: apiKey });
      expect(res.status, show(res)).toBe(200);
      return res.body;
    };
    const credits = async () => (await app.request("GET", "/api/v1/account", { key: apiKey })).body.account.credits as number;
    const proposalsUrl = async (ciphertext: string) => {
      const url = (await jobSummaries(app.deps.db, [ciphertext])).get(ciphertext)!.url;
      return `${new URL(url).origin}/nx/proposals`;
    };
    return { app, accountId, applied, answerReads, status, credits, proposalsUrl };
  }

  test("charged but not listed, and listed though not applied, are flagged (API and log); consistent ones are confirmed; nothing is refunded", async () => {
    const { app, applied, answerReads, status, credits, proposalsUrl } = await setup();
    const listedApplied = await applied("Listed and applied", { page: "submitted" });
    const missingApplied = await applied("Charged but missing", { page: "submitted" });
    const listedFailed = await applied("Failed but listed", { page: "job_unavailable" });
    const unlistedFailed = await applied("Failed and not listed", { page: "job_unavailable" });
    expect((await status(missingApplied.queueId)).applicationStatus).toBe("applied");
    expect((await status(listedFailed.queueId)).applicationStatus).toBe("not_available");
    const creditsBefore = await credits();
    expect(creditsBefore).toBe(8);

    // The first sync asks the companion for engagement; until it has reported a list nothing is checked.
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(missingApplied.queueId)).outcomeCheck).toBeUndefined();

    app.clock.advance(2 * OUTCOME_CHECK_MARGIN_MS);
    const list = { readAt: app.clock.now(), url: await proposalsUrl(listedApplied.ciphertext), jobs: [listedApplied.ciphertext, listedFailed.ciphertext] };
    expect(await answerReads(list)).toBe(2); // one read per applied proposal
    await syncEngagement(app.deps, {}, attempt);

    expect((await status(listedApplied.queueId)).outcomeCheck, "listed and applied").toMatchObject({ result: "confirmed", flagged: false });
    expect((await status(unlistedFailed.queueId)).outcomeCheck, "failed, not listed").toMatchObject({ result: "confirmed", flagged: false });
    const missing = (await status(missingApplied.queueId)).outcomeCheck;
    expect(missing, "charged, not listed").toMatchObject({ result: "not_listed", flagged: true, checkedAt: app.clock.now() });
    expect(missing.message).toContain("nothing was refunded");
    expect((await status(listedFailed.queueId)).outcomeCheck, "failed, listed").toMatchObject({ result: "listed_not_applied", flagged: true });
    // The status itself and the credits stay as the companion reported them: a flag is for a person to look at.
    expect((await status(missingApplied.queueId)).applicationStatus).toBe("applied");
    expect((await status(listedFailed.queueId)).applicationStatus).toBe("not_available");
    expect(await credits()).toBe(creditsBefore);

    const flagged = app.log.lines.filter((line) => line.includes("disagrees with my proposals"));
    expect(
      flagged.some((line) => line.includes(missingApplied.queueId) && line.includes("not_listed")),
      flagged.join("\n"),
    ).toBe(true);
    expect(
      flagged.some((line) => line.includes(listedFailed.queueId) && line.includes("listed_not_applied")),
      flagged.join("\n"),
    ).toBe(true);
    expect(flagged).toHaveLength(2);

    // Checked once: a later list that leaves the confirmed one out (archived, say) changes nothing.
    app.clock.advance(2 * OUTCOME_CHECK_MARGIN_MS);
    await syncEngagement(app.deps, {}, attempt);
    await answerReads({ ...list, readAt: app.clock.now(), jobs: [] });
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(listedApplied.queueId)).outcomeCheck).toMatchObject({ result: "confirmed" });
  });

  test("a read that began too soon after an outcome settled, or on another site, does not judge it", async () => {
    const { app, applied, answerReads, status, proposalsUrl } = await setup();
    const job = await applied("Settled just now", { page: "submitted" });
    const url = await proposalsUrl(job.ciphertext);
    await syncEngagement(app.deps, {}, attempt);
    // Read within the margin after the click: the list may not show the proposal yet.
    await answerReads({ readAt: app.clock.now(), url, jobs: [] });
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(job.queueId)).outcomeCheck).toBeUndefined();
    // A browser clock running ahead cannot date a read after its answer arrived here.
    await answerReads({ readAt: app.clock.now() + 10 * OUTCOME_CHECK_MARGIN_MS, url, jobs: [] });
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(job.queueId)).outcomeCheck).toBeUndefined();
    // A list of another site's proposals (the sandbox website, say) says nothing of a marketplace job.
    app.clock.advance(2 * OUTCOME_CHECK_MARGIN_MS);
    await answerReads({ readAt: app.clock.now(), url: "http://127.0.0.1:9/sandbox/site/nx/proposals", jobs: [] });
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(job.queueId)).outcomeCheck).toBeUndefined();
    app.clock.advance(1000);
    await answerReads({ readAt: app.clock.now(), url, jobs: [job.ciphertext] });
    await syncEngagement(app.deps, {}, attempt);
    expect((await status(job.queueId)).outcomeCheck).toMatchObject({ result: "confirmed", flagged: false });
  });
});
