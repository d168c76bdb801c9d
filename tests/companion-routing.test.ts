import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, tables } from "../src/db/query";
import { cacheFreelancers } from "../src/marketplace/companion/repo";
import { COMPANION_KEY_LABEL } from "../src/marketplace/driver";
import { createKey, setMarketplaceDriver } from "../src/modules/accounts/service";
import { submitApplication } from "../src/modules/applications/submit.task";
import { syncEngagement } from "../src/modules/applications/sync.task";
import { ingestDocuments } from "../src/modules/intake/ingest";
import { generateJob } from "../src/sources/sandbox/generator";
import { SANDBOX_NAME } from "../src/sources/sandbox/index";
import { createTestApp, show, type TestApp } from "./helpers/app";
import { makeDoc } from "./helpers/factories";

/**
 * Which driver a proposal goes to (issue 37): the account switches to the browser companion only once it has
 * connected, a job goes to the driver that can reach its marketplace, and an application keeps the driver it was
 * queued with for its submission and its engagement reads. In-process, with the sandbox as the marketplace; the
 * companion's side is its real HTTP routes called with its key.
 */

const ADMIN_TOKEN = "routing-admin-token-0123456789";
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const attempt = { taskId: 1, attempt: 1, isLastAttempt: false };

async function setup() {
  t = await createTestApp({ config: { adminToken: ADMIN_TOKEN, sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const account = await t.account({ credits: 5 });
  const companion = await createKey(t.deps, account.accountId, COMPANION_KEY_LABEL);
  return { t, ...account, companionKey: companion.apiKey };
}

/** One poll of the companion's long poll, answered at once: what "the companion connected" means. */
async function poll(app: TestApp, key: string) {
  const res = await app.request("GET", "/api/v1/companion/tasks?waitMs=0", { key });
  expect(res.status, show(res)).toBe(200);
}

const driverOf = async (app: TestApp, key: string) => (await app.request("GET", "/api/v1/companion", { key })).body.driver as string;

async function ingest(app: TestApp, source: string, doc: Record<string, unknown>): Promise<string> {
  await ingestDocuments(app.deps, [doc as never], { source });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

async function applyTo(app: TestApp, key: string, jobId: string): Promise<string> {
  const res = await app.request("POST", "/api/auto-apply-v2/apply", { key, json: { jobId, coverLetter: "Hello, I can help." } });
  expect(res.status, show(res)).toBe(200);
  return res.body.queueId as string;
}

async function stored(app: TestApp, id: string) {
  const { applications } = tables(app.deps.db);
  return (await one(app.deps.db, app.deps.db.select().from(applications).where(eq(applications.id, id))))!;
}

async function sandboxSubmission(app: TestApp, applicationId: string) {
  const { sandboxSubmissions } = tables(app.deps.db);
  return one(app.deps.db, app.deps.db.select().from(sandboxSubmissions).where(eq(sandboxSubmissions.applicationId, applicationId)));
}

describe("browser companion: CORS on its routes", () => {
  const paths = [
    "/api/v1/companion",
    "/api/v1/companion/mode",
    "/api/v1/companion/tasks",
    "/api/v1/companion/tasks/t1",
    "/api/v1/companion/tasks/t1/outcome",
    "/api/v1/companion/tasks/t1/review",
  ];

  test("a preflight from the extension's origin is answered 204 without a key, naming the methods and headers it may send", async () => {
    t = await createTestApp();
    for (const path of paths) {
      const res = await t.request("OPTIONS", path, {
        headers: {
          origin: "chrome-extension://abcdefghijklmnop",
          "access-control-request-method": path.endsWith("/mode") ? "PUT" : "POST",
          "access-control-request-headers": "content-type,x-api-key",
          "access-control-request-private-network": "true",
        },
      });
      expect(res.status, `${path}: ${show(res)}`).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-methods"), path).toBe("GET, POST, PUT");
      expect(res.headers.get("access-control-allow-headers"), path).toBe("content-type, x-api-key");
      expect(res.headers.get("access-control-allow-private-network"), path).toBe("true");
    }
  });

  test("every answer may be read cross-origin, the 401 for a missing key included; other API routes stay same-origin", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    const companion = await createKey(t.deps, accountId, COMPANION_KEY_LABEL);
    const origin = { origin: "chrome-extension://abcdefghijklmnop" };
    const refused = await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { headers: origin });
    expect(refused.status, show(refused)).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    // Another key of the account is refused (the task channel is the companion's), readably from the extension's origin.
    const notCompanion = await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: apiKey, headers: origin });
    expect(notCompanion.status, show(notCompanion)).toBe(403);
    expect(notCompanion.headers.get("access-control-allow-origin")).toBe("*");
    const polled = await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: companion.apiKey, headers: origin });
    expect(polled.status, show(polled)).toBe(200);
    expect(polled.headers.get("access-control-allow-origin")).toBe("*");
    const status = await t.request("GET", "/api/v1/companion", { key: apiKey, headers: origin });
    expect(status.headers.get("access-control-allow-origin")).toBe("*");
    // Only the companion's routes: the rest of the API is not opened to other origins.
    const feeds = await t.request("GET", "/api/v1/feeds", { key: apiKey, headers: origin });
    expect(feeds.headers.get("access-control-allow-origin")).toBeNull();
    expect((await t.request("OPTIONS", "/api/v1/feeds", { headers: origin })).status).not.toBe(204);
  });
});

describe("which driver a proposal goes to", () => {
  test("pairing alone leaves the account on the sandbox; its companion's first poll switches it", async () => {
    const { t, apiKey, companionKey } = await setup();
    expect(await driverOf(t, apiKey)).toBe("sandbox");
    // A job applied to now goes to the sandbox, not to a companion that may never reach this server.
    const queueId = await applyTo(t, apiKey, await ingest(t, "test", makeDoc({ title: "Before the companion connects" })));
    expect((await stored(t, queueId)).driver).toBe("sandbox");
    await poll(t, companionKey);
    expect(await driverOf(t, apiKey)).toBe("companion");
  });

  test("with the companion connected, a sandbox job still goes to the sandbox driver; a marketplace job to the companion", async () => {
    const { t, apiKey, accountId, companionKey } = await setup();
    await poll(t, companionKey);
    expect(await driverOf(t, apiKey)).toBe("companion");
    // The freelancers the companion listed earlier (its answer to freelancers.list, kept for an hour).
    const profile = { type: "default", name: "Developer", hourlyRate: 40, currency: "USD", profileId: "~01companionprofile" };
    await cacheFreelancers(
      t.deps.db,
      accountId,
      [{ id: "~01companionprofile", name: "Casey", avatarUrl: null, baseHourlyRate: 40, profiles: [profile] }],
      t.clock.now(),
    );

    const sandboxJob = await ingest(t, SANDBOX_NAME, generateJob({ seed: 3, index: 0, nowTs: t.clock.now() }) as never);
    const sandboxApp = await applyTo(t, apiKey, sandboxJob);
    expect((await stored(t, sandboxApp)).driver).toBe("sandbox");
    await submitApplication(t.deps, { applicationId: sandboxApp }, attempt);
    expect(await stored(t, sandboxApp)).toMatchObject({ status: "applied" });
    expect(await sandboxSubmission(t, sandboxApp)).toMatchObject({ status: "applied" });

    const captured = await ingest(t, "companion", makeDoc({ title: "Seen in the user's browser" }));
    const companionApp = await applyTo(t, apiKey, captured);
    expect(await stored(t, companionApp)).toMatchObject({ driver: "companion", freelancerId: "~01companionprofile" });
  });

  test("an application is submitted through the driver it was queued with, even after the account switched", async () => {
    const { t, apiKey, companionKey } = await setup();
    const queueId = await applyTo(t, apiKey, await ingest(t, "test", makeDoc({ title: "Queued before the switch" })));
    expect((await stored(t, queueId)).driver).toBe("sandbox");
    await poll(t, companionKey);
    expect(await driverOf(t, apiKey)).toBe("companion");
    await submitApplication(t.deps, { applicationId: queueId }, attempt);
    expect(await stored(t, queueId)).toMatchObject({ status: "applied", driver: "sandbox" });
    expect(await sandboxSubmission(t, queueId)).toMatchObject({ status: "applied" });
  });

  test("engagement is read through the driver the proposal was sent with, not the account's current one", async () => {
    const { t, apiKey, accountId } = await setup();
    const queueId = await applyTo(t, apiKey, await ingest(t, "test", makeDoc({ title: "Sent through the sandbox" })));
    await submitApplication(t.deps, { applicationId: queueId }, attempt);
    expect(await stored(t, queueId)).toMatchObject({ status: "applied", driver: "sandbox" });
    await setMarketplaceDriver(t.deps, accountId, "companion");
    const replied = await t.request("POST", `/admin/sandbox/submissions/${queueId}/reply`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      json: {},
    });
    expect(replied.status, show(replied)).toBe(200);
    await syncEngagement(t.deps, {}, attempt);
    const status = await t.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key: apiKey });
    expect(status.body.proposalStatus, show(status)).toMatchObject({ viewed: true, replied: true });
  });
});
