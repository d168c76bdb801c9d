import { afterEach, describe, expect, test } from "bun:test";
import { iso } from "../../../src/lib/time";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { localToUtc } from "../../../src/modules/dashboard/outcome";
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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ANALYTICS = "/dashboard/analytics";
const NOT_ENOUGH = "fewer than 10 sent — not enough to tell";
/** Tests that send proposals through the sandbox and its worker: a loaded machine (PostgreSQL above all) needs more than 5 s. */
const SLOW = 15_000;

async function setup() {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, connectPriceUsd: 0.15 } });
  const a = await t.account({ name: "Acme", credits: 20 });
  const b = await t.account({ name: "Other", credits: 5 });
  worker = applyWorker(t);
  return { a: { ...a, ...(await signIn(a.apiKey)) }, b: { ...b, ...(await signIn(b.apiKey)) } };
}

/** A job applied to through the sandbox and settled: its ciphertext and queueId. */
async function sent(apiKey: string): Promise<{ cipher: string; queueId: string }> {
  const doc = makeDoc({ fixed: 750 });
  doc.connectPrice = 8;
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const cipher = (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key: apiKey, json: { jobId: cipher, coverLetter: "Hello, I can help." } });
  expect(res.status, show(res)).toBe(200);
  const final = await settledByJob(t, worker!, apiKey, cipher);
  expect(final.body.applicationStatus, show(final)).toBe("applied");
  return { cipher, queueId: res.body.queueId };
}

const jobPath = (cipher: string) => `/dashboard/jobs/${encodeURIComponent(cipher)}`;
const outcomePath = (queueId: string) => `/dashboard/applications/${queueId}/outcome`;
const funnel = (apiKey: string, queueId: string) => t.request("GET", `/api/v1/applications/${queueId}/funnel`, { key: apiKey });
const htmx = (path: string, token: string, fields: Record<string, string>) =>
  t.request("POST", path, {
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${token}`, "hx-request": "true" },
  });

describe("dashboard: recording an outcome", () => {
  test(
    "the job page shows the funnel and the form; a plain POST records through recordOutcome and comes back",
    async () => {
      const { a } = await setup();
      const { cipher, queueId } = await sent(a.apiKey);
      const page = await get(jobPath(cipher), a.token);
      expect(page.status, show(page)).toBe(200);
      expect(foreignScripts(page.text)).toEqual([]);
      expect(page.text).toContain('<section id="outcome"');
      expect(page.text).toContain(`action="${outcomePath(queueId)}"`);
      for (const label of ["What happened?", "Contract value (USD)", "When", "Note", "Connects spent"]) expect(page.text).toContain(label);
      expect(page.text).toContain("8 Connects, $1.20");

      t.clock.advance(HOUR);
      const res = await post(outcomePath(queueId), a.token, { csrf: a.csrf, outcome: "replied", note: "asked for samples", at: "", tz: "" });
      expect(res.status, show(res)).toBe(303);
      expect(res.headers.get("location")).toBe(`${jobPath(cipher)}?recorded=replied#outcome`);
      const after = (await funnel(a.apiKey, queueId)).body;
      expect(after).toMatchObject({ inConversation: true, note: "asked for samples", stages: { replied: t.clock.now() } });
      const back = await get(`${jobPath(cipher)}?recorded=replied`, a.token);
      expect(back.text).toContain("Recorded: the client replied.");
      expect(back.text).toContain(`<time datetime="${iso(t.clock.now())}">`);
      // The applications list links to it.
      const list = await get("/dashboard/applications", a.token);
      expect(list.text).toContain(`${jobPath(cipher)}#outcome`);
      // The recorded reply shows as the engagement, though the marketplace was never checked.
      expect(list.text).toContain("viewed, replied");
    },
    SLOW,
  );

  test(
    "with htmx the section is swapped; a backwards outcome is a 409 next to “What happened?”",
    async () => {
      const { a } = await setup();
      const { queueId } = await sent(a.apiKey);
      t.clock.advance(HOUR);
      const hired = await htmx(outcomePath(queueId), a.token, { csrf: a.csrf, outcome: "hired", valueUsd: "$1,200", tz: "" });
      expect(hired.status, show(hired)).toBe(200);
      expect(hired.text.startsWith('<section id="outcome"')).toBe(true);
      expect(hired.text).not.toContain("<html");
      expect(hired.text).toContain("Recorded: hired.");
      expect(hired.text).toContain("contract value $1,200");
      expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: "hired", valueUsd: 1200 });

      const back = await htmx(outcomePath(queueId), a.token, { csrf: a.csrf, outcome: "replied", tz: "" });
      expect(back.status, show(back)).toBe(409);
      const error = /<p class="field-error error-text" id="outcome-outcomeError">([^<]*)<\/p>/.exec(back.text);
      expect(error?.[1], back.text).toContain("would move it backwards");
      expect(back.text).toContain('aria-describedby="outcome-outcomeError"');
      expect(back.text).not.toContain("/api/");
      // The choice made is kept.
      expect(back.text).toContain('value="replied" checked');
      expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: "hired" });

      // Without htmx the same refusal is the whole job page with the message in place.
      const plain = await post(outcomePath(queueId), a.token, { csrf: a.csrf, outcome: "withdrawn", tz: "" });
      expect(plain.status, show(plain)).toBe(409);
      expect(plain.text).toContain("<html");
      expect(plain.text).toContain('id="outcome-outcomeError"');
    },
    SLOW,
  );

  test(
    "a bad value or time is a 400 in the label's words; a time is read in the browser's zone",
    async () => {
      const { a } = await setup();
      const { queueId } = await sent(a.apiKey);
      const sentAt = (await funnel(a.apiKey, queueId)).body.stages.sent as number;
      t.clock.advance(DAY);
      const cases: [Record<string, string>, string, string][] = [
        [{ outcome: "hired", valueUsd: "lots" }, "valueUsd", "Contract value (USD) must be"],
        [{ outcome: "hired", valueUsd: "-5" }, "valueUsd", "Contract value (USD) must be"],
        [{ outcome: "replied", at: iso(t.clock.now() + DAY).slice(0, 16) }, "at", "When is in the future"],
        [{ outcome: "replied", at: iso(sentAt - DAY).slice(0, 16) }, "at", "When is before the proposal was sent"],
        [{ outcome: "replied", at: "yesterday" }, "at", "When is not a date and time"],
        [{ outcome: "replied", at: "2026-02-31T10:00" }, "at", "When is not a date and time"],
        [{ outcome: "replied", at: iso(sentAt).slice(0, 16), tz: "Mars/Olympus" }, "at", "time zone (Mars/Olympus) is not known"],
        [{ outcome: "ghosted" }, "outcome", "What happened? must be"],
        [{}, "outcome", "Choose what happened."],
        [{ outcome: "replied", note: "x".repeat(2001) }, "note", "Note must be"],
      ];
      for (const [fields, id, words] of cases) {
        const res = await htmx(outcomePath(queueId), a.token, { csrf: a.csrf, tz: "", ...fields });
        expect(res.status, `${JSON.stringify(fields)}: ${show(res)}`).toBe(400);
        const error = new RegExp(`id="outcome-${id}Error">([^<]*)<`).exec(res.text);
        expect(error?.[1], JSON.stringify(fields)).toContain(words);
        expect(res.text).not.toContain("Unix ms");
      }
      expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: null, stages: { replied: null } });

      // A wall time in Tokyo (UTC+9, no daylight saving) is nine hours ahead of the UTC instant it names.
      const expected = Math.ceil((sentAt + 2 * HOUR) / 60_000) * 60_000;
      const wall = iso(expected + 9 * HOUR).slice(0, 16);
      expect(localToUtc(wall, "Asia/Tokyo")).toBe(expected);
      const ok = await htmx(outcomePath(queueId), a.token, { csrf: a.csrf, outcome: "interview", at: wall, tz: "Asia/Tokyo" });
      expect(ok.status, show(ok)).toBe(200);
      expect((await funnel(a.apiKey, queueId)).body.stages.interview).toBe(expected);
    },
    SLOW,
  );

  test("daylight saving time is followed when a wall time is read", () => {
    expect(localToUtc("2026-07-01T12:00", "Europe/Berlin")).toBe(Date.parse("2026-07-01T10:00:00Z"));
    expect(localToUtc("2026-01-15T12:00", "Europe/Berlin")).toBe(Date.parse("2026-01-15T11:00:00Z"));
    expect(localToUtc("2026-01-15T12:00", "")).toBe(Date.parse("2026-01-15T12:00:00Z"));
    expect(localToUtc("2026-13-01T12:00", "UTC")).toBeNull();
  });

  test(
    "another account's application is a 404; signed out is sent to sign-in; a forged POST is refused",
    async () => {
      const { a, b } = await setup();
      const { cipher, queueId } = await sent(a.apiKey);
      const theirs = await post(outcomePath(queueId), b.token, { csrf: b.csrf, outcome: "hired" });
      expect(theirs.status, show(theirs)).toBe(404);
      expect((await get(jobPath(cipher), b.token)).text).not.toContain(outcomePath(queueId));

      const signedOut = await post(outcomePath(queueId), undefined, { outcome: "hired" });
      expect(signedOut.status).toBe(303);
      expect(signedOut.headers.get("location")).toBe("/dashboard/sign-in");
      expect((await get(ANALYTICS)).headers.get("location")).toBe("/dashboard/sign-in");

      // A form posted from another site carries the cookie at most, never the session's token.
      const forged = await t.request("POST", outcomePath(queueId), {
        body: new URLSearchParams({ outcome: "hired" }).toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: `jp_session=${a.token}`,
          "sec-fetch-site": "cross-site",
          origin: "https://evil.example",
        },
      });
      expect(forged.status, show(forged)).toBe(403);
      const wrongToken = await post(outcomePath(queueId), a.token, { csrf: b.csrf, outcome: "hired" });
      expect(wrongToken.status).toBe(403);
      expect((await funnel(a.apiKey, queueId)).body).toMatchObject({ outcome: null, stages: { hired: null } });
    },
    SLOW,
  );
});

describe("dashboard: the Analytics page", () => {
  test("a new account sees what will appear and when", async () => {
    const { a } = await setup();
    const res = await get(ANALYTICS, a.token);
    expect(res.status, show(res)).toBe(200);
    expect(foreignScripts(res.text)).toEqual([]);
    expect(res.text).toContain('<a href="/dashboard/analytics" aria-current="page">Analytics</a>');
    expect(res.text).toContain("Nothing to analyse yet");
    expect(res.text).toContain("once 10 proposals in it are sent");
    expect(res.text).not.toContain("Download CSV");
  });

  test(
    "with proposals: funnel, rates withheld under 10 sent, cost, calibration, speed and the CSV",
    async () => {
      const { a, b } = await setup();
      const first = await sent(a.apiKey);
      await sent(a.apiKey);
      await sent(b.apiKey);
      t.clock.advance(HOUR);
      const rec = await post(outcomePath(first.queueId), a.token, { csrf: a.csrf, outcome: "replied", tz: "" });
      expect(rec.status, show(rec)).toBe(303);

      const res = await get(ANALYTICS, a.token);
      expect(res.status, show(res)).toBe(200);
      const text = res.text;
      expect(text).not.toContain("Nothing to analyse yet");
      for (const heading of ["Funnel", "Cost", "Reply rate by feed", "Reply rate by post age", "Calibration: score → reply rate", "Speed to lead"]) {
        expect(text).toContain(`>${heading}</h2>`);
      }
      // Two sent (the other account's is not counted), one replied; too few for a rate anywhere.
      expect(text).toContain("<strong>2</strong>proposals sent");
      expect(text).toContain(NOT_ENOUGH);
      expect(text).not.toMatch(/\d %<\/strong>reply rate/);
      // 2 × 8 Connects at $0.15, one reply.
      expect(text).toContain("<dt>Connects spent</dt><dd>16 ");
      expect(text).toContain("$2.40");
      expect(text).toContain('$2.40 <span class="muted">(16 Connects)</span>');
      // Every chart is an image with a title and a description, and has its numbers as a table.
      const svgs = text.match(/<svg class="rows-chart"[^>]*>/g) ?? [];
      expect(svgs.length).toBeGreaterThanOrEqual(4);
      for (const svg of svgs) expect(svg).toMatch(/role="img" aria-labelledby="[\w-]+-title [\w-]+-desc"/);
      expect(text).toContain("<summary>The numbers</summary>");
      expect(text).toContain(`href="${ANALYTICS}/ledger.csv"`);

      const csv = await get(`${ANALYTICS}/ledger.csv`, a.token);
      expect(csv.status, show(csv)).toBe(200);
      expect(csv.headers.get("content-type")).toContain("text/csv");
      const lines = csv.text.trim().split(/\r?\n/);
      expect(lines[0]).toContain("queueId");
      expect(lines.length).toBe(3);
      expect(csv.text).toContain(first.queueId);
      expect((await get(`${ANALYTICS}/ledger.csv`)).status).toBe(303);
    },
    SLOW,
  );

  test(
    "rates with intervals from 10 sent on",
    async () => {
      const { a } = await setup();
      const apps = [];
      for (let i = 0; i < 10; i++) apps.push(await sent(a.apiKey));
      t.clock.advance(HOUR);
      for (const app of apps.slice(0, 3)) {
        const res = await post(outcomePath(app.queueId), a.token, { csrf: a.csrf, outcome: "replied", tz: "" });
        expect(res.status, show(res)).toBe(303);
      }
      const text = (await get(ANALYTICS, a.token)).text;
      expect(text).toContain("<strong>30 %</strong>reply rate (3 replied)");
      // The Wilson interval of 3 in 10, drawn and in the table.
      expect(text).toMatch(/30 % \(1\d(\.\d)? %–6\d %\)/);
      expect(text).toContain("95 % interval");
    },
    4 * SLOW,
  );

  test(
    "filters: range and feed; a bad or foreign one is refused",
    async () => {
      const { a, b } = await setup();
      await sent(a.apiKey);
      const feed = await t.request("POST", "/api/v1/feeds", { key: b.apiKey, json: { title: "Theirs", minScore: 0 } });
      expect(feed.status, show(feed)).toBeLessThan(300);
      t.clock.advance(10 * DAY);
      // Ten days idle ends the session: sign in again.
      Object.assign(a, await signIn(a.apiKey));
      const week = await get(`${ANALYTICS}?range=7`, a.token);
      expect(week.status, show(week)).toBe(200);
      expect(week.text).toContain("No proposal was sent in this range");
      expect(week.text).toContain('<option value="7" selected>Last 7 days</option>');
      const all = await get(`${ANALYTICS}?range=all`, a.token);
      expect(all.text).toContain("<strong>1</strong>proposals sent");
      expect(all.text).toContain(`href="${ANALYTICS}/ledger.csv?range=all"`);
      const bad = await get(`${ANALYTICS}?range=365`, a.token);
      expect(bad.status).toBe(400);
      expect(bad.text).toContain("Sent in must be one of");
      const foreign = await get(`${ANALYTICS}?range=all&feed=${feed.body.feed.id}`, a.token);
      expect(foreign.status, show(foreign)).toBe(404);
      expect(foreign.text).toContain("Feed is not one of your feeds");
    },
    SLOW,
  );
});
