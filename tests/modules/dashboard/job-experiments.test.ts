import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, FORM, form, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

// Issue 41 on the job page: pick the experiment a draft and its apply go out under, see the arm a job already has,
// and be refused next to the picker (never with an API path) when the pick cannot take the job.

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

const HTMX = { "hx-request": "true" };
const path = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
const rows = (sql: string, ...args: unknown[]) => rawMany<any>(t.deps.db, sql, sql, args);
const htmxPost = (p: string, token: string, fields: Record<string, string>) =>
  t.request("POST", p, { body: form(fields), headers: { ...FORM, cookie: `jp_session=${token}`, ...HTMX } });

async function setup() {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ name: "Acme", credits: 20 });
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 100_000);
  const b = await t.account({ name: "Other", credits: 5 });
  const feed = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "All", minScore: 0 } });
  expect(feed.status, show(feed)).toBe(201);
  const feedId = (feed.body.feed?.id ?? feed.body.id) as string;
  return { a: { ...a, ...(await signIn(a.apiKey)) }, b: { ...b, ...(await signIn(b.apiKey)) }, feedId };
}

async function job(title = "Python ETL pipeline"): Promise<{ cipher: string; entry: string }> {
  const doc = makeDoc({ title, skills: ["Python"], fixed: 800 });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const [entry] = await rows("SELECT id FROM feed_jobs WHERE job_ciphertext = ?", cipher);
  return { cipher, entry: entry?.id };
}

async function experiment(apiKey: string, name: string, feedId?: string): Promise<string> {
  const res = await t.request("POST", "/api/v1/experiments", {
    key: apiKey,
    json: { name, ...(feedId ? { feedId } : {}), arms: [{ name: "Usual bid" }, { name: "Higher bid", bidMultiplier: 1.2 }] },
  });
  expect(res.status, show(res)).toBe(201);
  return res.body.experiment.id;
}

/** Jobs assigned per arm name, as GET /api/v1/experiments/{id} counts them. */
async function assigned(apiKey: string, id: string): Promise<Record<string, number>> {
  const res = await t.request("GET", `/api/v1/experiments/${id}`, { key: apiKey });
  expect(res.status, show(res)).toBe(200);
  return Object.fromEntries(res.body.experiment.arms.map((x: { name: string; assigned: number }) => [x.name, x.assigned]));
}
const total = (counts: Record<string, number>) => Object.values(counts).reduce((s, n) => s + n, 0);
const assignments = async () => Number((await rows("SELECT count(*) AS n FROM experiment_assignments"))[0].n);
const applications = async () => Number((await rows("SELECT count(*) AS n FROM applications"))[0].n);
const letterOf = (text: string) => /<textarea id="(?:p-)?coverLetter"[^>]*>([^<]*)<\/textarea>/.exec(text)?.[1] ?? "";

describe("dashboard job page: the experiment picker", () => {
  test("no running experiment: nothing new on the page, not even after one was stopped", async () => {
    const { a } = await setup();
    const { cipher } = await job();
    const before = await get(path(cipher), a.token);
    expect(before.status, show(before)).toBe(200);
    expect(before.text).not.toContain('name="experimentId"');
    expect(before.text).not.toContain("In the experiment");
    const id = await experiment(a.apiKey, "Bids");
    expect((await t.request("POST", `/api/v1/experiments/${id}/stop`, { key: a.apiKey })).status).toBe(200);
    const after = await get(path(cipher), a.token);
    expect(after.text).not.toContain('name="experimentId"');
    expect(after.text).not.toContain(">Experiment</label>");
  });

  test("running experiments are listed after Automatic, which says the feed's experiment takes the job", async () => {
    const { a, feedId } = await setup();
    const { cipher } = await job();
    const onFeed = await experiment(a.apiKey, "Feed bids", feedId);
    t.clock.advance(1000);
    const other = await experiment(a.apiKey, "Any-feed <bids>");
    const res = await get(path(cipher), a.token);
    expect(res.status, show(res)).toBe(200);
    expect(foreignScripts(res.text)).toEqual([]);
    expect(res.text).toContain('<label for="experimentId">Experiment</label>');
    expect(res.text).toContain(
      `<select id="experimentId" name="experimentId" aria-describedby="experimentIdHelp"><option value="">Automatic</option><option value="${onFeed}">Feed bids</option><option value="${other}">Any-feed &lt;bids&gt;</option></select>`,
    );
    expect(res.text).toContain("Automatic: this job joins “Feed bids”, the experiment of its feed.");
    // Without the feed's experiment, the one with no feed takes the job.
    expect((await t.request("POST", `/api/v1/experiments/${onFeed}/stop`, { key: a.apiKey })).status).toBe(200);
    const next = await get(path(cipher), a.token);
    expect(next.text).toContain("Automatic: this job joins “Any-feed &lt;bids&gt;”, your experiment for jobs from any feed.");
    expect(next.text).not.toContain(`<option value="${onFeed}">`);
    // Opening the page assigns nothing.
    expect(await assignments()).toBe(0);
  });

  test("only an experiment limited to one freelancer runs: Automatic says it takes the job at apply, not at the draft", async () => {
    const { a } = await setup();
    const { cipher } = await job();
    const res = await t.request("POST", "/api/v1/experiments", {
      key: a.apiKey,
      json: { name: "Mine only", freelancerId: freelancerIdFor(a.accountId), arms: [{ name: "Usual" }, { name: "No boost", boostBids: 0 }] },
    });
    expect(res.status, show(res)).toBe(201);
    const page = await get(path(cipher), a.token);
    expect(page.text).toContain(
      "Automatic: no running experiment takes this job on its own, so it goes out as usual. An experiment limited to one freelancer takes it when you apply as them.",
    );
    const drafted = await post(`${path(cipher)}/proposal`, a.token, { csrf: a.csrf, experimentId: "", reasoningEffort: "low" });
    expect(drafted.status, show(drafted)).toBe(200);
    expect(drafted.text).toContain("Proposal written. Edit it below, then apply.");
    expect(await assignments()).toBe(0);
  });

  test("a draft under the picked experiment assigns the job to it and names the arm; the page then shows the arm, and apply keeps it", async () => {
    const { a, feedId } = await setup();
    const { cipher } = await job();
    const onFeed = await experiment(a.apiKey, "Feed bids", feedId);
    const picked = await experiment(a.apiKey, "Picked bids");
    const drafted = await post(`${path(cipher)}/proposal`, a.token, { csrf: a.csrf, experimentId: picked, reasoningEffort: "low" });
    expect(drafted.status, show(drafted)).toBe(200);
    const counts = await assigned(a.apiKey, picked);
    expect(total(counts)).toBe(1);
    expect(total(await assigned(a.apiKey, onFeed)), "not the feed's experiment").toBe(0);
    const arm = Object.keys(counts).find((n) => counts[n] === 1)!;
    expect(drafted.text).toContain(`Proposal written under arm “${arm}” of the experiment “Picked bids”. Edit it below, then apply.`);
    // The job has its arm now: the line (linking the experiment) replaces the picker.
    const line = `In the experiment <a href="/dashboard/experiments/${picked}">“Picked bids”</a>: arm “${arm}” (chosen at random; it stays with this job).`;
    expect(drafted.text).toContain(line);
    expect(drafted.text).not.toContain('<select id="experimentId"');
    expect(drafted.text).toContain(`<input type="hidden" name="experimentId" value="${picked}">`);
    const reopened = await get(path(cipher), a.token);
    expect(reopened.text).toContain(line);
    expect(reopened.text).not.toContain('<select id="experimentId"');

    // Apply with the form as it came back: the application goes out under the same arm.
    const letter = letterOf(drafted.text);
    expect(letter.length).toBeGreaterThan(0);
    const fixedBid = /name="fixedBid" inputmode="decimal" value="([^"]*)"/.exec(drafted.text)![1]!;
    const applied = await post(`${path(cipher)}/apply`, a.token, { csrf: a.csrf, experimentId: picked, coverLetter: letter, fixedBid });
    expect(applied.status, show(applied)).toBe(303);
    expect(applied.headers.get("location")).toBe(`${path(cipher)}?applied=1`);
    const [app] = await rows("SELECT experiment_id AS e, arm_id AS arm, edited_by_hand AS edited FROM applications");
    const api = (await t.request("GET", `/api/v1/experiments/${picked}`, { key: a.apiKey })).body.experiment;
    expect(app.e).toBe(picked);
    expect(app.arm).toBe(api.arms.find((x: { name: string }) => x.name === arm).id);
    expect(Boolean(app.edited)).toBe(false);
    expect(total(await assigned(a.apiKey, picked))).toBe(1);
    const after = await get(applied.headers.get("location")!, a.token);
    expect(after.text).toContain(`Applied under arm “${arm}” of the experiment “Picked bids”.`);
    expect(after.text).toContain(`<dt>Experiment</dt><dd><a href="/dashboard/experiments/${picked}">Picked bids</a>, arm “${arm}”</dd>`);
  });

  test("from the inbox panel: the picker, then apply without a draft names the arm in the panel", async () => {
    const { a } = await setup();
    const { cipher, entry } = await job();
    const picked = await experiment(a.apiKey, "Picked bids");
    const panel = await t.request("GET", `${path(cipher)}?panel=${entry}`, { headers: { cookie: `jp_session=${a.token}`, ...HTMX } });
    expect(panel.status, show(panel)).toBe(200);
    expect(panel.text).toContain('<label for="p-experimentId">Experiment</label>');
    expect(panel.text).toContain(`<option value="${picked}">Picked bids</option>`);
    const applied = await htmxPost(`${path(cipher)}/apply`, a.token, { csrf: a.csrf, panel: entry, experimentId: picked, coverLetter: "Hello, I can help." });
    expect(applied.status, show(applied)).toBe(200);
    const counts = await assigned(a.apiKey, picked);
    const arm = Object.keys(counts).find((n) => counts[n] === 1)!;
    expect(arm).toBeDefined();
    expect(applied.text).toContain(`Applied under arm “${arm}” of the experiment “Picked bids”.`);
    expect(applied.text).toContain(`<dt>Experiment</dt><dd><a href="/dashboard/experiments/${picked}">Picked bids</a>, arm “${arm}”`);
  });

  test("a job assigned through the API shows its arm on the page, with no picker", async () => {
    const { a } = await setup();
    const { cipher } = await job();
    const id = await experiment(a.apiKey, "Bids");
    await experiment(a.apiKey, "Second");
    const draft = await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: a.apiKey, json: { jobId: cipher, experimentId: id } });
    expect(draft.status, show(draft)).toBe(200);
    const res = await get(path(cipher), a.token);
    expect(res.text).toContain(
      `In the experiment <a href="/dashboard/experiments/${id}">“Bids”</a>: arm “${draft.body.experiment.armName}” (chosen at random; it stays with this job).`,
    );
    expect(res.text).not.toContain('<select id="experimentId"');
  });

  test("a stopped experiment picked: 409, the refusal next to the picker in words, nothing assigned or sent", async () => {
    const { a } = await setup();
    const { cipher } = await job();
    await experiment(a.apiKey, "Running");
    const stopped = await experiment(a.apiKey, "Stopped one");
    expect((await t.request("POST", `/api/v1/experiments/${stopped}/stop`, { key: a.apiKey })).status).toBe(200);
    const error = '<p id="experimentIdError" class="error-text field-error">This experiment is stopped: it takes no new jobs.</p>';
    for (const action of ["proposal", "apply"]) {
      const res = await post(`${path(cipher)}/${action}`, a.token, { csrf: a.csrf, experimentId: stopped, coverLetter: "Keep me", reasoningEffort: "low" });
      expect(res.status, `${action}: ${show(res)}`).toBe(409);
      expect(res.text).toContain(error);
      expect(res.text).toContain('aria-invalid="true" aria-describedby="experimentIdError experimentIdHelp"');
      expect(res.text).not.toMatch(/experimentId:|\/api\//);
      expect(res.text).not.toContain("Proposal written");
      expect(letterOf(res.text)).toBe("Keep me");
    }
    expect(await assignments()).toBe(0);
    expect(await applications()).toBe(0);
  });

  test("another account's experiment posted by hand: 404, the refusal next to the picker, nothing assigned or sent", async () => {
    const { a, b } = await setup();
    const { cipher } = await job();
    await experiment(a.apiKey, "Mine");
    const foreign = await experiment(b.apiKey, "Theirs");
    for (const action of ["proposal", "apply"]) {
      const res = await post(`${path(cipher)}/${action}`, a.token, { csrf: a.csrf, experimentId: foreign, coverLetter: "Keep me", reasoningEffort: "low" });
      expect(res.status, `${action}: ${show(res)}`).toBe(404);
      expect(res.text).toContain('<p id="experimentIdError" class="error-text field-error">This account has no such experiment: choose one from the list.</p>');
      expect(res.text).not.toContain("Theirs");
      expect(res.text).not.toMatch(/experimentId:|\/api\//);
      expect(letterOf(res.text)).toBe("Keep me");
    }
    // An id too long to be one is refused the same way, by the API's body schema.
    const long = await post(`${path(cipher)}/proposal`, a.token, { csrf: a.csrf, experimentId: "x".repeat(101) });
    expect(long.status, show(long)).toBe(400);
    expect(long.text).toContain('id="experimentIdError" class="error-text field-error">Experiment: choose one of the experiments listed.</p>');
    expect(await assignments()).toBe(0);
    expect(await applications()).toBe(0);
    expect(total(await assigned(b.apiKey, foreign))).toBe(0);
  });
});
