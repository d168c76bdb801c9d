import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { escapeHtml } from "../../../src/lib/html";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { startFakeOpenAi, type FakeOpenAi } from "../../helpers/fake-openai";

// The job page's draft panel (issue 44): regenerate with an instruction, the job's letter versions (load one back,
// the sent one marked), and the case studies the letter cites from the picked freelancer's portfolio.

const ADMIN = { authorization: "Bearer admin-token-0123456789" };

let t: TestApp | undefined;
let worker: TaskWorker | undefined;
let fake: FakeOpenAi;
const b = browser(() => t!);
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
  t = undefined;
  fake.requests.length = 0;
});

const rows = (sql: string, ...args: unknown[]) => rawMany<any>(t!.deps.db, sql, sql, args);
const path = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
const letterOf = (text: string) => /<textarea id="coverLetter"[^>]*>([^<]*)<\/textarea>/.exec(text)?.[1] ?? "";
const selectedProfile = (text: string) => /<select id="profileId"[^>]*>[\s\S]*?<option value="([^"]+)" selected>/.exec(text)?.[1];
/** The system and user messages of every letter the model was asked for, as one text each. */
const prompts = () => fake.requests.map((r) => (r.body.messages as { content: string }[]).map((m) => m.content).join("\n"));

/** The model writes "Letter <n>" (numbered per request), so each version is told apart. */
function numberedLetters(): void {
  let n = 0;
  fake.setFallback(() => {
    n++;
    return {
      content: JSON.stringify({
        proposal: `Hi,\n\nLetter ${n}: I can build your React dashboard with the sales charts you describe, in TypeScript.\n\nCould we talk this week?\n\nBest,\nSam`,
        questionAnswers: [],
      }),
    };
  });
}

async function app(withModel: boolean) {
  const model = withModel ? { openaiApiKey: "sk-test", openaiBaseUrl: fake.url, aiMaxRetries: 0 } : {};
  t = await createTestApp({ config: { adminToken: "admin-token-0123456789", sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...model } });
}

async function reactJob(): Promise<string> {
  const doc = makeDoc({
    title: "React dashboard for sales data",
    description: "Charts of sales in React and TypeScript.",
    skills: ["React", "TypeScript"],
    fixed: 900,
  });
  await ingestDocuments(t!.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const REACT_STUDY = {
  title: "Trading analytics dashboard",
  built: "A React dashboard with live charts",
  client: "a fintech start-up",
  skills: ["React", "TypeScript"],
  outcome: "Load time from 6 s to 1.8 s",
  link: "https://example.com/trading",
};
const UNRELATED_STUDY = {
  title: "Kubernetes cluster migration",
  built: "Moved 40 services to EKS",
  skills: ["Kubernetes", "Terraform"],
  client: "a logistics firm",
};

const putPortfolio = async (key: string, profileId: string, caseStudies: unknown[]) => {
  const res = await t!.request("PUT", `/api/v1/profiles/${encodeURIComponent(profileId)}/portfolio`, { key, json: { caseStudies } });
  expect(res.status, show(res)).toBe(200);
};

test("regenerate with an instruction: it reaches the model's prompt, is kept with the version, and an earlier version loads back", async () => {
  await app(true);
  numberedLetters();
  const a = await t!.account({ credits: 5 });
  const cipher = await reactJob();
  const { token, csrf } = await b.signIn(a.apiKey);
  const page = await b.get(path(cipher), token);
  expect(page.text).toContain("Instruction for the next draft");
  expect(page.text).not.toContain("Versions of this letter"); // nothing written yet

  const first = await b.post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "low", instruction: "" });
  expect(first.status, show(first)).toBe(200);
  expect(letterOf(first.text)).toContain("Letter 1");
  expect(prompts()[0]).not.toContain("For this version");

  const second = await b.post(`${path(cipher)}/proposal`, token, {
    csrf,
    reasoningEffort: "low",
    instruction: "mention the Shopify app",
    coverLetter: letterOf(first.text),
  });
  expect(second.status, show(second)).toBe(200);
  expect(letterOf(second.text)).toContain("Letter 2");
  expect(prompts()[1]).toContain("For this version: mention the Shopify app");
  // The instruction was this draft's: the field is empty for the next one, and the version list names it.
  expect(second.text).toMatch(/<input type="text" id="instruction" name="instruction" maxlength="500" value=""/);
  expect(second.text).toContain('Versions of this letter <span class="muted">(2)</span>');
  expect(second.text).toContain("Instruction: “mention the Shopify app”");
  expect(second.text).toContain("No instruction");
  const stored = await rows("SELECT version, instruction, writer FROM proposal_versions ORDER BY version");
  expect(stored.map((r) => [Number(r.version), r.instruction, r.writer])).toEqual([
    [1, null, "model"],
    [2, "mention the Shopify app", "model"],
  ]);
  // The same list as GET /api/v1/jobs/{ciphertext}/proposal-versions.
  const api = await t!.request("GET", `/api/v1/jobs/${encodeURIComponent(cipher)}/proposal-versions`, { key: a.apiKey });
  expect(api.body.versions.map((v: { number: number; instruction: string | null }) => [v.number, v.instruction])).toEqual([
    [2, "mention the Shopify app"],
    [1, null],
  ]);

  // Version 1 back into the letter; what else was typed stays.
  const v1 = api.body.versions[1].id as string;
  const loaded = await b.post(`${path(cipher)}/version`, token, { csrf, version: v1, coverLetter: "typed over", fixedBid: "850", reasoningEffort: "medium" });
  expect(loaded.status, show(loaded)).toBe(200);
  expect(loaded.text).toContain("Version 1 is in the letter again.");
  expect(letterOf(loaded.text)).toBe(escapeHtml(api.body.versions[1].letter));
  expect(loaded.text).toContain('value="850"');
  expect(loaded.text).toMatch(/<option value="medium" selected>/);
  expect(loaded.text).toMatch(/<strong>Version 1<\/strong>[^\n]*In the letter now/);
  // Only the versions not in the letter have a button to load them.
  expect(loaded.text).not.toContain("Load version 1 into the letter");
  expect(loaded.text).toContain(`formaction="${path(cipher)}/version" name="version" value="${api.body.versions[0].id}">Load version 2 into the letter`);
  // Another job's (or a made-up) version is not this job's: nothing changes.
  const unknown = await b.post(`${path(cipher)}/version`, token, { csrf, version: "00000000-0000-4000-8000-000000000000", coverLetter: "mine" });
  expect(unknown.status).toBe(404);
  expect(letterOf(unknown.text)).toBe("mine");
  // Without the form's token the post is refused like every other form.
  expect((await b.post(`${path(cipher)}/version`, token, { version: v1 })).status).toBe(403);
});

test("a too-long instruction is refused next to its field, in its label's words, and writes nothing", async () => {
  await app(true);
  numberedLetters();
  const a = await t!.account({ credits: 5 });
  const cipher = await reactJob();
  const { token, csrf } = await b.signIn(a.apiKey);
  const long = "x".repeat(501);
  const res = await b.post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "low", instruction: long, coverLetter: "kept" });
  expect(res.status).toBe(400);
  expect(res.text).toContain(
    '<p id="instructionError" class="error-text field-error">Instruction for the next draft: at most 500 characters (this one has 501).</p>',
  );
  expect(res.text).toMatch(
    /id="instruction" name="instruction" maxlength="500" value="x{501}" aria-invalid="true" aria-describedby="instructionError instructionHelp"/,
  );
  expect(res.text).not.toContain("body.instruction");
  expect(res.text).not.toContain("/api/");
  expect(letterOf(res.text)).toBe("kept");
  expect(fake.requests).toHaveLength(0);
  expect(await rows("SELECT id FROM proposal_versions")).toEqual([]);
});

test("the version an application sent is marked Sent in the list beside it", async () => {
  await app(false); // the local writer
  const a = await t!.account({ credits: 5 });
  worker = applyWorker(t!);
  const cipher = await reactJob();
  const { token, csrf } = await b.signIn(a.apiKey);
  const first = await b.post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "low" });
  const second = await b.post(`${path(cipher)}/proposal`, token, { csrf, reasoningEffort: "high", instruction: "shorter" });
  expect(letterOf(second.text)).not.toBe(letterOf(first.text));
  // Apply with the first letter, loaded back.
  const [, v1] = await rows("SELECT id, letter FROM proposal_versions ORDER BY version DESC");
  const loaded = await b.post(`${path(cipher)}/version`, token, { csrf, version: v1.id });
  const applied = await b.post(`${path(cipher)}/apply`, token, { csrf, coverLetter: v1.letter, fixedBid: "900" });
  expect(applied.status, show(applied)).toBe(303);
  expect(loaded.status).toBe(200);
  expect((await settledByJob(t!, worker, a.apiKey, cipher)).body.applicationStatus).toBe("applied");
  const page = await b.get(path(cipher), token);
  const list = /<details class="versions">[\s\S]*?<\/details>/.exec(page.text)?.[0] ?? "";
  expect(list).toMatch(/<strong>Version 1<\/strong>[^\n]*Sent/);
  expect(list).not.toMatch(/<strong>Version 2<\/strong>[^\n]*Sent/);
  expect(list).toContain("Instruction: “shorter”");
  expect(list).not.toContain("Load version"); // applied: the list is only read
});

test("the job page shows the case studies the letter cites for the picked profile, not an unrelated one; no portfolio links to the editor", async () => {
  await app(false);
  const a = await t!.account({ credits: 5 });
  const cipher = await reactJob();
  const { token } = await b.signIn(a.apiKey);
  let page = await b.get(path(cipher), token);
  const picked = selectedProfile(page.text)!;
  expect(picked).toBeTruthy();
  expect(page.text).toContain("yet, so the letter cites no case studies: add one on");
  expect(page.text).toContain(`href="/dashboard/freelancers#pf-${encodeURIComponent(picked)}-md"`);
  // The profile's editor on the Freelancers page carries that id.
  expect((await b.get("/dashboard/freelancers", token)).text).toContain(`<textarea id="pf-${picked}-md"`);

  await putPortfolio(a.apiKey, picked, [UNRELATED_STUDY, REACT_STUDY]);
  page = await b.get(path(cipher), token);
  const cited = /<div class="cited"[\s\S]*?<\/div>/.exec(page.text)?.[0] ?? "";
  expect(cited).toContain("Case studies the letter cites");
  expect(cited).toContain("<strong>Trading analytics dashboard</strong> — for a fintech start-up");
  expect(cited).toContain("Load time from 6 s to 1.8 s");
  expect(cited).toContain('href="https://example.com/trading"');
  expect(cited).not.toContain("Kubernetes");

  // Only the unrelated one: the letter cites none, and the page says so.
  await putPortfolio(a.apiKey, picked, [UNRELATED_STUDY]);
  page = await b.get(path(cipher), token);
  expect(page.text).toContain("None of the one case study in the portfolio of");
  expect(page.text).not.toContain("Kubernetes cluster migration");
});

test("an agency sees each freelancer's own portfolio; another account's profile never shows", async () => {
  await app(false);
  const acct = await t!.account({ name: "Studio", kind: "agency", credits: 5 });
  const created = await t!.request("POST", `/admin/sandbox/accounts/${acct.accountId}/freelancers`, {
    headers: ADMIN,
    json: { name: "Priya Nair", profiles: [{ name: "Data Pipeline Engineer" }] },
  });
  expect(created.status, show(created)).toBe(201);
  const listed = (await t!.request("GET", "/api/auto-apply-v2/freelancers", { key: acct.apiKey })).body.freelancers as {
    name: string;
    profiles: { profileId: string; type: string }[];
  }[];
  const priya = listed.find((f) => f.name === "Priya Nair")!.profiles.find((p) => p.type === "specialization")!.profileId;
  const cipher = await reactJob();
  const { token, csrf } = await b.signIn(acct.apiKey);
  const own = selectedProfile((await b.get(path(cipher), token)).text)!;
  expect(own).not.toBe(priya);
  await putPortfolio(acct.apiKey, own, [REACT_STUDY]);
  await putPortfolio(acct.apiKey, priya, [{ ...REACT_STUDY, title: "Priya's sales charts", client: "a retailer" }]);

  let page = await b.get(path(cipher), token);
  expect(page.text).toContain("Trading analytics dashboard");
  expect(page.text).not.toContain("Priya&#39;s sales charts");
  // Picking Priya (drafting as her) shows hers, not the first freelancer's.
  page = await b.post(`${path(cipher)}/proposal`, token, { csrf, profileId: priya, reasoningEffort: "low" });
  expect(page.status, show(page)).toBe(200);
  const cited = /<div class="cited"[\s\S]*?<\/div>/.exec(page.text)?.[0] ?? "";
  expect(cited).toMatch(/Priya(&#39;|')s sales charts/);
  expect(cited).toContain("Priya Nair — Data Pipeline Engineer");
  expect(cited).not.toContain("Trading analytics dashboard");

  // Another account's profile, posted by hand: refused at the picker, and its portfolio is not read.
  const other = await t!.account({ name: "Other" });
  const otherProfile = (await t!.request("GET", "/api/auto-apply-v2/freelancers", { key: other.apiKey })).body.freelancers[0].profiles[0].profileId as string;
  await putPortfolio(other.apiKey, otherProfile, [{ ...REACT_STUDY, title: "Secret React work of another account" }]);
  const refused = await b.post(`${path(cipher)}/proposal`, token, { csrf, profileId: otherProfile, reasoningEffort: "low" });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain("Apply as: choose one of the freelancers listed.");
  expect(refused.text).not.toContain("Secret React work");
  const loaded = await b.post(`${path(cipher)}/version`, token, { csrf, profileId: otherProfile, version: "x" });
  expect(loaded.text).not.toContain("Secret React work");
  // The API's answer for that profile is a 404, as before.
  expect((await t!.request("GET", `/api/v1/profiles/${otherProfile}/portfolio`, { key: acct.apiKey })).status).toBe(404);
});
