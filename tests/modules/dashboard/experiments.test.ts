import { afterEach, describe, expect, test } from "bun:test";
import { wilson } from "../../../src/lib/wilson";
import { setRateLimits } from "../../../src/modules/accounts/service";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { decisionWords, experimentDetailPage } from "../../../src/modules/dashboard/experiments-views";
import type { DashboardSession } from "../../../src/modules/dashboard/model";
import type { ExperimentResults } from "../../../src/modules/experiments/model";
import { decide, sampleSizePerArm } from "../../../src/modules/experiments/stats";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { TaskWorker } from "../../../src/worker/worker";
import { applyWorker, settledByJob } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
let worker: TaskWorker | undefined;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await t?.close();
});

const EXPERIMENTS = "/dashboard/experiments";

async function setup(credits = 50) {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0 } });
  const a = await t.account({ name: "Acme", credits });
  // The sandbox freelancer needs Connects for every proposal a test sends.
  await ensureOwnFreelancer(t.deps.db, a.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(a.accountId), 100_000);
  const b = await t.account({ name: "Other", credits: 5 });
  return { a: { ...a, ...(await signIn(a.apiKey)) }, b: { ...b, ...(await signIn(b.apiKey)) } };
}

async function feed(apiKey: string, title = "Rust jobs"): Promise<string> {
  const res = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title, profilePrompt: "", minScore: 5, proposalGenerationPrompt: "Be brief." } });
  expect(res.status, show(res)).toBe(201);
  return res.body.feed?.id ?? res.body.id;
}

/** The form as a browser posts it: two arms filled, C and D left empty, every optional field empty. */
function formFields(csrf: string, over: Record<string, string> = {}): Record<string, string> {
  const arms: Record<string, string> = {};
  for (let i = 0; i < 4; i++) {
    for (const part of ["Name", "Prompt", "BidMultiplier", "BoostBids", "Template", "HourlyRate", "FixedBid", "SendDelayMinutes"]) arms[`arm${i}${part}`] = "";
  }
  return {
    csrf,
    name: "Short vs long",
    feedId: "",
    objective: "replies",
    allocation: "equal",
    freelancerId: "",
    ...arms,
    arm0Name: "Long letter",
    arm0Prompt: "Write five paragraphs.",
    arm1Name: "Short letter",
    arm1Prompt: "Three sentences at most.",
    ...over,
  };
}

const apiList = async (apiKey: string) => (await t.request("GET", "/api/v1/experiments", { key: apiKey })).body.experiments as { id: string; state: string }[];

describe("dashboard: experiments", () => {
  test("signed out, every page and form sends the browser to sign in and changes nothing", async () => {
    await setup();
    for (const path of [EXPERIMENTS, `${EXPERIMENTS}/new`, `${EXPERIMENTS}/x`]) {
      const res = await get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    }
    const res = await post(EXPERIMENTS, undefined, formFields("nope"));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("the empty list explains, the nav links it; a created experiment is listed with its decision in plain words", async () => {
    const { a, b } = await setup();
    const empty = await get(EXPERIMENTS, a.token);
    expect(empty.status, show(empty)).toBe(200);
    expect(foreignScripts(empty.text)).toEqual([]);
    expect(empty.text).toContain('<a href="/dashboard/experiments" aria-current="page">Experiments</a>');
    expect(empty.text).toContain("No experiments yet");

    const res = await post(EXPERIMENTS, a.token, formFields(a.csrf, { arm2Name: "Question first", arm2Prompt: "Open with a question.", arm2BoostBids: "0" }));
    expect(res.status, show(res)).toBe(303);
    const [created] = await apiList(a.apiKey);
    expect(res.headers.get("location")).toBe(`${EXPERIMENTS}/${created!.id}`);
    const api = (await t.request("GET", `/api/v1/experiments/${created!.id}`, { key: a.apiKey })).body.experiment;
    // Arm D was left empty, so three arms; C's 0 boost is a holdout.
    expect(api.arms.map((x: { name: string; prompt: string | null; boostBids: number | null }) => [x.name, x.prompt, x.boostBids])).toEqual([
      ["Long letter", "Write five paragraphs.", null],
      ["Short letter", "Three sentences at most.", null],
      ["Question first", "Open with a question.", 0],
    ]);

    const list = await get(EXPERIMENTS, a.token);
    expect(list.text).toContain(`<a href="${EXPERIMENTS}/${created!.id}"><strong>Short vs long</strong></a>`);
    expect(list.text).toContain("Long letter vs Short letter vs Question first · no feed · 0 sent");
    expect(list.text).toContain('<span class="experiment-decision">Running, no answer yet</span>');
    // Not another account's.
    expect((await get(EXPERIMENTS, b.token)).text).toContain("No experiments yet");
  });

  test("a refused form shows each message next to its field in the label's words, keeps what was typed and creates nothing", async () => {
    const { a } = await setup();
    const res = await post(
      EXPERIMENTS,
      a.token,
      formFields(a.csrf, { name: "", arm1BidMultiplier: "50", arm1BoostBids: "lots", arm0Prompt: "Keep <b>this</b>" }),
    );
    expect(res.status, show(res)).toBe(400);
    expect(res.text).toContain("The experiment was not saved:");
    expect(res.text).toMatch(/<p class="field-error error-text" id="nameError">Experiment name must not be empty \(at most 200 characters\)<\/p>/);
    expect(res.text).toMatch(/id="arm1BidMultiplierError">Arm B: bid multiplier must be a number between 0.1 and 10/);
    expect(res.text).toMatch(/id="arm1BoostBidsError">Arm B: boost Connects must be/);
    expect(res.text).toContain('id="arm1BidMultiplier" name="arm1BidMultiplier" value="50"');
    expect(res.text).toContain("Keep &lt;b&gt;this&lt;/b&gt;");
    // Arms C and D stay folded away when nothing was typed into them.
    expect(res.text).toContain('<details class="more-arms"><summary>Add a third or fourth arm</summary>');
    // No API path reaches the page.
    expect(res.text).not.toMatch(/arms\[\d\]|bidMultiplier must|boostBids must/);
    expect(await apiList(a.apiKey)).toEqual([]);

    // The service's own rule (names unique) lands on the field too.
    const dup = await post(EXPERIMENTS, a.token, formFields(a.csrf, { arm1Name: "long letter" }));
    expect(dup.status, show(dup)).toBe(400);
    expect(dup.text).toContain('id="arm1NameError">Arm B: name is the same as “Arm A” (long letter)');
    // An arm C half filled is refused there, and the folded arms open to show it.
    const third = await post(EXPERIMENTS, a.token, formFields(a.csrf, { arm2BoostBids: "-1" }));
    expect(third.status, show(third)).toBe(400);
    expect(third.text).toContain('<details class="more-arms" open>');
    expect(third.text).toMatch(/id="arm2BoostBidsError">Arm C: boost Connects must be/);
    expect(third.text).toMatch(/id="arm2NameError">Arm C: name must not be empty/);
    // A feed that is not one of the account's is refused on the feed field, not as a 404 page.
    const foreign = await post(EXPERIMENTS, a.token, formFields(a.csrf, { feedId: "not-a-feed" }));
    expect(foreign.status, show(foreign)).toBe(400);
    expect(foreign.text).toContain('id="feedIdError">Feed: feed not found');
    expect(await apiList(a.apiKey)).toEqual([]);
  });

  test("every arm field, the allocation and the freelancer round-trip to the API; the less common ones fold away until used", async () => {
    const { a } = await setup();
    const form = await get(`${EXPERIMENTS}/new`, a.token);
    expect(form.status, show(form)).toBe(200);
    const freelancerId = freelancerIdFor(a.accountId);
    expect(form.text).toContain('<option value="">Any freelancer</option>');
    expect(form.text).toContain(`<option value="${freelancerId}">`);
    expect(form.text).toContain('<option value="thompson">More to the leader (Thompson sampling)</option>');
    expect(form.text).toContain("every arm keeps at least 10 %");
    expect(form.text).toContain("{{title}}, {{skills}} and {{name}} (the freelancer) are filled in. Not together with a letter style.");
    // Nothing typed there yet: each arm's "More ways" is folded.
    expect(form.text.match(/<details class="arm-more"><summary>More ways this arm can differ<\/summary>/g)).toHaveLength(4);

    const res = await post(
      EXPERIMENTS,
      a.token,
      formFields(a.csrf, {
        allocation: "thompson",
        freelancerId,
        arm0HourlyRate: "45",
        arm0SendDelayMinutes: "0",
        arm1Prompt: "",
        arm1Template: "Hi! I read “{{title}}”.\nI know {{skills}}. — {{name}}",
        arm1FixedBid: "750.5",
        arm1SendDelayMinutes: "90",
      }),
    );
    expect(res.status, show(res)).toBe(303);
    const [created] = await apiList(a.apiKey);
    const api = (await t.request("GET", `/api/v1/experiments/${created!.id}`, { key: a.apiKey })).body.experiment;
    expect(api.allocation).toBe("thompson");
    expect(api.freelancerId).toBe(freelancerId);
    const pick = (x: Record<string, unknown>) => [x.name, x.prompt, x.template, x.hourlyRate, x.fixedBid, x.sendDelayMinutes];
    expect(api.arms.map(pick)).toEqual([
      ["Long letter", "Write five paragraphs.", null, 45, null, 0],
      // The fixed letter keeps its line break and its placeholders, to be filled per job.
      ["Short letter", null, "Hi! I read “{{title}}”.\nI know {{skills}}. — {{name}}", null, 750.5, 90],
    ]);
    const detail = await get(`${EXPERIMENTS}/${created!.id}`, a.token);
    expect(detail.text).toContain("<dt>Long letter</dt><dd>letter style “Write five paragraphs.”, hourly rate 45 USD/h, sent at once</dd>");
    expect(detail.text).toContain("fixed-price bid 750.5 USD, sent 1 h 30 min after applying</dd>");
    expect(detail.text).toContain("<dt>Share of new jobs</dt><dd>More to the leader (Thompson sampling)</dd>");
    expect(detail.text).toMatch(/<dt>Freelancer<\/dt><dd>[^<]+ <span class="muted">\(only applications going out as them\)<\/span><\/dd>/);
    expect(detail.text).not.toContain(`<dd>${freelancerId} `);
  });

  test("a bad value of each new field is refused next to it in the label's words; what was typed stays, the fold opens, nothing is created", async () => {
    const { a } = await setup();
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ arm1HourlyRate: "2" }, "arm1HourlyRate", /^Arm B: hourly rate must be a number between 3 and 999$/],
      [{ arm0FixedBid: "lots" }, "arm0FixedBid", /^Arm A: fixed-price bid must be a number between 5 and 1000000$/],
      [{ arm1SendDelayMinutes: "1.5" }, "arm1SendDelayMinutes", /^Arm B: send delay must be a whole number of minutes from 0 to 10080 \(a week\)$/],
      [{ arm1SendDelayMinutes: "20000" }, "arm1SendDelayMinutes", /^Arm B: send delay must be a whole number of minutes from 0 to 10080/],
      [{ arm1Template: "x".repeat(20_001) }, "arm1Template", /^Arm B: fixed letter must /],
      // The service's own rules, which the schema cannot state.
      [{ arm1Template: "Hello {{name}}" }, "arm1Template", /^Arm B: fixed letter cannot be combined with a letter style: a fixed letter is the letter itself/],
      [
        { arm0BidMultiplier: "1.1", arm0HourlyRate: "40" },
        "arm0BidMultiplier",
        /^Arm A: bid multiplier cannot be combined with an hourly rate or a fixed-price bid/,
      ],
      [{ allocation: "bogus" }, "allocation", /^Share of new jobs must be one of the choices listed$/],
      [{ freelancerId: "~not-ours" }, "freelancerId", /^Freelancer is not one of this account&#39;s freelancers: choose one from the list$/],
    ];
    for (const [over, id, message] of cases) {
      const res = await post(EXPERIMENTS, a.token, formFields(a.csrf, over));
      const what = JSON.stringify(over).slice(0, 80);
      expect(res.status, `${what}: ${show(res)}`).toBe(400);
      const shown = new RegExp(`<p class="field-error error-text" id="${id}Error">([^<]*)</p>`).exec(res.text)?.[1];
      expect(shown, what).toMatch(message);
      expect(res.text, what).toContain(`aria-invalid="true" aria-describedby="${id}Error ${id}Help"`);
      // No API name reaches the page.
      expect(res.text, what).not.toMatch(/arms\[\d\]|hourlyRate|fixedBid|sendDelayMinutes|freelancerId:|\/api\//);
      // What was typed comes back, and the arm's fold is open when the refusal is inside it.
      for (const [field, value] of Object.entries(over)) {
        if (field === "allocation") continue;
        if (field === "freelancerId") expect(res.text).toContain(`<option value="${value}" selected>`);
        else if (field.endsWith("Template")) expect(res.text).toContain(`>${value}</textarea>`);
        else expect(res.text).toContain(`id="${field}" name="${field}" value="${value}"`);
      }
      if (/HourlyRate|FixedBid|SendDelay|Template/.test(id)) expect(res.text, what).toContain('<details class="arm-more" open>');
    }
    expect(await apiList(a.apiKey)).toEqual([]);
  }, 30_000);

  test("from the feed page: the form opens with the feed chosen; the results fill with sent and replies; stop; another account gets a 404; a forged POST is refused", async () => {
    const { a, b } = await setup();
    const feedId = await feed(a.apiKey);
    const feedPage = await get(`/dashboard/feeds/${feedId}`, a.token);
    const link = `/dashboard/experiments/new?feed=${encodeURIComponent(feedId)}`;
    expect(feedPage.text).toContain(`<a href="${link}">Test a second letter style</a>`);
    const form = await get(link, a.token);
    expect(form.status, show(form)).toBe(200);
    expect(form.text).toContain(`<option value="${feedId}" selected>Rust jobs</option>`);
    // The control starts as the feed's current letter prompt.
    expect(form.text).toMatch(/<textarea id="arm0Prompt"[^>]*>Be brief\.<\/textarea>/);

    // Bid arms (a letter arm's proposal sent without its own draft would count as edited by hand and be left out).
    const res = await post(
      EXPERIMENTS,
      a.token,
      formFields(a.csrf, {
        feedId,
        arm0Name: "Usual bid",
        arm0Prompt: "",
        arm0BidMultiplier: "1",
        arm1Name: "Higher bid",
        arm1Prompt: "",
        arm1BidMultiplier: "1.2",
      }),
    );
    expect(res.status, show(res)).toBe(303);
    const id = res.headers.get("location")!.split("/").pop()!;

    // Proposals sent in the experiment, one reply recorded.
    worker = applyWorker(t);
    const queueIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const doc = makeDoc({ fixed: 750 });
      await ingestDocuments(t.deps, [doc], { source: "test" });
      const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const applied = await t.request("POST", "/api/auto-apply-v2/apply", {
        key: a.apiKey,
        json: { jobId: cipher, coverLetter: `Hello ${i}, I can help.`, experimentId: id },
      });
      expect(applied.status, show(applied)).toBe(200);
      expect((await settledByJob(t, worker, a.apiKey, cipher)).body.applicationStatus).toBe("applied");
      queueIds.push(applied.body.queueId);
    }
    const replied = await t.request("POST", `/api/v1/applications/${queueIds[0]}/outcome`, { key: a.apiKey, json: { outcome: "replied" } });
    expect(replied.status, show(replied)).toBe(200);

    const api = (await t.request("GET", `/api/v1/experiments/${id}`, { key: a.apiKey })).body;
    const detail = await get(`${EXPERIMENTS}/${id}`, a.token);
    expect(detail.status, show(detail)).toBe(200);
    expect(foreignScripts(detail.text)).toEqual([]);
    expect(detail.text).toContain(`<a href="/dashboard/feeds/${encodeURIComponent(feedId)}">Rust jobs</a>`);
    const needed = sampleSizePerArm(0.11, 0.07, { arms: 2 });
    const sofar = api.experiment.arms.map((x: { name: string; sent: number }) => `${x.name} ${x.sent}`).join(", ");
    expect(detail.text).toContain(`Not enough proposals yet: about ${needed} per arm are needed to tell a difference of 7 points (so far: ${sofar}).`);
    // The table has every arm's sent and replies, the charts their rows.
    for (const arm of api.experiment.arms) {
      expect(detail.text).toContain(`<tr><th scope="row">${arm.name}</th><td>${arm.successes} / ${arm.sent}</td>`);
      expect(detail.text).toContain(`<dt>${arm.name}</dt><dd>bid ×${arm.bidMultiplier}</dd>`);
      expect(detail.text).toContain(`${arm.name}: ${arm.sent === 0 ? "nothing sent yet" : ""}`);
    }
    expect(api.experiment.arms.reduce((s: number, x: { sent: number }) => s + x.sent, 0)).toBe(3);
    expect(detail.text).toContain('aria-labelledby="rates-title rates-desc"');
    expect(detail.text).not.toContain("Use the winner for this feed");

    // Another account: a 404 to read and to stop, and nothing changes.
    expect((await get(`${EXPERIMENTS}/${id}`, b.token)).status).toBe(404);
    const foreignStop = await post(`${EXPERIMENTS}/${id}/stop`, b.token, { csrf: b.csrf });
    expect(foreignStop.status).toBe(404);
    expect(foreignStop.text).toContain("This account has no such experiment.");
    // A forged POST (no session token) is refused.
    const forged = await post(`${EXPERIMENTS}/${id}/stop`, a.token, { csrf: "forged" });
    expect(forged.status).toBe(403);
    expect((await apiList(a.apiKey))[0]!.state).toBe("running");
    const forgedCreate = await post(EXPERIMENTS, a.token, formFields("forged"));
    expect(forgedCreate.status).toBe(403);
    expect(await apiList(a.apiKey)).toHaveLength(1);

    const stop = await post(`${EXPERIMENTS}/${id}/stop`, a.token, { csrf: a.csrf });
    expect(stop.status, show(stop)).toBe(303);
    expect(stop.headers.get("location")).toBe(`${EXPERIMENTS}/${id}`);
    expect((await apiList(a.apiKey))[0]!.state).toBe("stopped");
    const after = await get(`${EXPERIMENTS}/${id}`, a.token);
    expect(after.text).toContain("Stopped: no new jobs are assigned to it. At the stop, there was no clear answer yet.");
    expect(after.text).not.toContain("Stop the experiment</button>");
    expect((await get(EXPERIMENTS, a.token)).text).toContain('<span class="experiment-decision">Stopped</span>');
  }, 30_000);
});

describe("dashboard: using the winner", () => {
  test("no winner yet: refused in plain words; once an arm wins, one click makes its letter style the feed's prompt", async () => {
    const { a, b } = await setup(500);
    // Up to a few hundred drafts and applies in a minute: beyond the default per-minute limits.
    await setRateLimits(t.deps, a.accountId, { multiplier: 10 });
    const feedId = await feed(a.apiKey);
    const res = await post(EXPERIMENTS, a.token, formFields(a.csrf, { feedId, arm0Prompt: "Be brief." }));
    expect(res.status, show(res)).toBe(303);
    const id = res.headers.get("location")!.split("/").pop()!;
    const promote = `${EXPERIMENTS}/${id}/promote`;
    const early = await post(promote, a.token, { csrf: a.csrf });
    expect(early.status, show(early)).toBe(400);
    expect(early.text).toContain("There is no winner yet");
    expect(early.text).not.toContain("armId");
    expect((await post(promote, b.token, { csrf: b.csrf })).status).toBe(404);

    // Drafted and sent under their arms; every "Short letter" proposal gets a reply, no "Long letter" one.
    worker = applyWorker(t);
    const sent = new Map<string, string[]>();
    const enough = () => [...sent.values()].length === 2 && [...sent.values()].every((q) => q.length >= 25);
    for (let i = 0; i < 120 && !enough(); i++) {
      const doc = makeDoc({ fixed: 750, title: `Job number ${i}` });
      await ingestDocuments(t.deps, [doc], { source: "test" });
      const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
      const draft = await t.request("POST", "/api/auto-apply-v2/generate-proposal", { key: a.apiKey, json: { jobId: cipher, experimentId: id } });
      expect(draft.status, show(draft)).toBe(200);
      const applied = await t.request("POST", "/api/auto-apply-v2/apply", {
        key: a.apiKey,
        json: { jobId: cipher, coverLetter: draft.body.proposal, experimentId: id },
      });
      expect(applied.status, show(applied)).toBe(200);
      expect((await settledByJob(t, worker, a.apiKey, cipher)).body.applicationStatus).toBe("applied");
      const arm = applied.body.experiment.armName as string;
      sent.set(arm, [...(sent.get(arm) ?? []), applied.body.queueId]);
    }
    for (const queueId of sent.get("Short letter") ?? []) {
      const r = await t.request("POST", `/api/v1/applications/${queueId}/outcome`, { key: a.apiKey, json: { outcome: "replied" } });
      expect(r.status, show(r)).toBe(200);
    }
    const api = (await t.request("GET", `/api/v1/experiments/${id}`, { key: a.apiKey })).body;
    const short = api.experiment.arms.find((x: { name: string }) => x.name === "Short letter");
    expect(api.decision, show({ status: 200, body: api } as never)).toBe(`winner:${short.id}`);
    const detail = await get(`${EXPERIMENTS}/${id}`, a.token);
    expect(detail.text).toMatch(/Short letter gets more replies: 100 % vs 0 %, difference 100 points \(\d+ to 100\), 95 % sure\./);
    expect(detail.text).toContain("Use the winner for this feed");

    expect((await post(promote, a.token, { csrf: "forged" })).status).toBe(403);
    const done = await post(promote, a.token, { csrf: a.csrf });
    expect(done.status, show(done)).toBe(303);
    expect(done.headers.get("location")).toBe(`${EXPERIMENTS}/${id}?promoted=1`);
    const f = await t.request("GET", `/api/v1/feeds/${feedId}`, { key: a.apiKey });
    expect((f.body.feed ?? f.body).proposalGenerationPrompt).toBe("Three sentences at most.");
    expect((await get(done.headers.get("location")!, a.token)).text).toContain("The winner's letter style is now the feed's letter prompt.");
  }, 60_000);
});

describe("dashboard: experiment decisions in plain words", () => {
  /** Results as experimentResults builds them, from counts through the module's own statistics. */
  function results(counts: [number, number][], opts: { feedId?: string | null; stopped?: boolean } = {}): ExperimentResults {
    const ids = counts.map((_, i) => `arm-${i}`);
    const d = decide(
      counts.map(([s, n], i) => ({ id: ids[i]!, successes: s, n })),
      { controlId: ids[0]!, stopped: opts.stopped },
    );
    const names = ["Letter A", "Letter B", "Letter C"];
    return {
      decision: d.decision,
      reason: d.reason,
      experiment: {
        id: "e1",
        name: "Letters",
        feedId: opts.feedId ?? null,
        freelancerId: null,
        objective: "replies",
        allocation: "equal",
        state: opts.stopped ? "stopped" : "running",
        createdAt: 0,
        updatedAt: 0,
        stoppedAt: opts.stopped ? 1 : null,
        arms: counts.map(([s, n], i) => ({
          id: ids[i]!,
          position: i,
          name: names[i]!,
          prompt: `prompt ${i}`,
          template: null,
          bidMultiplier: null,
          hourlyRate: null,
          fixedBid: null,
          boostBids: null,
          sendDelayMinutes: null,
          assigned: n,
          sent: n,
          trials: n,
          successes: s,
          rate: n === 0 ? null : s / n,
          ci95: wilson(s, n),
          excludedEdited: 0,
          probabilityBest: d.probabilityBest[ids[i]!] ?? null,
          lift: i === 0 ? null : d.lift[ids[i]!]!,
        })),
      },
    };
  }

  test("a winner is quoted with its always-valid range; the winner can go to the feed", () => {
    const r = results([
      [44, 400],
      [100, 400],
    ]);
    expect(r.decision).toBe("winner:arm-1");
    const [lo, hi] = r.experiment.arms[1]!.lift!.alwaysValid95!;
    const pts = (x: number) => String(Math.round(x * 100));
    expect(Math.abs(lo! * 100)).toBeGreaterThan(1);
    expect(decisionWords(r)).toBe(`Letter B gets more replies: 25 % vs 11 %, difference 14 points (${pts(lo!)} to ${pts(hi!)}), 95 % sure.`);
    const session = { csrfToken: "tok" } as DashboardSession;
    expect(experimentDetailPage(session, r, { feedTitle: null }).value).not.toContain("Use the winner");
    const withFeed = experimentDetailPage(session, { ...r, experiment: { ...r.experiment, feedId: "f1" } }, { feedTitle: "Rust jobs" }).value;
    expect(withFeed).toContain('<form method="post" action="/dashboard/experiments/e1/promote">');
    expect(withFeed).toContain("Use the winner for this feed");
  });

  test("the control winning, no difference, and a stop say so", () => {
    const control = results([
      [100, 400],
      [44, 400],
    ]);
    expect(control.decision).toBe("winner:arm-0");
    expect(decisionWords(control)).toMatch(/^Letter A gets more replies: 25 % vs 11 % for Letter B, difference 14 points \(\d+ to \d+\), 95 % sure\.$/);
    const same = results([
      [1000, 10_000],
      [1000, 10_000],
    ]);
    expect(same.decision).toBe("no_difference");
    expect(decisionWords(same)).toBe("No difference worth having: every arm is within 3 points of Letter A, 95 % sure. Keep whichever you prefer.");
    const stopped = results(
      [
        [44, 400],
        [100, 400],
      ],
      { stopped: true },
    );
    expect(decisionWords(stopped)).toMatch(/^Stopped: no new jobs are assigned to it\. At the stop, Letter B gets more replies: 25 % vs 11 %/);
  });
});
