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

  test("the hash plan of submissions from before the outcome model: views 5–120 min after submitting, about half reply 10–240 min after the view", () => {
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
    // The balance after the spend, as the apply page would show it next (the submit task records it).
    expect(outcome.connectsAvailable).toBe(80 - 14);
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
    expect(outcome).toEqual({ status: "failed", message: "Already applied to this job with this freelancer", connectsAvailable: 80 - 12 });
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
    expect(await submit(closed)).toEqual({ status: "not_available", message: "This job is no longer available: the client closed it", connectsAvailable: 80 });

    const authClosed = makeDoc();
    authClosed.authJobDetailsResponse = { data: { jobAuthDetails: { opening: { job: { status: "CLOSED" } } } } };
    expect((await submit(await archive(authClosed))).status).toBe("not_available");
    const pubCancelled = makeDoc();
    (pubCancelled.jobDetailsResponse as any).data.jobPubDetails.opening = { status: "CANCELLED" };
    const cancelled = await submit(await archive(pubCancelled));
    expect(cancelled).toEqual({ status: "not_available", message: "This job is no longer available (status CANCELLED)", connectsAvailable: 80 });
    const active = makeDoc();
    (active.jobDetailsResponse as any).data.jobPubDetails.opening = { status: "ACTIVE" };
    expect((await submit(await archive(active))).status).toBe("applied");

    const old = await archive(makeDoc());
    t.clock.set(Date.parse("2026-01-15T11:59:00.000Z") + 30 * DAY); // makeDoc's publish time + 30 days
    expect((await submit(await archive(makeDoc()))).status).toBe("applied"); // exactly 30 days: still open
    t.clock.advance(1);
    const expired = await submit(old);
    expect(expired).toEqual({
      status: "not_available",
      message: "This job is no longer available: it was posted more than 30 days ago",
      connectsAvailable: 80 - 14 - 14,
    });
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
    expect(high).toEqual({
      status: "not_eligible",
      message: `This job requires a Job Success Score of at least 95%; ${own!.name} has 92%`,
      connectsAvailable: 80 - 14,
    });
    expect((await driver.submit(request(agency.accountId, own!.id, own!.id, await jss(92)))).status).toBe("applied");
    expect((await repo.findFreelancer(t.deps.db, abroad.id))!.connects).toBe(80);
  });

  test("not_enough_connects counts the boost; exactly enough applies and spends price plus boost", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer, connects } = await soloFreelancer(driver);
    expect((await call("POST", `/freelancers/${freelancer.id}/connects`, { connects: 20 })).body.freelancer.connects).toBe(20);
    const job = await archive(makeDoc({ fixed: 500 })); // 12 Connects
    const short = await driver.submit(request(accountId, freelancer.id, freelancer.id, job, { boostBids: 9 }));
    expect(short).toEqual({ status: "not_enough_connects", message: "Needs 21 Connects; 20 available", connectsAvailable: 20 });
    expect(await connects()).toBe(20);
    const okReq = request(accountId, freelancer.id, freelancer.id, job, { boostBids: 8 });
    const ok = await driver.submit(okReq);
    expect(ok.status).toBe("applied");
    expect(ok.message).toContain("20 Connects spent (12 to submit + 8 boost)");
    // The driver's answer splits them, and a lookup after a crash reports the same split (the applications funnel records it).
    expect(ok.connects).toEqual({ required: 12, boost: 8 });
    expect(ok.connectsAvailable).toBe(0);
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
  /** The plan the outcome model stored with a submission. */
  async function planOf(applicationId: string): Promise<rules.OutcomePlan> {
    const plan = rules.readPlan((await repo.findSubmission(t.deps.db, applicationId))?.plan);
    expect(plan).not.toBeNull();
    return plan!;
  }

  /**
   * Submits fresh proposals (each to its own job, each letter its own) until the stored plan is one `wanted` accepts;
   * the request and its plan. Connects are topped up so the search never runs short.
   */
  async function submitUntil(
    driver: Awaited<ReturnType<typeof setup>>["driver"],
    who: Awaited<ReturnType<typeof soloFreelancer>>,
    wanted: (plan: rules.OutcomePlan) => boolean,
  ): Promise<{ req: SubmitRequest; plan: rules.OutcomePlan }> {
    await repo.setConnects(t.deps.db, who.freelancer.id, 100_000);
    for (let i = 0; i < 200; i++) {
      const job = await archive(
        makeDoc({ title: `React dashboard ${i}`, skills: ["React", "TypeScript"], publishTime: new Date(t.clock.now() - 10 * MINUTE).toISOString() }),
      );
      const req = request(who.accountId, who.freelancer.id, who.freelancer.id, job);
      req.coverLetter = `Proposal ${i} ${newId()}: I build React and TypeScript dashboards like this one, with tests and clear milestones. ${"Detail ".repeat(30)}`;
      expect((await driver.submit(req)).status).toBe("applied");
      const plan = await planOf(req.applicationId);
      if (wanted(plan)) return { req, plan };
    }
    throw new Error("no plan of the wanted kind in 200 submissions");
  }

  const none = { interviewAt: null, hiredAt: null, lostAt: null };

  test("the stored plan's timeline: not viewed → viewed → replied → interview, each timed from the one before; never back", async () => {
    const { driver } = await setup();
    const who = await soloFreelancer(driver);
    const { req, plan } = await submitUntil(driver, who, (p) => p.interviewDelayMs !== null);
    const { applicationId } = req;
    const { accountId } = who;
    const submittedAt = (await repo.findSubmission(t.deps.db, applicationId))!.submittedAtTs;

    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: false, replied: false, viewedAt: null, repliedAt: null, ...none });
    const viewedAt = submittedAt + plan.viewDelayMs!;
    const repliedAt = viewedAt + plan.replyDelayMs!;
    const interviewAt = repliedAt + plan.interviewDelayMs!;
    t.clock.set(viewedAt - 1);
    expect((await driver.engagement(applicationId, accountId))!.viewed).toBe(false);
    t.clock.set(viewedAt);
    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: true, replied: false, viewedAt, repliedAt: null, ...none });
    t.clock.set(repliedAt - 1);
    expect((await driver.engagement(applicationId, accountId))!.replied).toBe(false);
    t.clock.set(repliedAt);
    expect(await driver.engagement(applicationId, accountId)).toEqual({ viewed: true, replied: true, viewedAt, repliedAt, ...none });
    t.clock.set(interviewAt);
    expect(await driver.engagement(applicationId, accountId)).toMatchObject({ viewed: true, replied: true, viewedAt, repliedAt, interviewAt });

    // Recorded: moving the clock back changes nothing, and a fresh driver reads the same.
    t.clock.set(submittedAt);
    expect(await createSandboxDriver(t.deps).engagement(applicationId, accountId)).toMatchObject({ viewedAt, repliedAt, interviewAt });
    expect(await repo.findSubmission(t.deps.db, applicationId)).toMatchObject({ viewedAtTs: viewedAt, repliedAtTs: repliedAt, interviewAtTs: interviewAt });
  });

  test("a plan that ends without a hire: the client passes after the last stage it reached, and nothing comes after", async () => {
    const { driver } = await setup();
    const who = await soloFreelancer(driver);
    const { req, plan } = await submitUntil(driver, who, (p) => p.viewDelayMs !== null && p.replyDelayMs === null);
    const submittedAt = (await repo.findSubmission(t.deps.db, req.applicationId))!.submittedAtTs;
    const viewedAt = submittedAt + plan.viewDelayMs!;
    t.clock.set(viewedAt + plan.lostDelayMs! - 1);
    expect(await driver.engagement(req.applicationId, who.accountId)).toEqual({ viewed: true, replied: false, viewedAt, repliedAt: null, ...none });
    t.clock.advance(365 * DAY);
    expect(await driver.engagement(req.applicationId, who.accountId)).toEqual({
      viewed: true,
      replied: false,
      viewedAt,
      repliedAt: null,
      interviewAt: null,
      hiredAt: null,
      lostAt: viewedAt + plan.lostDelayMs!,
    });
  });

  test("a submission from before the outcome model (no plan) keeps its hash plan: views and replies only", async () => {
    const { driver } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    let applicationId = newId();
    while (rules.engagementPlan(applicationId).replyDelayMs === null) applicationId = newId();
    const submittedAtTs = t.clock.now();
    await repo.insertSubmission(t.deps.db, {
      applicationId,
      accountId,
      freelancerId: freelancer.id,
      jobCiphertext: "~021999999999999999999",
      status: "applied",
      message: "Proposal submitted",
      connectsSpent: 8,
      submittedAtTs,
    });
    const old = rules.engagementPlan(applicationId);
    t.clock.set(submittedAtTs + old.viewDelayMs);
    expect(await driver.engagement(applicationId, accountId)).toEqual({
      viewed: true,
      replied: false,
      viewedAt: submittedAtTs + old.viewDelayMs,
      repliedAt: null,
      ...none,
    });
    t.clock.advance(365 * DAY);
    const viewedAt = submittedAtTs + old.viewDelayMs;
    expect(await driver.engagement(applicationId, accountId)).toEqual({
      viewed: true,
      replied: true,
      viewedAt,
      repliedAt: viewedAt + old.replyDelayMs!,
      ...none,
    });
  });

  test("JOBPILOT_SANDBOX_TIME_SCALE divides the client's delays, fixed in the plan at submission", async () => {
    t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, sandboxTimeScale: 60 } });
    const driver = createSandboxDriver(t.deps);
    const who = await soloFreelancer(driver);
    const { req, plan } = await submitUntil(driver, who, (p) => p.viewDelayMs !== null);
    expect(plan.timeScale).toBe(60);
    // The slowest view the model draws is 5 + 10 × 60 minutes; a sixtieth of that is under 11 minutes.
    expect(plan.viewDelayMs!).toBeLessThanOrEqual(((5 + 600) * MINUTE) / 60 + 1);
    expect(plan.lostDelayMs === null || plan.lostDelayMs <= ((2880 + 72_000) * MINUTE) / 60 + 1).toBe(true);
    const submittedAt = (await repo.findSubmission(t.deps.db, req.applicationId))!.submittedAtTs;
    t.clock.set(submittedAt + plan.viewDelayMs!);
    expect((await driver.engagement(req.applicationId, who.accountId))!.viewedAt).toBe(submittedAt + plan.viewDelayMs!);
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

  test("admin view, reply, interview, hire and lose force engagement now; the planned timeline still wins when earlier", async () => {
    const { driver, call } = await setup();
    const { accountId, freelancer } = await soloFreelancer(driver);
    await repo.setConnects(t.deps.db, freelancer.id, 1000);
    const sent = async () => {
      const req = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc()));
      await driver.submit(req);
      return req.applicationId;
    };
    const [viewOnly, replyNow, interviewNow, hireNow, loseNow] = [await sent(), await sent(), await sent(), await sent(), await sent()];
    const now = t.clock.now() + MINUTE; // before any planned view (5 minutes at the earliest)
    t.clock.set(now);
    const view = (over: Record<string, unknown>) => ({ viewed: false, replied: false, viewedAt: null, repliedAt: null, ...none, ...over });

    const viewed = await call("POST", `/submissions/${viewOnly}/view`);
    expect(viewed).toEqual({ status: 200, body: { engagement: { applicationId: viewOnly, ...view({ viewed: true, viewedAt: now }) } } });
    expect(await driver.engagement(viewOnly, accountId)).toEqual(view({ viewed: true, viewedAt: now }));

    const replied = await call("POST", `/submissions/${replyNow}/reply`);
    expect(replied.body.engagement).toEqual({ applicationId: replyNow, ...view({ viewed: true, replied: true, viewedAt: now, repliedAt: now }) });

    const interview = await call("POST", `/submissions/${interviewNow}/interview`);
    expect(interview.body.engagement).toEqual({
      applicationId: interviewNow,
      ...view({ viewed: true, replied: true, viewedAt: now, repliedAt: now, interviewAt: now }),
    });

    const hired = await call("POST", `/submissions/${hireNow}/hire`);
    expect(hired.body.engagement).toEqual({
      applicationId: hireNow,
      ...view({ viewed: true, replied: true, viewedAt: now, repliedAt: now, interviewAt: now, hiredAt: now }),
    });
    // A hire is final: the plan never adds a loss after it, and forcing one is refused.
    t.clock.advance(365 * DAY);
    expect((await driver.engagement(hireNow, accountId))!.lostAt).toBeNull();
    expect((await call("POST", `/submissions/${hireNow}/lose`)).status).toBe(400);
    t.clock.set(now);

    const lost = await call("POST", `/submissions/${loseNow}/lose`);
    expect(lost.body.engagement).toEqual({ applicationId: loseNow, ...view({ lostAt: now }) });
    expect((await call("POST", `/submissions/${loseNow}/hire`)).status).toBe(400);
    t.clock.advance(365 * DAY);
    // Lost at `now`, before any planned view; the plan may still bring a view or a reply, but never a hire.
    expect(await driver.engagement(loseNow, accountId)).toMatchObject({ lostAt: now, hiredAt: null });
    expect(await driver.engagement(replyNow, accountId)).toMatchObject({ viewedAt: now, repliedAt: now });

    // Viewing again later keeps the first view time.
    expect((await call("POST", `/submissions/${viewOnly}/view`)).body.engagement.viewedAt).toBe(now);

    expect((await call("POST", "/submissions/nope/view")).status).toBe(404);
    expect((await call("POST", "/submissions/nope/hire")).status).toBe(404);

    // The submission with its plan: what the model read and drew, to reproduce or explain an outcome.
    const shown = await call("GET", `/submissions/${hireNow}`);
    expect(shown.status).toBe(200);
    expect(shown.body.submission).toMatchObject({ applicationId: hireNow, accountId, status: "applied", engagement: { hiredAt: now } });
    expect(shown.body.submission.plan).toEqual(JSON.parse(JSON.stringify((await repo.findSubmission(t.deps.db, hireNow))!.plan)));
    expect(shown.body.submission.plan).toMatchObject({ model: rules.OUTCOME_MODEL_VERSION, timeScale: 1, facts: { letterWords: 6 } });
    expect((await call("GET", "/submissions/nope")).status).toBe(404);
    const refused = request(accountId, freelancer.id, freelancer.id, await archive(makeDoc({ fixed: 500 })), { boostBids: 5000 });
    await driver.submit(refused);
    expect((await call("POST", `/submissions/${refused.applicationId}/reply`)).status).toBe(400);
    expect((await call("POST", `/submissions/${refused.applicationId}/interview`)).status).toBe(400);
  });
});
