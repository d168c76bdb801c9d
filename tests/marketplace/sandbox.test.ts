import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { SubmitRequest } from "../../src/marketplace/driver";
import { sandboxAdminRoutes } from "../../src/marketplace/sandbox/admin";
import { createSandboxDriver } from "../../src/marketplace/sandbox/driver";
import * as repo from "../../src/marketplace/sandbox/repo";
import * as rules from "../../src/marketplace/sandbox/rules";
import { createErrorHandler } from "../../src/http/error-handler";
import { newId } from "../../src/lib/ids";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { findJob } from "../../src/modules/jobs/repo";
import { createTestApp, type TestApp } from "../helpers/app";
import { makeDoc } from "../helpers/factories";

const ADMIN_TOKEN = "admin-token-0123456789";
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let t: TestApp;
afterEach(() => t?.close());

async function setup() {
  t = await createTestApp({ config: { adminToken: ADMIN_TOKEN, sandboxApplyLatencyMs: 0 } });
  const driver = createSandboxDriver(t.deps);
  // The integrator mounts these under the app's /admin auth; here they run on their own, with the app's error handler.
  const handleError = createErrorHandler(t.deps, () => []);
  const admin = new Elysia()
    .onError(({ code, error, request, set }) => handleError({ code, error, request, set: set as Parameters<typeof handleError>[0]["set"] }))
    .use(sandboxAdminRoutes(t.deps));
  async function call(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
    if (json !== undefined) headers["content-type"] = "application/json";
    const res = await admin.handle(
      new Request(`http://localhost/admin/sandbox${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
  return { driver, call };
}

/** Archives a job document and returns the job part of a SubmitRequest, built from the archived row. */
async function archive(doc: Record<string, unknown>): Promise<SubmitRequest["job"]> {
  const result = await ingestDocuments(t.deps, [doc], { source: "test" });
  expect(result.rejected).toBe(0);
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const row = (await findJob(t.deps.db, cipher))!;
  return {
    ciphertext: row.ciphertext,
    url: row.url,
    title: row.title,
    jobType: row.jobType,
    document: row.document,
    publishTimeTs: row.publishTimeTs,
    usOnly: row.usOnly,
  };
}

function request(
  accountId: string,
  freelancerId: string,
  profileId: string,
  job: SubmitRequest["job"],
  over: Partial<SubmitRequest> & { boostBids?: number } = {},
): SubmitRequest {
  return {
    applicationId: over.applicationId ?? newId(),
    accountId,
    freelancerId,
    profileId,
    job,
    coverLetter: "Hello, I can help with this.",
    bid: { hourlyRate: 45, fixedBid: null, timeline: "1 to 3 months", boostBids: over.boostBids ?? 0 },
    answers: [],
  };
}

/** A solo account and its sandbox freelancer. */
async function soloFreelancer(driver: Awaited<ReturnType<typeof setup>>["driver"]) {
  const { accountId } = await t.account({ kind: "solo" });
  const [freelancer] = await driver.freelancers(accountId);
  return { accountId, freelancer: freelancer!, connects: async () => (await repo.findFreelancer(t.deps.db, freelancer!.id))!.connects };
}

describe("rules", () => {
  test("Connects price: listed connectPrice wins, else by budget", () => {
    const fixed = (b: number) => rules.connectsPrice({}, { jobType: "FIXED", fixedBudget: b, hourlyMin: null, hourlyMax: null });
    const hourly = (max: number) => rules.connectsPrice({}, { jobType: "HOURLY", fixedBudget: null, hourlyMin: 5, hourlyMax: max });
    expect([fixed(99), fixed(100), fixed(499), fixed(500), fixed(1999), fixed(2000)]).toEqual([4, 8, 8, 12, 12, 16]);
    expect([hourly(29), hourly(30), hourly(59), hourly(60)]).toEqual([6, 10, 10, 14]);
    expect(rules.connectsPrice({}, { jobType: null, fixedBudget: null, hourlyMin: null, hourlyMax: null })).toBe(8);
    expect(rules.connectsPrice({ connectPrice: 6 }, { jobType: "FIXED", fixedBudget: 5000, hourlyMin: null, hourlyMax: null })).toBe(6);
    expect(rules.connectsPrice({ connectPrice: "6" }, { jobType: "FIXED", fixedBudget: 5000, hourlyMin: null, hourlyMax: null })).toBe(16);
  });

  test("ids are deterministic and shaped like the marketplace's", () => {
    expect(rules.freelancerIdFor("acct-1")).toMatch(/^~01[0-9a-f]{16}$/);
    expect(rules.freelancerIdFor("acct-1")).toBe(rules.freelancerIdFor("acct-1"));
    expect(rules.freelancerIdFor("acct-1")).not.toBe(rules.freelancerIdFor("acct-2"));
    expect(rules.freelancerIdFor("acct-1", "Ann")).not.toBe(rules.freelancerIdFor("acct-1"));
    expect(rules.specializationIdFor("acct-1")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rules.nameFor("acct-1")).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
  });

  test("engagement plans: views 5–120 min after submitting, about half reply 10–240 min after the view", () => {
    let replies = 0;
    for (let i = 0; i < 400; i++) {
      const plan = rules.engagementPlan(`app-${i}`);
      expect(plan.viewDelayMs).toBeGreaterThanOrEqual(5 * MINUTE);
      expect(plan.viewDelayMs).toBeLessThanOrEqual(120 * MINUTE);
      if (plan.replyDelayMs !== null) {
        replies++;
        expect(plan.replyDelayMs).toBeGreaterThanOrEqual(10 * MINUTE);
        expect(plan.replyDelayMs).toBeLessThanOrEqual(240 * MINUTE);
      }
    }
    expect(replies).toBeGreaterThan(160);
    expect(replies).toBeLessThan(240);
  });
});

describe("freelancers", () => {
  test("a solo account gets one freelancer with a default and a specialization profile, created once", async () => {
    const { driver } = await setup();
    const { accountId } = await t.account({ kind: "solo" });
    const first = await driver.freelancers(accountId);
    expect(first).toHaveLength(1);
    const f = first[0]!;
    expect(Object.keys(f).sort()).toEqual(["avatarUrl", "baseHourlyRate", "id", "name", "profiles"]);
    expect(f.id).toBe(rules.freelancerIdFor(accountId));
    expect(f).toMatchObject({ name: rules.nameFor(accountId), avatarUrl: null, baseHourlyRate: 45 });
    expect(f.profiles).toEqual([
      { type: "default", name: "Full-Stack Web Developer", hourlyRate: 45, currency: "USD", profileId: f.id },
      { type: "specialization", name: "React & Node.js Specialist", hourlyRate: 55, currency: "USD", profileId: rules.specializationIdFor(accountId) },
    ]);
    expect(await driver.freelancers(accountId)).toEqual(first);
    expect(await repo.listFreelancers(t.deps.db, accountId)).toHaveLength(1);
    expect(await repo.findFreelancer(t.deps.db, f.id)).toMatchObject({ country: "US", jobSuccessScore: 92, connects: 80 });
  });

  test("an agency sees its own freelancer and every one an admin added; a solo account cannot add any", async () => {
    const { driver, call } = await setup();
    const agency = await t.account({ kind: "agency" });
    const added = await call("POST", `/accounts/${agency.accountId}/freelancers`, {
      name: "Ana Lima",
      country: "br",
      hourlyRate: 60,
      jobSuccessScore: 100,
      connects: 30,
      profiles: [{ name: "Shopify Expert", hourlyRate: 70 }],
    });
    expect(added.status).toBe(201);
    const ana = added.body.freelancer;
    expect(ana).toMatchObject({ id: rules.freelancerIdFor(agency.accountId, "Ana Lima"), name: "Ana Lima", country: "BR", jobSuccessScore: 100, connects: 30 });
    expect(ana.profiles.map((p: any) => [p.type, p.name, p.hourlyRate])).toEqual([
      ["default", rules.profileTitleFor(ana.id), 60],
      ["specialization", "Shopify Expert", 70],
    ]);
    expect(ana.profiles[1].profileId).toBe(rules.addedSpecializationIdFor(ana.id, "Shopify Expert"));

    const list = await driver.freelancers(agency.accountId);
    expect(list.map((f) => f.id)).toEqual([rules.freelancerIdFor(agency.accountId), ana.id]);
    expect((await call("POST", `/accounts/${agency.accountId}/freelancers`, { name: "Ana Lima" })).status).toBe(400);

    const adminList = await call("GET", `/accounts/${agency.accountId}/freelancers`);
    expect(adminList.status).toBe(200);
    expect(adminList.body.freelancers.map((f: any) => [f.country, f.connects])).toEqual([
      ["US", 80],
      ["BR", 30],
    ]);

    const solo = await t.account({ kind: "solo" });
    const refused = await call("POST", `/accounts/${solo.accountId}/freelancers`, { name: "Bob" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("solo");
    expect(await driver.freelancers(solo.accountId)).toHaveLength(1);
    expect((await call("GET", "/accounts/no-such-account/freelancers")).status).toBe(404);
  });
});

describe("admin routes in the app", () => {
  test("served under /admin with the bearer token, refused without it", async () => {
    await setup();
    const { accountId } = await t.account({ kind: "solo" });
    const path = `/admin/sandbox/accounts/${accountId}/freelancers`;
    const ok = await t.request("GET", path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.body.freelancers[0]).toMatchObject({ id: rules.freelancerIdFor(accountId), country: "US", connects: 80, jobSuccessScore: 92 });
    expect((await t.request("GET", path)).status).toBe(401);
  });
});

describe("submit", () => {
  test("applied: spends the job's Connects once per application; a repeat returns the same outcome", async () => {
    const { driver } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    const job = await archive(makeDoc({ hourly: [30, 60] })); // max rate 60 → 14 Connects
    const req = request(accountId, freelancer.id, freelancer.profiles[0]!.profileId, job);
    const outcome = await driver.submit(req);
    expect(outcome.status).toBe("applied");
    expect(outcome.message).toContain("14 Connects spent");
    expect(outcome.connects).toEqual({ required: 14, boost: 0 });
    expect(await connects()).toBe(80 - 14);

    expect(await driver.submit(req)).toEqual(outcome);
    expect(await connects()).toBe(80 - 14);
    expect(await driver.lookup(req)).toEqual(outcome);
  });

  test("a second application to the same job with the same freelancer fails without spending", async () => {
    const { driver } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    const job = await archive(makeDoc({ fixed: 500 })); // 12 Connects
    expect((await driver.submit(request(accountId, freelancer.id, freelancer.id, job))).status).toBe("applied");
    const again = request(accountId, freelancer.id, freelancer.profiles[1]!.profileId, job);
    const outcome = await driver.submit(again);
    expect(outcome).toEqual({ status: "failed", message: "Already applied to this job with this freelancer" });
    expect(await connects()).toBe(80 - 12);
    expect(await driver.lookup(again)).toEqual(outcome);
  });

  test("not_available: closed by an admin, posted more than 30 days ago, or a status other than ACTIVE", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    const submit = (job: SubmitRequest["job"]) => driver.submit(request(accountId, freelancer.id, freelancer.id, job));

    const closed = await archive(makeDoc());
    expect(await call("POST", `/jobs/${encodeURIComponent(closed.ciphertext)}/close`)).toEqual({
      status: 200,
      body: { ciphertext: closed.ciphertext, closed: true },
    });
    expect(await submit(closed)).toEqual({ status: "not_available", message: "This job is no longer available: the client closed it" });

    const authClosed = makeDoc();
    authClosed.authJobDetailsResponse = { data: { jobAuthDetails: { opening: { job: { status: "CLOSED" } } } } };
    expect((await submit(await archive(authClosed))).status).toBe("not_available");
    const pubCancelled = makeDoc();
    (pubCancelled.jobDetailsResponse as any).data.jobPubDetails.opening = { status: "CANCELLED" };
    const cancelled = await submit(await archive(pubCancelled));
    expect(cancelled).toEqual({ status: "not_available", message: "This job is no longer available (status CANCELLED)" });
    const active = makeDoc();
    (active.jobDetailsResponse as any).data.jobPubDetails.opening = { status: "ACTIVE" };
    expect((await submit(await archive(active))).status).toBe("applied");

    const old = await archive(makeDoc());
    t.clock.set(Date.parse("2026-01-15T11:59:00.000Z") + 30 * DAY); // makeDoc's publish time + 30 days
    expect((await submit(await archive(makeDoc()))).status).toBe("applied"); // exactly 30 days: still open
    t.clock.advance(1);
    const expired = await submit(old);
    expect(expired).toEqual({ status: "not_available", message: "This job is no longer available: it was posted more than 30 days ago" });
    expect(await connects()).toBe(80 - 14 - 14);
  });

  test("not_eligible: a US-only job for a freelancer outside the US, and a Job Success Score below the job's minimum", async () => {
    const { driver, call } = await setup();
    const agency = await t.account({ kind: "agency" });
    const [own] = await driver.freelancers(agency.accountId);
    const abroad = (await call("POST", `/accounts/${agency.accountId}/freelancers`, { name: "Jan Nowak", country: "PL" })).body.freelancer;

    const usOnly = await archive(makeDoc({ usOnly: true }));
    expect(usOnly.usOnly).toBe(true);
    const refused = await driver.submit(request(agency.accountId, abroad.id, abroad.id, usOnly));
    expect(refused.status).toBe("not_eligible");
    expect(refused.message).toContain("United States");
    expect(refused.message).toContain("PL");
    expect((await driver.submit(request(agency.accountId, own!.id, own!.id, usOnly))).status).toBe("applied");

    const jss = async (min: number) => {
      const doc = makeDoc();
      doc.authJobDetailsResponse = { data: { jobAuthDetails: { opening: { job: { status: "ACTIVE" }, qualifications: { minJobSuccessScore: min } } } } };
      return archive(doc);
    };
    const high = await driver.submit(request(agency.accountId, own!.id, own!.id, await jss(95)));
    expect(high).toEqual({ status: "not_eligible", message: `This job requires a Job Success Score of at least 95%; ${own!.name} has 92%` });
    expect((await driver.submit(request(agency.accountId, own!.id, own!.id, await jss(92)))).status).toBe("applied");
    expect((await repo.findFreelancer(t.deps.db, abroad.id))!.connects).toBe(80);
  });

  test("not_enough_connects counts the boost; exactly enough applies and spends price plus boost", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    expect((await call("POST", `/freelancers/${freelancer.id}/connects`, { connects: 20 })).body.freelancer.connects).toBe(20);
    const job = await archive(makeDoc({ fixed: 500 })); // 12 Connects
    const short = await driver.submit(request(accountId, freelancer.id, freelancer.id, job, { boostBids: 9 }));
    expect(short).toEqual({ status: "not_enough_connects", message: "Needs 21 Connects; 20 available" });
    expect(await connects()).toBe(20);
    const okReq = request(accountId, freelancer.id, freelancer.id, job, { boostBids: 8 });
    const ok = await driver.submit(okReq);
    expect(ok.status).toBe("applied");
    expect(ok.message).toContain("20 Connects spent (12 to submit + 8 boost)");
    // The driver's answer splits them, and a lookup after a crash reports the same split (the applications funnel records it).
    expect(ok.connects).toEqual({ required: 12, boost: 8 });
    expect((await driver.lookup(okReq))!).toEqual(ok);
    expect(await connects()).toBe(0);

    const listed = makeDoc({ fixed: 5000 });
    listed.connectPrice = 2;
    await call("POST", `/freelancers/${freelancer.id}/connects`, { connects: 2 });
    expect((await driver.submit(request(accountId, freelancer.id, freelancer.id, await archive(listed)))).status).toBe("applied");
    expect(await connects()).toBe(0);

    expect((await call("POST", `/freelancers/${freelancer.id}/connects`, { connects: -1 })).status).toBe(400);
    expect((await call("POST", "/freelancers/~01nobody/connects", { connects: 5 })).status).toBe(404);
  });

  test("logged_out records nothing; reconnect restores a restorable session only", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    const job = await archive(makeDoc());
    const req = request(accountId, freelancer.id, freelancer.id, job);

    expect(await driver.reconnect(accountId)).toBe(true); // no session row: valid
    const invalid = await call("POST", `/accounts/${accountId}/session`, { valid: false });
    expect(invalid.body.session).toMatchObject({ accountId, valid: false, restorable: true });
    expect(await driver.submit(req)).toEqual({ status: "logged_out", message: "The marketplace session expired" });
    expect(await driver.lookup(req)).toBeNull();
    expect(await connects()).toBe(80);
    expect(await driver.reconnect(accountId)).toBe(true);
    expect((await driver.submit(req)).status).toBe("applied");

    await call("POST", `/accounts/${accountId}/session`, { valid: false, restorable: false });
    const other = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()));
    expect(await driver.reconnect(accountId)).toBe(false);
    expect((await driver.submit(other)).status).toBe("logged_out");
    expect((await call("POST", `/accounts/${accountId}/session`, { valid: true })).body.session.valid).toBe(true);
    expect((await driver.submit(other)).status).toBe("applied");
    expect((await call("POST", "/accounts/nobody/session", { valid: false })).status).toBe(404);
  });

  test("failed for another account's freelancer or profile, and for a profile of another freelancer", async () => {
    const { driver, call } = await setup();
    const mine = await soloFreelancer(driver);
    const theirs = await soloFreelancer(driver);
    const job = await archive(makeDoc());

    const foreignFreelancer = await driver.submit(request(mine.accountId, theirs.freelancer.id, theirs.freelancer.id, job));
    expect(foreignFreelancer.status).toBe("failed");
    expect(foreignFreelancer.message).toContain("not linked to this account");
    const foreignProfile = request(mine.accountId, mine.freelancer.id, theirs.freelancer.profiles[1]!.profileId, job);
    const outcome = await driver.submit(foreignProfile);
    expect(outcome.status).toBe("failed");
    expect(outcome.message).toContain("does not belong to freelancer");
    expect(await driver.lookup(foreignProfile)).toEqual(outcome);

    // Inside one agency too: a profile must belong to the freelancer it is used with.
    const agency = await t.account({ kind: "agency" });
    const [own] = await driver.freelancers(agency.accountId);
    const added = (await call("POST", `/accounts/${agency.accountId}/freelancers`, { name: "Kai Berg" })).body.freelancer;
    expect((await driver.submit(request(agency.accountId, own!.id, added.id, job))).status).toBe("failed");
    expect(await mine.connects()).toBe(80);
    expect(await theirs.connects()).toBe(80);
  });

  test("lookup: null for an application the sandbox never received", async () => {
    const { driver } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    expect(await driver.lookup(request(accountId, freelancer.id, freelancer.id, await archive(makeDoc())))).toBeNull();
  });
});

describe("engagement", () => {
  /** An application id whose seeded plan does (or does not) include a reply. */
  function applicationIdWith(reply: boolean): string {
    for (;;) {
      const id = newId();
      if ((rules.engagementPlan(id).replyDelayMs !== null) === reply) return id;
    }
  }

  test("not viewed → viewed at the seeded time → replied; never back", async () => {
    const { driver } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    const applicationId = applicationIdWith(true);
    const plan = rules.engagementPlan(applicationId);
    const submittedAt = t.clock.now();
    expect((await driver.submit(request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()), { applicationId }))).status).toBe("applied");

    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: false, replied: false, viewedAt: null, repliedAt: null });
    t.clock.set(submittedAt + plan.viewDelayMs - 1);
    expect((await driver.engagement(applicationId, accountId))!.viewed).toBe(false);
    t.clock.set(submittedAt + plan.viewDelayMs + 5 * MINUTE);
    const viewedAt = submittedAt + plan.viewDelayMs;
    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: true, replied: false, viewedAt, repliedAt: null });
    t.clock.set(viewedAt + plan.replyDelayMs! - 1);
    expect((await driver.engagement(applicationId, accountId))!.replied).toBe(false);
    t.clock.set(viewedAt + plan.replyDelayMs!);
    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: true, replied: true, viewedAt, repliedAt: viewedAt + plan.replyDelayMs! });

    // Recorded: moving the clock back changes nothing, and a fresh driver reads the same.
    t.clock.set(submittedAt);
    expect(await createSandboxDriver(t.deps).engagement(applicationId, accountId)).toEqual({
      viewed: true,
      replied: true,
      viewedAt,
      repliedAt: viewedAt + plan.replyDelayMs!,
    });
    expect(await repo.findSubmission(t.deps.db, applicationId)).toMatchObject({ viewedAtTs: viewedAt, repliedAtTs: viewedAt + plan.replyDelayMs! });
  });

  test("a proposal without a seeded reply is viewed but never replied to", async () => {
    const { driver } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    const applicationId = applicationIdWith(false);
    await driver.submit(request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()), { applicationId }));
    t.clock.advance(365 * DAY);
    expect(await driver.engagement(applicationId, accountId)).toMatchObject({ viewed: true, replied: false });
  });

  test("null for unknown, non-applied and other accounts' submissions", async () => {
    const { driver } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    const applied = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()));
    await driver.submit(applied);
    const refused = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc({ fixed: 500 })), { boostBids: 1000 });
    expect((await driver.submit(refused)).status).toBe("not_enough_connects");
    expect(await driver.engagement("no-such-application", accountId)).toBeNull();
    expect(await driver.engagement(refused.applicationId, accountId)).toBeNull();
    expect(await driver.engagement(applied.applicationId, "someone-else")).toBeNull();
  });

  test("admin view and reply force engagement now; the seeded timeline still wins when earlier", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    const viewOnly = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()));
    const replyNow = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()));
    await driver.submit(viewOnly);
    await driver.submit(replyNow);
    const now = t.clock.now() + MINUTE; // before any seeded view (5 minutes at the earliest)
    t.clock.set(now);

    const viewed = await call("POST", `/submissions/${viewOnly.applicationId}/view`);
    expect(viewed).toEqual({
      status: 200,
      body: { engagement: { applicationId: viewOnly.applicationId, viewed: true, replied: false, viewedAt: now, repliedAt: null } },
    });
    expect(await driver.engagement(viewOnly.applicationId, accountId)).toEqual({ viewed: true, replied: false, viewedAt: now, repliedAt: null });

    const replied = await call("POST", `/submissions/${replyNow.applicationId}/reply`);
    expect(replied.body.engagement).toEqual({ applicationId: replyNow.applicationId, viewed: true, replied: true, viewedAt: now, repliedAt: now });
    t.clock.advance(DAY);
    expect(await driver.engagement(replyNow.applicationId, accountId)).toEqual({ viewed: true, replied: true, viewedAt: now, repliedAt: now });

    // Viewing again later keeps the first view time.
    expect((await call("POST", `/submissions/${viewOnly.applicationId}/view`)).body.engagement.viewedAt).toBe(now);

    expect((await call("POST", "/submissions/nope/view")).status).toBe(404);
    const refused = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc({ fixed: 500 })), { boostBids: 1000 });
    await driver.submit(refused);
    expect((await call("POST", `/submissions/${refused.applicationId}/reply`)).status).toBe(400);
  });
});
