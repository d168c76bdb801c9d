import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, FORM, form } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

// An agency applies from the dashboard as the freelancer and profile it picked, never silently as its first one.

const ADMIN = { authorization: "Bearer admin-token-0123456789" };
const HTMX = { "hx-request": "true" };

let t: TestApp;
let worker: TaskWorker | undefined;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

const rows = (sql: string, ...args: unknown[]) => rawMany<any>(t.deps.db, sql, sql, args);
const countApps = async () => Number((await rows("SELECT count(*) AS n FROM applications"))[0].n);
const path = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
const htmxPost = (p: string, token: string, fields: Record<string, string>) =>
  t.request("POST", p, { body: form(fields), headers: { ...FORM, cookie: `jp_session=${token}`, ...HTMX } });
const htmxGet = (p: string, token: string) => t.request("GET", p, { headers: { cookie: `jp_session=${token}`, ...HTMX } });

interface Profile {
  profileId: string;
  name: string;
  type: string;
}
interface Freelancer {
  id: string;
  name: string;
  connects: number;
  profiles: Profile[];
}

/** An agency with its own freelancer and two more, each with a specialization; a feed and an hourly job in it. */
async function agency() {
  t = await createTestApp({ config: { adminToken: "admin-token-0123456789", sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const acct = await t.account({ name: "Nair & Chen Studio", kind: "agency", credits: 5 });
  for (const [name, profile] of [
    ["Priya Nair", "Data Pipeline Engineer"],
    ["Tomás Silva", "iOS Developer"],
  ] as const) {
    const res = await t.request("POST", `/admin/sandbox/accounts/${acct.accountId}/freelancers`, {
      headers: ADMIN,
      json: { name, profiles: [{ name: profile }] },
    });
    expect(res.status, show(res)).toBe(201);
    t.clock.advance(1000); // listed by age
  }
  const listed = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: acct.apiKey });
  expect(listed.status, show(listed)).toBe(200);
  const freelancers = listed.body.freelancers as Freelancer[];
  expect(freelancers.map((f) => f.name).slice(1)).toEqual(["Priya Nair", "Tomás Silva"]);
  const primary = freelancers[0]!;
  const priya = freelancers[1]!;
  const priyaSpec = priya.profiles.find((p) => p.type === "specialization")!;
  const feed = await t.request("POST", "/api/v1/feeds", { key: acct.apiKey, json: { title: "All", minScore: 0 } });
  expect(feed.status, show(feed)).toBe(201);
  // A React job: the primary freelancer's React specialization fits it best and is preselected.
  const doc = makeDoc({ title: "React dashboard for sales data", skills: ["React"], hourly: [50, 90], questions: ["Which warehouse have you used?"] });
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const entry = (await rows("SELECT id FROM feed_jobs WHERE job_ciphertext = ?", cipher))[0].id as string;
  const session = await signIn(acct.apiKey);
  return { ...acct, ...session, primary, priya, priyaSpec, cipher, entry };
}

/** The option of the picker that is selected in a page or panel. */
const selectedProfile = (text: string) => /<select id="(?:p-)?profileId"[^>]*>[\s\S]*?<option value="([^"]+)" selected>/.exec(text)?.[1];
const letterOf = (text: string) => /<textarea id="(?:p-)?coverLetter"[^>]*>([^<]*)<\/textarea>/.exec(text)?.[1] ?? "";

async function sandboxFreelancers(accountId: string): Promise<Freelancer[]> {
  const res = await t.request("GET", `/admin/sandbox/accounts/${accountId}/freelancers`, { headers: ADMIN });
  expect(res.status, show(res)).toBe(200);
  return res.body.freelancers;
}

const settled = (apiKey: string, cipher: string) => settledByJob(t, worker!, apiKey, cipher);

describe("dashboard: applying as the picked freelancer", () => {
  test("drafting keeps the picked profile, and the letter introduces that freelancer, not the primary one", async () => {
    const { token, csrf, cipher, entry, primary, priyaSpec } = await agency();
    const opened = await htmxGet(`${path(cipher)}?panel=${entry}`, token);
    expect(opened.status, show(opened)).toBe(200);
    // The draft button posts the form the picker is in (a browser sends only its own form's fields).
    const draftForm = [...opened.text.matchAll(/<form[\s\S]*?<\/form>/g)].map((m) => m[0]).find((f) => f.includes('formaction="'));
    expect(draftForm, opened.text).toContain(`formaction="${path(cipher)}/proposal"`);
    expect(draftForm).toContain('<select id="p-profileId" name="profileId"');
    expect(selectedProfile(opened.text), "the best-fitting profile is preselected").toBe(primary.profiles.find((p) => p.type === "specialization")!.profileId);
    // Everything typed so far goes with the draft and comes back: the pick, the bid, an answer already written.
    const fields = { csrf, panel: entry, profileId: priyaSpec.profileId, reasoningEffort: "low", hourlyRate: "65", answer_0: "BigQuery, for four years." };
    for (const drafted of [await htmxPost(`${path(cipher)}/proposal`, token, fields), await post(`${path(cipher)}/proposal`, token, fields)]) {
      expect(drafted.status, show(drafted)).toBe(200);
      expect(drafted.text).toContain("Proposal written");
      expect(selectedProfile(drafted.text)).toBe(priyaSpec.profileId);
      const letter = letterOf(drafted.text);
      expect(letter).toContain("Priya Nair");
      expect(letter).toContain("Data Pipeline Engineer");
      expect(letter).not.toContain(primary.name);
      // The letter states the bid in the form, and the form still holds it.
      expect(letter).toContain("65 USD/hour");
      expect(drafted.text).toContain('name="hourlyRate" inputmode="decimal" value="65"');
      expect(drafted.text).toContain("BigQuery, for four years.</textarea>");
    }
    expect(await countApps()).toBe(0);
  });

  test("the application, the sandbox marketplace's submission and the panel all name the picked profile; the card is no longer new", async () => {
    const { token, csrf, cipher, entry, accountId, apiKey, primary, priya, priyaSpec } = await agency();
    worker = applyWorker(t);
    const connectsBefore = new Map((await sandboxFreelancers(accountId)).map((f) => [f.id, f.connects]));
    const applied = await htmxPost(`${path(cipher)}/apply`, token, {
      csrf,
      panel: entry,
      profileId: priyaSpec.profileId,
      coverLetter: "Hello, Priya here.",
      answer_0: "BigQuery.",
      hourlyRate: "60",
    });
    expect(applied.status, show(applied)).toBe(200);
    const [stored] = await rows("SELECT freelancer_id AS f, profile_id AS p FROM applications");
    expect(stored).toEqual({ f: priya.id, p: priyaSpec.profileId });

    const status = await settled(apiKey, cipher);
    expect(status.body.applicationStatus, show(status)).toBe("applied");
    expect(status.body.applicationStatusMessage).toContain("Priya Nair (Data Pipeline Engineer)");
    const jobs = await t.request("GET", "/api/auto-apply-v2/applied-jobs", { key: apiKey });
    expect(jobs.body.jobs[0].applicationStatusMessage, show(jobs)).toContain("Priya Nair (Data Pipeline Engineer)");
    // The marketplace took it from Priya: her Connects paid for it, the primary freelancer's did not move.
    const [submission] = await rows("SELECT freelancer_id AS f, message FROM sandbox_submissions");
    expect(submission.f).toBe(priya.id);
    expect(submission.message).toContain("Priya Nair (Data Pipeline Engineer)");
    const after = new Map((await sandboxFreelancers(accountId)).map((f) => [f.id, f.connects]));
    expect(after.get(priya.id)!).toBeLessThan(connectsBefore.get(priya.id)!);
    expect(after.get(primary.id)).toBe(connectsBefore.get(primary.id)!);

    const panel = await htmxGet(`${path(cipher)}?panel=${entry}`, token);
    expect(panel.text).toContain("<dt>Applied as</dt><dd>Priya Nair — Data Pipeline Engineer</dd>");
    // Applying read the entry, and the card comes back with the answer: no "New" badge on an applied job.
    expect(applied.text).toMatch(new RegExp(`<article class="card read" id="card-${entry}"[^>]*hx-swap-oob="true">`));
    const inbox = await get("/dashboard?show=all", token);
    expect(inbox.text).not.toContain('<span class="badge unread-badge">New</span>');
  });

  test("one truthful status: the live block alone says it, in words, from queued to applied", async () => {
    const { token, csrf, cipher, apiKey } = await agency();
    const sent = await post(`${path(cipher)}/apply`, token, { csrf, coverLetter: "Hello.", answer_0: "BigQuery.", hourlyRate: "60" });
    expect(sent.status, show(sent)).toBe(303);
    // No worker yet: the application waits in the queue.
    const waiting = await get(path(cipher), token);
    expect(waiting.text).toContain('<strong class="badge status-processing">Application queued</strong>');
    expect(waiting.text).not.toContain("<dt>Status</dt>");
    expect(waiting.text).not.toContain(">processing<");
    worker = applyWorker(t);
    expect((await settled(apiKey, cipher)).body.applicationStatus).toBe("applied");
    const done = await get(path(cipher), token);
    expect(done.text).toContain('<strong class="badge status-applied">Applied</strong>');
    expect(done.text).not.toContain("<dt>Status</dt>");
    expect(done.text).not.toContain("Application queued");
  });

  test("a job applied to outside the dashboard (the API) is not new in the inbox", async () => {
    const { token, cipher, apiKey } = await agency();
    const before = await get("/dashboard", token);
    expect(before.text).toContain('<span class="badge unread-badge">New</span>');
    const res = await t.request("POST", "/api/auto-apply-v2/apply", {
      key: apiKey,
      json: { jobId: cipher, coverLetter: "Hi", questionAnswers: [{ position: 0, answer: "BigQuery." }] },
    });
    expect(res.status, show(res)).toBe(200);
    const after = await get("/dashboard", token);
    expect(after.text).toContain("React dashboard for sales data");
    expect(after.text).not.toContain('<span class="badge unread-badge">New</span>');
  });

  test("a profile the form does not offer is refused next to the picker, in its label's words; nothing is written or sent", async () => {
    const { token, csrf, cipher, entry } = await agency();
    const error = '<p id="p-profileIdError" class="error-text field-error">Apply as: choose one of the freelancers listed.</p>';
    const fields = { csrf, panel: entry, profileId: "~01notours", coverLetter: "Keep me", answer_0: "BigQuery.", hourlyRate: "60", reasoningEffort: "low" };
    for (const action of ["apply", "proposal"]) {
      const res = await htmxPost(`${path(cipher)}/${action}`, token, fields);
      expect(res.status, show(res)).toBe(400);
      expect(res.text).toContain(error);
      expect(res.text).toContain('aria-invalid="true" aria-describedby="p-profileIdError p-profileIdHelp"');
      expect(res.text).not.toContain("Proposal written");
      expect(letterOf(res.text)).toBe("Keep me");
    }
    expect(await countApps()).toBe(0);
  });

  test("the apply shortcut's confirmation comes with the panel's form; the page and the key list say what it does", async () => {
    const { token, cipher, entry } = await agency();
    const panel = await htmxGet(`${path(cipher)}?panel=${entry}`, token);
    expect(panel.text).toContain('<dialog id="p-confirmApply"');
    expect(panel.text).toContain('<button type="button" data-confirm-cancel autofocus>Cancel</button>');
    expect(panel.text).toContain('<button type="button" data-confirm-send>Send application</button>');
    const inbox = await get("/dashboard", token);
    expect(inbox.text).toContain("<kbd>a</kbd></dt><dd>apply from the panel (asks first)</dd>");
  });
});
