import { afterEach, describe, expect, test } from "bun:test";
import { rawExec } from "../../src/db/query";
import { authenticate } from "../../src/modules/accounts/service";
import * as feeds from "../../src/modules/feeds/service";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { generateJob } from "../../src/sources/sandbox/generator";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * The convention: Unix ms everywhere, ISO 8601 only where the spec says so
 * (the archive's matchedAt, jobTile.job.publishTime, lastClientActivity).
 */
describe("one time convention per field", () => {
  test("archive matches: matchedAt ISO, starredAt and the application's times Unix ms", async () => {
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0 } });
    const a = await t.account({ credits: 3 });
    const auth = (await authenticate(t.deps, a.apiKey))!;
    const feed = await feeds.createFeed(t.deps, auth, { title: "all", minScore: 0 });
    const doc = generateJob({ seed: 5, index: 3, nowTs: t.clock.now() });
    await ingestDocuments(t.deps, [doc], { source: "sandbox" });
    const cipher = (doc.jobTile as any).job.ciphertext as string;
    const list = await t.request("GET", `/api/v1/feeds/${feed.id}/jobs`, { key: a.apiKey });
    const processedJobId = list.body.jobs[0].processedJobId;
    const starred = await t.request("PATCH", `/api/v1/feeds/${feed.id}/jobs/${processedJobId}`, { key: a.apiKey, json: { starred: true } });
    expect(starred.body.starredAt, show(starred)).toBe(t.clock.now());
    expect(starred.body.matchedAt).toMatch(ISO);
    expect((await t.request("POST", "/api/auto-apply-v2/apply", { key: a.apiKey, json: { jobId: cipher, coverLetter: "Hi" } })).status).toBe(200);

    const res = await t.request("GET", `/api/jobs/by-ciphertext?cipher=${encodeURIComponent(cipher)}`, { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    const m = res.body.matches[0];
    expect(m.matchedAt).toMatch(ISO);
    expect(m.starredAt).toBe(t.clock.now());
    expect(m.application.appliedAt).toBe(t.clock.now());
    expect(m.application.proposal.viewedAt).toBeNull();
    expect(typeof res.body.exploredAt).toBe("number");
    expect(res.body.jobTile.job.publishTime).toMatch(ISO);
  });

  test("deliveries and a feed's disabled endpoint: Unix ms", async () => {
    t = await createTestApp();
    const a = await t.account();
    const auth = (await authenticate(t.deps, a.apiKey))!;
    const feed = await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: "https://hooks.example.com/in" });
    const disabledAt = t.clock.now() - 5_000;
    const update = "UPDATE feeds SET webhook_disabled_at_ts = ?, webhook_failing_since_ts = ? WHERE id = ?";
    expect(await rawExec(t.deps.db, update, update, [disabledAt, disabledAt - 1, feed.id])).toBe(1);

    const got = await t.request("GET", `/api/v1/feeds/${feed.id}`, { key: a.apiKey });
    expect(got.body.feed.webhookDisabledAtTs, show(got)).toBe(disabledAt);
    expect(got.body.feed.createdAtTs).toBe(t.clock.now());
    expect(got.body.feed.webhookDisabledAt).toBeUndefined();

    const d = await t.request("GET", `/api/v1/feeds/${feed.id}/deliveries`, { key: a.apiKey });
    expect(d.status, show(d)).toBe(200);
    expect(d.body.endpoint).toMatchObject({ disabledAt, failingSince: disabledAt - 1 });
    expect(d.body.deliveries[0].createdAt).toBe(t.clock.now());
  });
});
