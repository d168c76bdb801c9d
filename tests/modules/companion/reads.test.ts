/**
 * The governor's companionReadsPerHour on the companion's capture and "my proposals" endpoints (issue 42), and CORS
 * for GET /api/v1/automation, which the extension reads its working hours from.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { createKey } from "../../../src/modules/accounts/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

const MIN = 60_000;
const HOUR = 60 * MIN;
const EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function open() {
  // 10:00:30, so reads land inside one minute and "an hour later" is a whole number of minutes.
  t = await createTestApp({ clock: new ManualClock(Date.UTC(2026, 11, 7, 10, 0, 30)) });
  const { accountId, apiKey } = await t.account();
  const companion = (await createKey(t.deps, accountId, "browser companion")).apiKey;
  return { t, accountId, apiKey, companion };
}

async function setCap(app: TestApp, apiKey: string, companionReadsPerHour: number) {
  const res = await app.request("PATCH", "/api/v1/automation", { key: apiKey, json: { companionReadsPerHour } });
  expect(res.status, show(res)).toBe(200);
}

const capture = (app: TestApp, key: string, title: string) =>
  app.request("POST", "/api/v1/capture/jobs", { key, json: { pageUrl: "https://www.upwork.com/nx/search/jobs/?q=rust", jobs: [makeDoc({ title })] } });

const refusals = (app: TestApp, accountId: string) =>
  rawMany<{ action: string; rule: string; detail: string; at_ts: number }>(
    app.deps.db,
    "test.audit",
    "SELECT action, rule, detail, at_ts FROM automation_audit WHERE account_id = ? AND action = 'refuse' ORDER BY at_ts",
    [accountId],
  );

const archived = async (app: TestApp, title: string) =>
  Number((await rawMany<{ n: number }>(app.deps.db, "test.jobs", "SELECT count(*) AS n FROM jobs WHERE title = ?", [title]))[0]!.n);

describe("companionReadsPerHour", () => {
  test("captures past the cap are refused with 429 naming the limit and when it frees, logged once each, until the hour has passed", async () => {
    const { t, accountId, apiKey, companion } = await open();
    await setCap(t, apiKey, 3);
    const first = t.clock.now();
    for (const title of ["Rust one", "Rust two"]) expect((await capture(t, companion, title)).status).toBe(200);
    t.clock.advance(10 * MIN);
    expect((await capture(t, companion, "Rust three")).status).toBe(200);

    const refused = await capture(t, companion, "Rust four");
    expect(refused.status, show(refused)).toBe(429);
    // The first two reads' minute leaves the hour at 11:00; then two are left, under the cap of 3.
    const freesAt = first - (first % MIN) + HOUR;
    expect(refused.body.error).toContain("companionReadsPerHour");
    expect(refused.body.error).toContain("3 marketplace pages an hour");
    expect(refused.body.error).toContain(new Date(freesAt).toISOString());
    expect(Number(refused.headers.get("retry-after"))).toBe(Math.ceil((freesAt - t.clock.now()) / 1000));
    // The extension reads it from its own origin.
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(await archived(t, "Rust four")).toBe(0);
    const logged = await refusals(t, accountId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      rule: "companion reads: 3 of 3 in the last hour",
      detail: `refused a job page capture; frees at ${new Date(freesAt).toISOString()}`,
    });

    // Any key of the account counts against the same cap; another account has its own.
    expect((await capture(t, apiKey, "Rust five")).status).toBe(429);
    expect(await refusals(t, accountId)).toHaveLength(2);
    const other = await t.account();
    expect((await capture(t, other.apiKey, "Rust six")).status).toBe(200);

    t.clock.set(freesAt - 1000);
    expect((await capture(t, companion, "Rust seven")).status).toBe(429);
    t.clock.set(freesAt);
    expect((await capture(t, companion, "Rust eight")).status).toBe(200);
    expect(await archived(t, "Rust eight")).toBe(1);
    // One from 10:10, this one and the next fill the cap again.
    expect((await capture(t, companion, "Rust nine")).status).toBe(200);
    expect((await capture(t, companion, "Rust ten")).status).toBe(429);
  });

  test("the default is 60 an hour; 0 refuses every read and says how to change it", async () => {
    const { t, apiKey, companion } = await open();
    for (let i = 0; i < 60; i++) expect((await capture(t, companion, `Bulk ${i}`)).status).toBe(200);
    expect((await capture(t, companion, "Bulk 60")).status).toBe(429);
    await setCap(t, apiKey, 0);
    t.clock.advance(2 * HOUR);
    const refused = await capture(t, companion, "Never");
    expect(refused.status).toBe(429);
    expect(refused.body.error).toContain("companionReadsPerHour");
    expect(refused.body.error).toContain("Auto-apply page");
  });

  test('each new "my proposals" read in an engagement answer counts once; past the cap it is refused and its task given up', async () => {
    const { t, accountId, apiKey, companion } = await open();
    await setCap(t, apiKey, 2);
    const driver = t.deps.drivers.companion;
    const answer = (taskId: string, readAt: number) =>
      t.request("POST", `/api/v1/companion/tasks/${taskId}/outcome`, {
        key: companion,
        json: {
          type: "proposal.engagement",
          result: { viewed: true, replied: false, proposals: { readAt, url: "https://www.upwork.com/nx/proposals", jobs: ["~021"] } },
        },
      });
    async function engagementTask(applicationId: string): Promise<string> {
      await driver.engagement(applicationId, accountId);
      const { task } = (await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: companion })).body;
      expect(task?.operation.type).toBe("proposal.engagement");
      return task.taskId;
    }

    // One read answers three applications' tasks: one read counted.
    const readAt = t.clock.now() - 5000;
    for (const app of ["app-1", "app-2", "app-3"]) expect((await answer(await engagementTask(app), readAt)).status).toBe(200);
    // A capture and a second read fill the cap of 2.
    expect((await capture(t, companion, "Proposals cap")).status).toBe(200);
    const refusedTask = await engagementTask("app-4");
    const refused = await answer(refusedTask, readAt + 90_000);
    expect(refused.status, show(refused)).toBe(429);
    expect(refused.body.error).toContain("companionReadsPerHour");
    expect((await refusals(t, accountId))[0]!.detail).toStartWith('refused a "my proposals" read');
    // Not kept, and the task is given up, so the next sync can ask again.
    const stored = await driver.task(accountId, refusedTask);
    expect(stored).toMatchObject({ state: "expired", answer: null });
    expect(await driver.engagement("app-4", accountId)).toBeNull();
    // An answer without a list (no read made) is not a read.
    const plain = await engagementTask("app-5");
    const res = await t.request("POST", `/api/v1/companion/tasks/${plain}/outcome`, {
      key: companion,
      json: { type: "proposal.engagement", result: { viewed: false, replied: false } },
    });
    expect(res.status, show(res)).toBe(200);
  });
});

describe("CORS for GET /api/v1/automation (the extension's working hours)", () => {
  test("the preflight is answered without a key, for GET with x-api-key", async () => {
    const { t } = await open();
    const res = await t.app.handle(
      new Request("http://localhost/api/v1/automation", {
        method: "OPTIONS",
        headers: { origin: EXTENSION, "access-control-request-method": "GET", "access-control-request-headers": "x-api-key" },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET");
    expect(res.headers.get("access-control-allow-headers")).toContain("x-api-key");
  });

  test("the GET answers an extension origin, its 401 too; the PATCH stays same-origin", async () => {
    const { t, apiKey } = await open();
    const get = await t.request("GET", "/api/v1/automation", { key: apiKey, headers: { origin: EXTENSION } });
    expect(get.status, show(get)).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBe("*");
    expect(get.body.limits).toHaveProperty("workingHours");
    const anonymous = await t.request("GET", "/api/v1/automation", { headers: { origin: EXTENSION } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("access-control-allow-origin")).toBe("*");
    const patch = await t.request("PATCH", "/api/v1/automation", { key: apiKey, json: { proposalsPerDay: 10 }, headers: { origin: EXTENSION } });
    expect(patch.status, show(patch)).toBe(200);
    expect(patch.headers.get("access-control-allow-origin")).toBeNull();
  });
});
