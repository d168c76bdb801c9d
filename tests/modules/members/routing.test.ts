import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ManualClock } from "../../../src/lib/clock";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import * as members from "../../../src/modules/members/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { runDueTasks } from "../../helpers/apply-worker";
import { makeDoc } from "../../helpers/factories";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TUESDAY_10 = Date.UTC(2026, 11, 8, 10, 0);

async function setup() {
  t = await createTestApp({ clock: new ManualClock(TUESDAY_10), config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ kind: "agency", credits: 50 });
  const bo = (
    await t.request("POST", "/api/v1/freelancers", {
      key: a.apiKey,
      json: { name: "Bo", hourlyRate: 70, profiles: [{ name: "Rust specialist", skills: ["Rust"] }] },
    })
  ).body.freelancer;
  const feed = (await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "Rust", minScore: 0, includes: ["rust"] } })).body.feed;
  const put = (json: unknown) => t!.request("PUT", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey, json });
  return { a, bo, feed, put };
}

describe("routing a feed: PUT /api/v1/automation/feeds/{id}", () => {
  test("a freelancer alone routes to its default profile, a profile names its freelancer, null goes back to the primary", async () => {
    const { bo, put } = await setup();
    let res = await put({ freelancerId: bo.id });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ applyMode: "alert", freelancerId: bo.id, profileId: bo.id });
    const rust = bo.profiles.find((p: { type: string }) => p.type === "specialization");
    res = await put({ profileId: rust.profileId });
    expect(res.body).toMatchObject({ freelancerId: bo.id, profileId: rust.profileId });
    res = await put({ freelancerId: null });
    expect(res.body).toMatchObject({ freelancerId: null, profileId: null });
  });

  test("an unknown freelancer, profile or member is a 400 naming the field, and nothing changes", async () => {
    const { a, bo, feed, put } = await setup();
    await put({ freelancerId: bo.id });
    const other = await t!.account({ kind: "agency", name: "Other" });
    const stranger = (await members.createMember(t!.deps, { accountId: other.accountId, email: "x@example.com", role: "bidder", by: null })).member;
    const ana = (await members.createMember(t!.deps, { accountId: a.accountId, email: "ana@example.com", role: "bidder", by: null })).member;
    for (const [json, field] of [
      [{ freelancerId: "~01ffffffffffffffff" }, "freelancerId"],
      [{ profileId: "no-such-profile" }, "profileId"],
      [{ freelancerId: freelancerIdFor(a.accountId), profileId: bo.id }, "profileId"],
      [{ memberIds: [ana.id, stranger.id] }, "memberIds[1]"],
      [{ freelancerId: null, profileId: bo.id }, "profileId"],
    ] as const) {
      const res = await put(json);
      expect(res.status, `${JSON.stringify(json)}: ${show(res)}`).toBe(400);
      expect(res.body.error, JSON.stringify(json)).toContain(field);
    }
    const read = await t!.request("GET", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey });
    expect(read.body).toMatchObject({ freelancerId: bo.id, profileId: bo.id, memberIds: [] });
  });

  test("members are set exactly, repeats kept once, and cleared with an empty list; a removed member drops out", async () => {
    const { a, feed, put } = await setup();
    const ana = (await members.createMember(t!.deps, { accountId: a.accountId, email: "ana@example.com", role: "bidder", by: null })).member;
    const cy = (await members.createMember(t!.deps, { accountId: a.accountId, email: "cy@example.com", role: "viewer", by: null })).member;
    let res = await put({ memberIds: [cy.id, ana.id, cy.id] });
    expect(res.status, show(res)).toBe(200);
    expect([...res.body.memberIds].sort()).toEqual([ana.id, cy.id].sort());
    res = await put({ memberIds: [ana.id] });
    expect(res.body.memberIds).toEqual([ana.id]);
    const { markRemoved } = await import("../../../src/modules/members/repo");
    await markRemoved(t!.deps.db, ana.id, t!.clock.now());
    expect((await t!.request("GET", `/api/v1/automation/feeds/${feed.id}`, { key: a.apiKey })).body.memberIds).toEqual([]);
    res = await put({ memberIds: [] });
    expect(res.body.memberIds).toEqual([]);
  });

  test("draft mode writes and holds the application as the feed's freelancer and profile", async () => {
    const { a, bo, put } = await setup();
    await setConnects(t!.deps.db, bo.id, 1000);
    const rust = bo.profiles.find((p: { type: string }) => p.type === "specialization");
    expect((await put({ applyMode: "draft", minScore: 0, profileId: rust.profileId })).status).toBe(200);
    const doc = makeDoc({
      title: "Rust developer for a payments API",
      description: "Build a Rust payments API.",
      skills: ["Rust"],
      fixed: 900,
      publishTime: new Date(TUESDAY_10 - 60_000).toISOString(),
    });
    await ingestDocuments(t!.deps, [doc], { source: "test" });
    await runDueTasks(t!);
    const rows = await rawMany<{ freelancer_id: string; profile_id: string; held_reason: string }>(
      t!.deps.db,
      "test.routed",
      "SELECT freelancer_id, profile_id, held_reason FROM applications WHERE account_id = ?",
      [a.accountId],
    );
    expect(rows).toEqual([{ freelancer_id: bo.id, profile_id: rust.profileId, held_reason: "draft" }]);
    // The audit log's draft entry names the freelancer it went out as.
    const audit = (await t!.request("GET", `/api/v1/audit?freelancerId=${bo.id}`, { key: a.apiKey })).body.entries;
    expect(audit.map((e: { action: string }) => e.action)).toContain("draft");
  });
});
