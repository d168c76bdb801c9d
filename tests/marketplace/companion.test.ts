import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Config } from "../../src/config";
import { many, rawMany, tables } from "../../src/db/query";
import { ManualClock } from "../../src/lib/clock";
import type { CompanionTask, PageOutcome } from "../../src/marketplace/companion/contract";
import { createCompanionDriver } from "../../src/marketplace/companion/driver";
import { createKey, getAccount, revokeKey, setMarketplaceDriver } from "../../src/modules/accounts/service";
import { submitApplication } from "../../src/modules/applications/submit.task";
import { pruneOldRows } from "../../src/modules/maintenance/service";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../helpers/app";
import { applyWorker } from "../helpers/apply-worker";
import { useCleanups } from "../helpers/cleanups";
import { browser } from "../helpers/dashboard";
import { makeDoc } from "../helpers/factories";
import { createMigratedPgDatabase, PG_BACKEND } from "../helpers/postgres";

const cleanup = useCleanups();

// Below the 15 s after which a companion that has not polled counts as offline, so moving the clock by them
// does not make the polling fake look gone.
const TIMEOUT_MS = 10_000;
const REVIEW_TIMEOUT_MS = 30 * 60_000;
const GAP_MS = 5_000;
const WINDOW_MS = 5 * 60_000;

const FREELANCERS = [
  {
    id: "fl_ada",
    name: "Ada L.",
    avatarUrl: null,
    baseHourlyRate: 60,
    profiles: [{ type: "default", name: "Ada L.", hourlyRate: 60, currency: "USD", profileId: "~01ada" }],
  },
];

type SubmitScript = (task: CompanionTask & { operation: { type: "proposal.submit" } }, fake: FakeCompanion) => Promise<PageOutcome | "review" | "lost">;

/**
 * The browser companion as the server sees it: an HTTP client that long-polls for tasks and answers them
 * through the app's own handler. It keeps the extension's ledger of submitted application ids and a list of
 * what reached the "marketplace", so a test can count real submissions.
 */
class FakeCompanion {
  readonly tasks: CompanionTask[] = [];
  readonly marketplace: string[] = [];
  readonly ledger = new Set<string>();
  private running = false;
  private loop: Promise<void> | null = null;
  onSubmit: SubmitScript = async () => ({ page: "submitted" });

  constructor(
    public app: TestApp,
    public apiKey: string,
  ) {}

  async call(method: string, path: string, json?: unknown) {
    const res = await this.app.request(method, path, { key: this.apiKey, json });
    if (res.status !== 200) {
      const logged = this.app.log.lines.filter((line) => line.includes('"error"'));
      throw new Error(`fake companion: ${method} ${path} → ${show(res)} ${JSON.stringify(logged)}`);
    }
    return res.body;
  }

  answer(taskId: string, type: string, result: unknown) {
    return this.call("POST", `/api/v1/companion/tasks/${taskId}/outcome`, { type, result });
  }

  start(): this {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const { task } = (await this.call("GET", "/api/v1/companion/tasks?waitMs=300")) as { task: CompanionTask | null };
        if (task) await this.handle(task);
      }
    })().catch((err) => {
      if (this.running) throw err;
    });
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async handle(task: CompanionTask): Promise<void> {
    this.tasks.push(task);
    const op = task.operation;
    switch (op.type) {
      case "proposal.submit": {
        const outcome = await this.onSubmit(task as never, this);
        if (outcome === "lost") return; // submitted, but the answer never reaches the server (a crash)
        if (outcome === "review") {
          await this.call("POST", `/api/v1/companion/tasks/${task.taskId}/review`, { reviewUrl: "chrome-extension://abc/focus.html?task=1" });
          return;
        }
        await this.answer(task.taskId, op.type, outcome);
        return;
      }
      case "proposal.lookup":
        return void (await this.answer(task.taskId, op.type, this.ledger.has(op.applicationId) ? { lookup: "found" } : { lookup: "none" }));
      case "freelancers.list":
        return void (await this.answer(task.taskId, op.type, { freelancers: FREELANCERS }));
      case "proposal.engagement":
        return void (await this.answer(task.taskId, op.type, { viewed: true, replied: false, viewedAt: 1_768_000_000_000 }));
      case "session.reconnect":
        return void (await this.answer(task.taskId, op.type, { ok: false }));
    }
  }

  /** What a real extension does on the page: submit once per application id, remembered in its ledger. */
  submitOnMarketplace(applicationId: string): void {
    if (this.ledger.has(applicationId)) return;
    this.ledger.add(applicationId);
    this.marketplace.push(applicationId);
  }

  submits(): CompanionTask[] {
    return this.tasks.filter((t) => t.operation.type === "proposal.submit");
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

const companionConfig = (over: Partial<Config> = {}): Partial<Config> => ({
  companionTimeoutMs: TIMEOUT_MS,
  companionReviewTimeoutMs: REVIEW_TIMEOUT_MS,
  companionMinGapMs: GAP_MS,
  loggedOutWindowMs: WINDOW_MS,
  ...over,
});

/** An app whose account is paired with a companion (its key labelled "browser companion"), and the fake companion polling. */
async function setup(opts: { config?: Partial<Config>; dbPath?: string; clock?: ManualClock } = {}) {
  const t = await createTestApp({ config: companionConfig(opts.config), dbPath: opts.dbPath, clock: opts.clock });
  cleanup(() => t.close());
  const { accountId } = await t.account({ credits: 3 });
  const { apiKey } = await createKey(t.deps, accountId, "browser companion");
  const fake = new FakeCompanion(t, apiKey).start();
  cleanup(() => fake.stop());
  await until("the companion to connect", async () => (await t.deps.drivers.companion.presence(accountId)).connected);
  return { t, accountId, apiKey, fake };
}

async function queueApplication(t: TestApp, apiKey: string, title = "Bun API") {
  const doc = makeDoc({ title });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: (doc.jobTile as any).job.ciphertext, coverLetter: "Hello" } });
  expect(res.status, show(res)).toBe(200);
  return res.body.queueId as string;
}

const attempt = (n: number, last = false) => ({ taskId: 1, attempt: n, isLastAttempt: last });

async function statusOf(t: TestApp, apiKey: string, queueId: string) {
  const res = await t.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key: apiKey });
  expect(res.status, show(res)).toBe(200);
  return res.body as { applicationStatus: string; applicationStatusMessage: string | null; errorMessage: string | null };
}

describe("companion driver", () => {
  test("a paired account applies through the companion by default; submit → applied, charged once, one proposal", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted", message: "Your proposal was submitted" };
    };
    expect((await t.request("GET", "/api/v1/companion", { key: apiKey })).body).toMatchObject({ driver: "companion", connected: true, mode: "review" });

    const queueId = await queueApplication(t, apiKey);
    await submitApplication(t.deps, { applicationId: queueId }, attempt(1));

    expect(await statusOf(t, apiKey, queueId)).toMatchObject({ applicationStatus: "applied", applicationStatusMessage: "Your proposal was submitted" });
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 0 });
    expect(fake.marketplace).toEqual([queueId]);
    // The same body as the bridge's proposal.submit, plus the account's mode.
    const op = fake.submits()[0]!.operation as Record<string, unknown>;
    expect(op).toMatchObject({
      type: "proposal.submit",
      applicationId: queueId,
      accountId,
      coverLetter: "Hello",
      mode: "review",
      reviewTimeoutMs: REVIEW_TIMEOUT_MS,
    });
    expect(Object.keys(op).sort()).toEqual(
      ["accountId", "answers", "applicationId", "bid", "coverLetter", "freelancerId", "job", "mode", "profileId", "reviewTimeoutMs", "type"].sort(),
    );

    // Running the task again (a duplicate delivery) sends nothing more and charges nothing more.
    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    expect(fake.submits()).toHaveLength(1);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 0 });
  });

  test("through the queue's worker: apply → the companion submits → applied", async () => {
    const { t, apiKey, fake } = await setup();
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const worker = applyWorker(t);
    cleanup(() => worker.stop());
    const queueId = await queueApplication(t, apiKey);
    await until("the application to settle", async () => (await statusOf(t, apiKey, queueId)).applicationStatus !== "processing");
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("applied");
    expect(fake.marketplace).toEqual([queueId]);
  });

  test("an account stays on the sandbox until its paired companion connects; revoking the key takes the default back", async () => {
    const t = await createTestApp({ config: companionConfig() });
    cleanup(() => t.close());
    const { apiKey, accountId } = await t.account();
    const driver = async () => (await t.request("GET", "/api/v1/companion", { key: apiKey })).body.driver;
    expect(await driver()).toBe("sandbox");
    const paired = await createKey(t.deps, accountId, "browser companion");
    // Paired but never heard from (say, it cannot reach this server): applications must not wait for it.
    expect(await driver()).toBe("sandbox");
    const poll = await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: paired.apiKey });
    expect(poll.status, show(poll)).toBe(200);
    expect(await driver()).toBe("companion");
    await revokeKey(t.deps, paired.key.id);
    expect(await driver()).toBe("sandbox");
    // Paired again (another browser): the earlier companion's polls do not count for the new one.
    t.clock.advance(1000);
    const again = await createKey(t.deps, accountId, "browser companion");
    expect(await driver()).toBe("sandbox");
    await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: again.apiKey });
    expect(await driver()).toBe("companion");
  });

  const failures: [string, PageOutcome, string, RegExp][] = [
    ["login redirect", { page: "login_redirect", url: "https://www.upwork.com/ab/account-security/login" }, "logged_out", /log in/],
    ["closed job", { page: "job_unavailable", message: "This job is no longer available" }, "not_available", /no longer available/],
    ["eligibility notice", { page: "not_eligible", message: "Only freelancers located in the U.S. may apply" }, "not_eligible", /U\.S\./],
    ["more Connects needed", { page: "not_enough_connects", required: 24, available: 6 }, "not_enough_connects", /needs 24, 6 available/],
    [
      "unrecognised page",
      { page: "unrecognised", message: "Something went wrong", visibleText: "Oops\nSomething went wrong" },
      "failed",
      /did not recognise: Something went wrong/,
    ],
  ];
  for (const [name, page, status, message] of failures) {
    test(`${name} → ${status}, uncharged`, async () => {
      const { t, accountId, apiKey, fake } = await setup({ config: { loggedOutWindowMs: 0 } });
      fake.onSubmit = async () => page;
      const queueId = await queueApplication(t, apiKey);
      await submitApplication(t.deps, { applicationId: queueId }, attempt(1));
      const s = await statusOf(t, apiKey, queueId);
      expect(s.applicationStatus).toBe(status);
      expect(s.errorMessage).toMatch(message);
      expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 3, creditsHeld: 0 });
      if (page.page === "unrecognised") {
        // The page's visible text is kept with the task, for diagnosis.
        const taskId = fake.submits()[0]!.taskId;
        const kept = await t.request("GET", `/api/v1/companion/tasks/${taskId}`, { key: apiKey });
        expect(kept.status, show(kept)).toBe(200);
        expect(kept.body).toMatchObject({
          taskId,
          type: "proposal.submit",
          applicationId: queueId,
          state: "answered",
          answer: { visibleText: "Oops\nSomething went wrong" },
        });
        // Shown to a person: the task is named, never an API path.
        expect(s.errorMessage).toContain(`companion task ${taskId}`);
        expect(s.errorMessage).not.toContain("/api/");
        // Another account's companion (its task channel takes only a companion's key) does not see this task.
        const other = await createKey(t.deps, (await t.account({ name: "other" })).accountId, "browser companion");
        expect((await t.request("GET", `/api/v1/companion/tasks/${taskId}`, { key: other.apiKey })).status).toBe(404);
      }
    });
  }

  test("a login redirect within the window: session.reconnect is asked, and the retry submits once the session is back", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    let calls = 0;
    fake.onSubmit = async (task, f) => {
      if (++calls === 1) return { page: "login_redirect" };
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const queueId = await queueApplication(t, apiKey);
    await expect(submitApplication(t.deps, { applicationId: queueId }, attempt(1))).rejects.toThrow(/logged out/);
    expect(fake.tasks.map((task) => task.operation.type).slice(1)).toEqual(["proposal.submit", "session.reconnect"]);
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("processing");
    t.clock.advance(GAP_MS);
    await Bun.sleep(400);
    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("applied");
    expect(fake.marketplace).toEqual([queueId]);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 0 });
  });

  test("an outcome body that does not fit its task is a 400 naming the field; another account's task is a 404", async () => {
    const { t, apiKey, fake } = await setup();
    fake.onSubmit = async () => "lost";
    const queueId = await queueApplication(t, apiKey);
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1)).catch(() => undefined);
    await until("the submission to be handed out", () => fake.submits().length === 1);
    const taskId = fake.submits()[0]!.taskId;
    const post = (key: string, json: unknown) => t.request("POST", `/api/v1/companion/tasks/${taskId}/outcome`, { key, json });

    const wrongType = await post(apiKey, { type: "proposal.lookup", result: { lookup: "none" } });
    expect(wrongType.status, show(wrongType)).toBe(400);
    expect(wrongType.body.error).toMatch(/proposal\.submit/);
    const noNumbers = await post(apiKey, { type: "proposal.submit", result: { page: "not_enough_connects" } });
    expect(noNumbers.status, show(noNumbers)).toBe(400);
    const other = await createKey(t.deps, (await t.account({ name: "other" })).accountId, "browser companion");
    expect((await post(other.apiKey, { type: "proposal.submit", result: { page: "submitted" } })).status).toBe(404);
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("processing");

    expect((await post(apiKey, { type: "proposal.submit", result: { page: "submitted" } })).body).toEqual({ ok: true, kept: true });
    await running;
    expect((await post(apiKey, { type: "proposal.submit", result: { page: "not_eligible" } })).body).toEqual({ ok: true, kept: false });
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("applied");
  });

  test("the Connects a submitted page reports are stored once with applied and show in the funnel; bad counts are a 400 naming the field", async () => {
    const { t, apiKey, fake } = await setup();
    fake.onSubmit = async () => "lost";
    const queueId = await queueApplication(t, apiKey);
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1)).catch(() => undefined);
    await until("the submission to be handed out", () => fake.submits().length === 1);
    const taskId = fake.submits()[0]!.taskId;
    const post = (result: Record<string, unknown>) =>
      t.request("POST", `/api/v1/companion/tasks/${taskId}/outcome`, {
        key: apiKey,
        json: { type: "proposal.submit", result: { page: "submitted", ...result } },
      });

    for (const [field, value] of [
      ["connectsRequired", 1001],
      ["connectsRequired", -1],
      ["connectsRequired", 2.5],
      ["boostConnects", "4"],
      ["boostConnects", 5000],
    ] as const) {
      const res = await post({ connectsRequired: 16, [field]: value });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error).toContain(field);
    }
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("processing");

    expect((await post({ connectsRequired: 16, boostConnects: 4 })).body).toEqual({ ok: true, kept: true });
    await running;
    const funnel = async () => (await t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key: apiKey })).body;
    expect(await funnel()).toMatchObject({ applicationStatus: "applied", connectsRequired: 16, boostConnects: 4, connectsCostUsd: 3 });
    // A second report (another count) changes nothing: the first outcome and its Connects stand.
    expect((await post({ connectsRequired: 30, boostConnects: 0 })).body).toEqual({ ok: true, kept: true });
    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    expect(await funnel()).toMatchObject({ connectsRequired: 16, boostConnects: 4 });
  });

  test("a submitted page without Connects leaves them null; a restarted server reads them back from the task's answer", async () => {
    const { t, accountId, apiKey, fake } = await setup({ config: { companionMinGapMs: 0 } });
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const plain = await queueApplication(t, apiKey, "No numbers");
    await submitApplication(t.deps, { applicationId: plain }, attempt(1));
    expect((await t.request("GET", `/api/v1/applications/${plain}/funnel`, { key: apiKey })).body).toMatchObject({
      applicationStatus: "applied",
      connectsRequired: null,
      boostConnects: null,
      connectsCostUsd: null,
    });

    // Answered through one driver, waited for by another (a restart, or another node): the outcome table has no
    // Connects, the submit task's stored answer does.
    fake.onSubmit = async () => "lost";
    const queueId = await queueApplication(t, apiKey, "Counted");
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1)).catch(() => undefined);
    await until("the submission to be handed out", () => fake.submits().length === 2);
    const other = createCompanionDriver(t.deps);
    const taskId = fake.submits()[1]!.taskId;
    expect(await other.answer(accountId, taskId, { type: "proposal.submit", result: { page: "submitted", connectsRequired: 8 } })).toEqual({
      ok: true,
      kept: true,
    });
    await running;
    expect((await t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key: apiKey })).body).toMatchObject({
      connectsRequired: 8,
      boostConnects: 0,
    });
  });

  test("no answer within JOBPILOT_COMPANION_TIMEOUT_MS → retried through lookup, which finds it: applied without a second submit", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return "lost";
    };
    const queueId = await queueApplication(t, apiKey);
    const first = submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    await until("the submission to be handed out", () => fake.submits().length === 1);
    t.clock.advance(TIMEOUT_MS - 1);
    await Bun.sleep(400);
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("processing");
    t.clock.advance(2);
    await expect(first).rejects.toThrow(/no outcome within 10000 ms/);

    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    expect(fake.tasks.map((task) => task.operation.type)).toEqual(["freelancers.list", "proposal.submit", "proposal.lookup"]);
    expect(await statusOf(t, apiKey, queueId)).toMatchObject({ applicationStatus: "applied" });
    expect(fake.marketplace).toEqual([queueId]);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 0 });
  });

  test("lookup finding nothing sends the proposal again, once", async () => {
    const { t, apiKey, fake } = await setup();
    let calls = 0;
    fake.onSubmit = async (task, f) => {
      if (++calls === 1) return "lost"; // the extension crashed before submitting
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const queueId = await queueApplication(t, apiKey);
    const first = submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    await until("the submission to be handed out", () => fake.submits().length === 1);
    t.clock.advance(TIMEOUT_MS + 1);
    await expect(first).rejects.toThrow(/no outcome/);
    t.clock.advance(GAP_MS);
    await Bun.sleep(400); // the fake polls again at the new time
    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    expect(fake.tasks.map((task) => task.operation.type).slice(1)).toEqual(["proposal.submit", "proposal.lookup", "proposal.submit"]);
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("applied");
    expect(fake.marketplace).toEqual([queueId]);
  });

  test("set to the companion but never connected, so no freelancers known: listing them and applying are a 503 that says why, and nothing is queued or held", async () => {
    const t = await createTestApp({ config: companionConfig() });
    cleanup(() => t.close());
    const { accountId, apiKey } = await t.account({ credits: 3 });
    await createKey(t.deps, accountId, "browser companion");
    // Chosen by the account itself (a companion that has not connected is not chosen for it).
    await setMarketplaceDriver(t.deps, accountId, "companion");
    for (const path of ["/api/auto-apply-v2/freelancers", "/api/auto-apply/external/freelancers"]) {
      const res = await t.request("GET", path, { key: apiKey });
      expect(res.status, show(res)).toBe(503);
      expect(res.body.error).toMatch(/^Cannot list this account's freelancers now: The browser companion is not connected/);
    }
    const doc = makeDoc({ title: "Bun API" });
    await ingestDocuments(t.deps, [doc], { source: "test" });
    const applied = await t.request("POST", "/api/auto-apply-v2/apply", {
      key: apiKey,
      json: { jobId: (doc.jobTile as any).job.ciphertext, coverLetter: "Hello" },
    });
    expect(applied.status, show(applied)).toBe(503);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 3, creditsHeld: 0 });
    const [queued] = await rawMany<{ n: number | string }>(t.deps.db, "test.applications", "SELECT count(*) AS n FROM applications", []);
    expect(Number(queued!.n)).toBe(0);
  });

  test("companion offline longer than JOBPILOT_LOGGED_OUT_WINDOW_MS → logged_out, uncharged, saying the companion is offline", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    const queueId = await queueApplication(t, apiKey);
    await fake.stop();
    t.clock.advance(20_000); // past the 15 s a poll keeps it connected

    // Within the window: still processing, retried.
    await expect(submitApplication(t.deps, { applicationId: queueId }, attempt(1))).rejects.toThrow(/logged out/);
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("processing");
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 1 });

    // The window counts from the companion's last connection, not from this application's first attempt.
    t.clock.advance(WINDOW_MS - 20_000 + 1);
    await submitApplication(t.deps, { applicationId: queueId }, attempt(2));
    const s = await statusOf(t, apiKey, queueId);
    expect(s.applicationStatus).toBe("logged_out");
    expect(s.errorMessage).toMatch(/browser companion is offline/);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 3, creditsHeld: 0 });
    expect(fake.submits()).toHaveLength(0);
  });

  test("a queued submission whose companion goes away is withdrawn unsent, then logged_out", async () => {
    const { t, apiKey, fake } = await setup({ config: { loggedOutWindowMs: 0 } });
    const queueId = await queueApplication(t, apiKey);
    await fake.stop();
    // Connected a moment ago: the task is queued and waits for a poll that never comes.
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    await Bun.sleep(300);
    t.clock.advance(20_000);
    await running;
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("logged_out");
    // The task was cancelled: a companion that comes back is not handed a stale submission…
    fake.start();
    await Bun.sleep(400);
    expect(fake.submits()).toHaveLength(0);
    // …and an answer naming it changes nothing.
    const { companionTasks } = tables(t.deps.db);
    const [cancelled] = await many(t.deps.db, t.deps.db.select().from(companionTasks).where(eq(companionTasks.applicationId, queueId)));
    expect(cancelled?.state).toBe("cancelled");
    expect(await fake.answer(cancelled!.id, "proposal.submit", { page: "submitted" })).toEqual({ ok: true, kept: false });
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("logged_out");
  });

  test("review mode: waiting for review is shown; the user's click → applied; JOBPILOT_COMPANION_TIMEOUT_MS does not cut the review short", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    fake.onSubmit = async () => "review";
    const queueId = await queueApplication(t, apiKey);
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    await until("the form to wait for review", async () => (await t.deps.drivers.companion.inReview(accountId)).size === 1);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(TIMEOUT_MS);
      await Bun.sleep(300);
    }
    // The API says it too, with the spec's status unchanged.
    const waiting = await statusOf(t, apiKey, queueId);
    expect(waiting.applicationStatus).toBe("processing");
    expect(waiting.applicationStatusMessage).toMatch(/^Waiting for your review/);

    const dashboard = browser(() => t);
    const page = await dashboard.get("/dashboard/applications", (await dashboard.signIn(apiKey)).token);
    expect(page.text).toContain("Waiting for your review");
    expect(page.text).toContain("chrome-extension://abc/focus.html?task=1");

    // The user clicks submit on the filled form; the extension reports what the page said.
    await fake.answer(fake.submits()[0]!.taskId, "proposal.submit", { page: "submitted" });
    await running;
    expect((await statusOf(t, apiKey, queueId)).applicationStatus).toBe("applied");
  });

  test("review mode: a form left unreviewed for JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS → failed (not reviewed), uncharged", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    fake.onSubmit = async () => "review";
    const queueId = await queueApplication(t, apiKey);
    const running = submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    await until("the form to wait for review", async () => (await t.deps.drivers.companion.inReview(accountId)).size === 1);
    t.clock.advance(REVIEW_TIMEOUT_MS + 1);
    await running;
    const s = await statusOf(t, apiKey, queueId);
    expect(s.applicationStatus).toBe("failed");
    expect(s.errorMessage).toMatch(/^Not reviewed/);
    expect(await getAccount(t.deps, accountId)).toMatchObject({ credits: 3, creditsHeld: 0 });
  });

  test("auto mode needs an explicit opt-in; the submit task carries the mode", async () => {
    const { t, apiKey, fake } = await setup();
    const refused = await t.request("PUT", "/api/v1/companion/mode", { key: apiKey, json: { mode: "auto" } });
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.body.error).toMatch(/acceptAutoSubmitRisk.*own risk/);
    const accepted = await t.request("PUT", "/api/v1/companion/mode", { key: apiKey, json: { mode: "auto", acceptAutoSubmitRisk: true } });
    expect(accepted.body).toMatchObject({ mode: "auto", autoAcceptedAt: t.clock.now() });

    const queueId = await queueApplication(t, apiKey);
    await submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    expect(fake.submits()[0]!.operation).toMatchObject({ mode: "auto" });
    // An auto submission cannot be parked for review.
    const review = await t.request("POST", `/api/v1/companion/tasks/${fake.submits()[0]!.taskId}/review`, { key: apiKey, json: {} });
    expect(review.status, show(review)).toBe(400);
  });

  test("dashboard: the driver and the mode are set per account; auto needs the box under the warning ticked", async () => {
    const t = await createTestApp({ config: companionConfig() });
    cleanup(() => t.close());
    const { apiKey, accountId } = await t.account();
    const dashboard = browser(() => t);
    const { token, csrf } = await dashboard.signIn(apiKey);
    const settings = await dashboard.get("/dashboard/auto-apply", token);
    expect(settings.status, show(settings)).toBe(200);
    expect(settings.text).toContain("at your own risk");
    expect(settings.text).toContain("<strong>sandbox</strong>");

    expect((await dashboard.post("/dashboard/auto-apply/driver", token, { csrf, driver: "companion" })).status).toBe(303);
    expect((await getAccount(t.deps, accountId)).marketplaceDriver).toBe("companion");
    expect((await dashboard.post("/dashboard/auto-apply/driver", token, { csrf, driver: "telepathy" })).status).toBe(400);
    expect((await getAccount(t.deps, accountId)).marketplaceDriver).toBe("companion");

    const unticked = await dashboard.post("/dashboard/auto-apply/mode", token, { csrf, mode: "auto" });
    expect(unticked.status).toBe(400);
    expect(unticked.text).toContain("tick the box");
    expect((await t.deps.drivers.companion.presence(accountId)).mode).toBe("review");
    expect((await dashboard.post("/dashboard/auto-apply/mode", token, { csrf, mode: "auto", acceptAutoSubmitRisk: "yes" })).status).toBe(303);
    expect((await t.deps.drivers.companion.presence(accountId)).mode).toBe("auto");
    expect((await dashboard.post("/dashboard/auto-apply/mode", token, { csrf, mode: "review" })).status).toBe(303);
    expect((await t.deps.drivers.companion.presence(accountId)).mode).toBe("review");
    // Without the session's CSRF token nothing changes.
    expect((await dashboard.post("/dashboard/auto-apply/driver", token, { driver: "sandbox" })).status).toBe(403);
    expect((await getAccount(t.deps, accountId)).marketplaceDriver).toBe("companion");
  });

  test("pacing: one submission at a time, and the next only JOBPILOT_COMPANION_MIN_GAP_MS after the last ended", async () => {
    const { t, apiKey, fake } = await setup();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    fake.onSubmit = async (task, f) => {
      if (f.submits().length === 1) await held;
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const a = await queueApplication(t, apiKey, "first");
    const b = await queueApplication(t, apiKey, "second");
    const runA = submitApplication(t.deps, { applicationId: a }, attempt(1));
    await until("the first submission", () => fake.submits().length === 1);
    const runB = submitApplication(t.deps, { applicationId: b }, attempt(1));
    // While the first is in flight the second waits, however much time passes (within the timeout).
    t.clock.advance(GAP_MS * 1.5);
    await Bun.sleep(500);
    expect(fake.submits()).toHaveLength(1);

    release();
    await runA;
    await Bun.sleep(500);
    expect(fake.submits()).toHaveLength(1); // the gap counts from the end of the first
    t.clock.advance(GAP_MS - 1);
    await Bun.sleep(500);
    expect(fake.submits()).toHaveLength(1);
    t.clock.advance(1);
    await runB;
    expect(fake.marketplace).toEqual([a, b]);
  });

  test("lookup and engagement answers; freelancers come from the extension and are cached", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return { page: "submitted" };
    };
    const queueId = await queueApplication(t, apiKey);
    await submitApplication(t.deps, { applicationId: queueId }, attempt(1));
    const res = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: apiKey });
    expect(res.body.freelancers[0]).toMatchObject({ id: "fl_ada", profiles: [{ profileId: "~01ada" }] });
    expect(fake.tasks.filter((task) => task.operation.type === "freelancers.list")).toHaveLength(1);

    const driver = t.deps.drivers.companion;
    // The first call queues a read and returns what is known (nothing yet); a later call returns the answer.
    expect(await driver.engagement(queueId, accountId)).toBeNull();
    await until("the engagement read", () => fake.tasks.some((task) => task.operation.type === "proposal.engagement"));
    await Bun.sleep(50);
    expect(await driver.engagement(queueId, accountId)).toEqual({ viewed: true, replied: false, viewedAt: 1_768_000_000_000 });
  });
});

describe("companion tasks and retention", () => {
  test("tasks that ended before JOBPILOT_RETENTION_DAYS are deleted; open ones stay whatever their age", async () => {
    const { t, accountId, apiKey, fake } = await setup();
    const queueId = await queueApplication(t, apiKey); // its freelancers.list was answered: an ended task
    await fake.stop();
    expect(await t.deps.drivers.companion.engagement(queueId, accountId)).toBeNull(); // queues a read nobody takes: an open task
    const { companionTasks } = tables(t.deps.db);
    const types = async () => (await many(t.deps.db, t.deps.db.select().from(companionTasks))).map((task) => `${task.type} ${task.state}`).sort();
    expect(await types()).toEqual(["freelancers.list answered", "proposal.engagement queued"]);

    t.clock.advance(89 * 24 * 60 * 60_000);
    expect((await pruneOldRows(t.deps, { retentionDays: 90, pauseMs: 0 })).companionTasks).toBe(0);
    t.clock.advance(2 * 24 * 60 * 60_000);
    expect((await pruneOldRows(t.deps, { retentionDays: 90, pauseMs: 0 })).companionTasks).toBe(1);
    expect(await types()).toEqual(["proposal.engagement queued"]);
  });
});

describe("companion driver across a restart", () => {
  test("the server dies while the companion holds a submission: the new server reconciles through lookup, never two proposals", async () => {
    const pg = PG_BACKEND ? await createMigratedPgDatabase() : undefined;
    if (pg) cleanup(() => pg.drop());
    const where = pg ? { config: { databaseUrl: pg.url, databasePoolSize: 4 } } : { dbPath: join(mkdtempSync(join(tmpdir(), "jp-companion-")), "c.db") };
    const clock = new ManualClock();
    const first = await createTestApp({ ...where, config: { ...companionConfig(), ...where.config }, clock });
    const { accountId } = await first.account({ credits: 3 });
    const { apiKey } = await createKey(first.deps, accountId, "browser companion");
    const fake = new FakeCompanion(first, apiKey).start();
    cleanup(() => fake.stop());
    // As setup() does: applying asks the companion for the account's freelancers, so it must have connected first.
    await until("the companion to connect", async () => (await first.deps.drivers.companion.presence(accountId)).connected);
    fake.onSubmit = async (task, f) => {
      f.submitOnMarketplace(task.operation.applicationId);
      return "lost"; // its answer dies with the server
    };
    const queueId = await queueApplication(first, apiKey);
    const dying = submitApplication(first.deps, { applicationId: queueId }, attempt(1)).catch(() => "died");
    await until("the submission to be handed out", () => fake.submits().length === 1);
    await fake.stop();
    await first.close(); // the process is gone; its waiting submit fails with the closed database
    expect(await dying).toBe("died");

    const second = await createTestApp({ ...where, config: { ...companionConfig(), ...where.config }, clock });
    cleanup(() => second.close());
    fake.app = second;
    fake.start();
    // The task is re-run (phase submitting): the handed-out submission is waited for until it times out…
    const retry = submitApplication(second.deps, { applicationId: queueId }, attempt(2));
    await Bun.sleep(300);
    clock.advance(TIMEOUT_MS + 1);
    await expect(retry).rejects.toThrow(/no outcome/);
    // …then looked up, found on the marketplace, and settled without sending it again.
    await submitApplication(second.deps, { applicationId: queueId }, attempt(3));
    expect(await statusOf(second, apiKey, queueId)).toMatchObject({ applicationStatus: "applied" });
    expect(fake.submits()).toHaveLength(1);
    expect(fake.marketplace).toEqual([queueId]);
    expect(await getAccount(second.deps, accountId)).toMatchObject({ credits: 2, creditsHeld: 0 });
  });
});
