import { afterEach, describe, expect, test } from "bun:test";
import { createDeliverer } from "../../../src/cli/serve";
import { rawExec, rawMany } from "../../../src/db/query";
import { authenticate } from "../../../src/modules/accounts/service";
import * as feeds from "../../../src/modules/feeds/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import type { TaskWorker } from "../../../src/worker/worker";
import { browser, foreignScripts } from "../../helpers/dashboard";
import { applyWorker } from "../../helpers/apply-worker";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

let t: TestApp;
// Plain SQL on whichever database the app runs on (`?` placeholders; bigint columns come back as strings on PostgreSQL).
const rows = (sql: string, ...args: unknown[]): Promise<any[]> => rawMany<any>(t.deps.db, sql, sql, args);
const run = (sql: string, ...args: unknown[]): Promise<number> => rawExec(t.deps.db, sql, sql, args);
const { get, post, signIn } = browser(() => t);
let worker: TaskWorker | undefined;
let receiver: WebhookReceiver | undefined;
let deliverer: WebhookDeliverer | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await deliverer?.stop();
  deliverer = undefined;
  await receiver?.close();
  receiver = undefined;
  await t?.close();
});

const REFRESH = '<meta http-equiv="refresh" content="5">';

async function setupApps(opts: { start?: boolean; config?: Record<string, unknown> } = {}) {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0, loggedOutWindowMs: 0, ...opts.config } });
  const a = await t.account({ name: "Acme", credits: 5 });
  const b = await t.account({ name: "Other", credits: 5 });
  worker = applyWorker(t, { concurrency: 4, start: opts.start });
  return { a, b };
}

async function job(over: Parameters<typeof makeDoc>[0] = {}): Promise<string> {
  const doc = makeDoc(over);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

async function applyVia(key: string, jobId: string, coverLetter: string): Promise<string> {
  const res = await t.request("POST", "/api/auto-apply-v2/apply", { key, json: { jobId, coverLetter } });
  expect(res.status, show(res)).toBe(200);
  return res.body.queueId;
}

/** Waits until the application leaves `processing`, moving the test clock so retries come due (as apply.test.ts does). */
async function settled(key: string, queueId: string) {
  const until = performance.now() + 5000;
  for (;;) {
    const res = await t.request("GET", `/api/auto-apply-v2/status?queueId=${queueId}`, { key });
    if (res.body.applicationStatus !== "processing" || performance.now() > until) return res.body;
    t.clock.advance(10);
    worker!.notify();
    await Bun.sleep(2);
  }
}

describe("dashboard activity pages", () => {
  test("signed out, every activity page and the resend form redirect to sign-in", async () => {
    await setupApps({ start: false });
    for (const path of ["/dashboard/applications", "/dashboard/freelancers", "/dashboard/feeds/x/deliveries"]) {
      const res = await get(path);
      expect(res.status, show(res)).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    }
    const res = await post("/dashboard/feeds/x/deliveries/y/resend", undefined, { csrf: "nope" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("empty state, with the nav links", async () => {
    const { a } = await setupApps({ start: false });
    const { token } = await signIn(a.apiKey);
    const res = await get("/dashboard/applications", token);
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.text).toContain("No applications yet — apply to a job from a feed");
    expect(res.text).toContain('<a href="/dashboard/applications" aria-current="page">Applications</a>');
    expect(res.text).toContain('<a href="/dashboard/freelancers">Freelancers</a>');
    expect(res.text).not.toContain("http-equiv");
  });

  test("an application made through the API shows with its status and cover letter; refreshes while processing, not after", async () => {
    const { a } = await setupApps({ start: false });
    const cipher = await job({ title: "Build a Go service", fixed: 500 });
    const queueId = await applyVia(a.apiKey, cipher, "Dear client, I write Go & love it.");
    const { token } = await signIn(a.apiKey);

    const queued = await get("/dashboard/applications", token);
    expect(queued.status, show(queued)).toBe(200);
    expect(queued.text).toContain("Build a Go service");
    expect(queued.text).toContain("queued");
    expect(queued.text).toContain("1 held");
    expect(queued.text).toContain("<details><summary>Cover letter</summary>");
    expect(queued.text).toContain("Dear client, I write Go &amp; love it.");
    expect(queued.text).toContain(REFRESH);
    expect(queued.text.indexOf(REFRESH)).toBeLessThan(queued.text.indexOf("</head>"));
    expect(foreignScripts(queued.text)).toEqual([]);

    worker!.start();
    expect((await settled(a.apiKey, queueId)).applicationStatus).toBe("applied");
    const done = await get("/dashboard/applications", token);
    expect(done.status, show(done)).toBe(200);
    expect(done.text).toContain('class="badge status-applied">applied<');
    expect(done.text).toContain("1 charged");
    expect(done.text).toContain("Dear client, I write Go &amp; love it.");
    expect(done.text).not.toContain("http-equiv");
    expect(done.text).toContain("not checked yet");

    expect(
      await run(
        "UPDATE applications SET viewed = ?, replied = ?, viewed_at_ts = ?, last_checked_at_ts = ? WHERE id = ?",
        true,
        true,
        Date.UTC(2026, 0, 20, 9, 30),
        Date.UTC(2026, 0, 21),
        queueId,
      ),
    ).toBe(1);
    const engaged = await get("/dashboard/applications", token);
    expect(engaged.text).toContain("viewed, replied");
    expect(engaged.text).toContain(`viewed <time datetime="2026-01-20T09:30:00.000Z">2026-01-20 09:30:00Z</time>`);
  });

  test("an agency's applications say which freelancer applied; a solo account's have no such column; every cell names its column for the phone layout", async () => {
    await setupApps({ start: false, config: { adminToken: "admin-token-0123456789" } });
    const agency = await t.account({ name: "Studio", kind: "agency", credits: 5 });
    const added = await t.request("POST", `/admin/sandbox/accounts/${agency.accountId}/freelancers`, {
      headers: { authorization: "Bearer admin-token-0123456789" },
      json: { name: "Tomás Silva" },
    });
    expect(added.status, show(added)).toBe(201);
    const tomas = added.body.freelancer;
    const cipher = await job({ title: "Agency job", fixed: 500 });
    const res = await t.request("POST", "/api/auto-apply-v2/apply", {
      key: agency.apiKey,
      json: { jobId: cipher, coverLetter: "Hello", profileId: tomas.profiles[0].profileId },
    });
    expect(res.status, show(res)).toBe(200);
    const { token } = await signIn(agency.apiKey);
    const page = await get("/dashboard/applications", token);
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain('<th scope="col">Freelancer</th>');
    expect(page.text).toContain('<td data-label="Freelancer">Tomás Silva</td>');
    expect(page.text).toContain('<table class="applications cards">');
    for (const column of ["Job", "Status", "Applied", "Credits", "Cover letter", "Error", "Engagement"])
      expect(page.text).toContain(`<td data-label="${column}"`);

    const solo = await t.account({ name: "Solo", credits: 5 });
    await applyVia(solo.apiKey, await job({ title: "Solo job", fixed: 300 }), "Hi");
    const soloPage = await get("/dashboard/applications", (await signIn(solo.apiKey)).token);
    expect(soloPage.text).toContain("Solo job");
    expect(soloPage.text).not.toContain("Freelancer</th>");
  });

  test("?status= filters; an unknown status or a bad offset is a 400 page, not a 5xx", async () => {
    const { a } = await setupApps({ start: true });
    const okJob = await job({ title: "Will be applied" });
    const closedJob = await job({ title: "Will be closed" });
    const first = await applyVia(a.apiKey, okJob, "Hi");
    expect((await settled(a.apiKey, first)).applicationStatus).toBe("applied");
    await worker!.stop();
    const second = await applyVia(a.apiKey, closedJob, "Hi");
    expect(await run("UPDATE applications SET status = 'failed', error_message = 'Marketplace said no', credit_held = ? WHERE id = ?", false, second)).toBe(1);
    const { token } = await signIn(a.apiKey);

    const all = await get("/dashboard/applications", token);
    expect(all.text).toContain("Will be applied");
    expect(all.text).toContain("Will be closed");
    expect(all.text.indexOf("Will be closed")).toBeLessThan(all.text.indexOf("Will be applied")); // newest first

    const failed = await get("/dashboard/applications?status=failed", token);
    expect(failed.status, show(failed)).toBe(200);
    expect(failed.text).toContain("Will be closed");
    expect(failed.text).toContain("Marketplace said no");
    expect(failed.text).not.toContain("Will be applied");
    expect(failed.text).toContain('<option value="failed" selected>');

    const none = await get("/dashboard/applications?status=logged_out", token);
    expect(none.status).toBe(200);
    expect(none.text).not.toContain("Will be");
    expect(none.text).toContain("No applications with status logged out here.");

    const bad = await get("/dashboard/applications?status=bogus", token);
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.text).toContain("status must be one of");
    const badOffset = await get("/dashboard/applications?offset=-3", token);
    expect(badOffset.status, show(badOffset)).toBe(400);
    const past = await get("/dashboard/applications?offset=50", token);
    expect(past.status).toBe(200);
    expect(past.text).not.toContain("Will be");
    expect(past.text).toContain('rel="prev"');
  });

  test("every dashboard list refuses an offset past 1,000,000 (or not a whole number) with a 400 page, never a 5xx", async () => {
    const { a } = await setupApps({ start: false });
    const authA = (await authenticate(t.deps, a.apiKey))!;
    const feed = await feeds.createFeed(t.deps, authA, { title: "Paged", minScore: 0 });
    const { token } = await signIn(a.apiKey);
    for (const path of ["/dashboard/applications", `/dashboard/feeds/${feed.id}/deliveries`, `/dashboard/feeds/${feed.id}`]) {
      for (const offset of ["1e20", "9223372036854775808", "1000001", "-3", "abc"]) {
        const res = await get(`${path}?offset=${offset}`, token);
        expect(res.status, `${path}?offset=${offset}: ${show(res)}`).toBe(400);
        expect(res.text).toContain("offset must be a whole number from 0 to 1000000");
      }
      const last = await get(`${path}?offset=1000000`, token);
      expect(last.status, `${path}: ${show(last)}`).toBe(200);
    }
  });

  test("a job link that is not http or https is never rendered as an href, on any page that links the job", async () => {
    const { a } = await setupApps({ start: false });
    const feed = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "All jobs", minScore: 0 } });
    expect(feed.status, show(feed)).toBe(201);
    const cipher = await job({ title: "Sneaky link" });
    await applyVia(a.apiKey, cipher, "Hello");
    // A row archived before ingest cleaned links (or written by hand): the pages must not trust it either.
    for (const bad of ["javascript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "//evil.example/x"]) {
      for (const j of await rows("SELECT ciphertext, document FROM jobs")) {
        const document = JSON.stringify({ ...JSON.parse(j.document), url: bad });
        expect(await run("UPDATE jobs SET url = ?, document = ? WHERE ciphertext = ?", bad, document, j.ciphertext)).toBe(1);
      }
      const { token } = await signIn(a.apiKey);
      for (const path of ["/dashboard/applications", `/dashboard/feeds/${feed.body.feed.id}`, `/dashboard/jobs/${encodeURIComponent(cipher)}`]) {
        const res = await get(path, token);
        expect(res.status, `${path}: ${show(res)}`).toBe(200);
        expect(res.text, path).toContain("Sneaky link");
        const hrefs = [...res.text.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
        // Every link in the page is either the dashboard's own path or a web page.
        expect(
          hrefs.filter((h) => !/^(?:\/(?!\/)|https?:\/\/)/i.test(h)),
          `${path} with ${bad}`,
        ).toEqual([]);
      }
    }
  });

  test("another account's applications are never shown", async () => {
    const { a, b } = await setupApps({ start: false });
    await applyVia(b.apiKey, await job({ title: "Secret job of B" }), "B's private letter");
    await applyVia(a.apiKey, await job({ title: "Job of A" }), "A's letter");
    const { token } = await signIn(a.apiKey);
    const res = await get("/dashboard/applications", token);
    expect(res.text).toContain("Job of A");
    expect(res.text).not.toContain("Secret job of B");
    expect(res.text).not.toContain("B's private letter");
  });

  test("a job title with <script> is escaped", async () => {
    const { a } = await setupApps({ start: false });
    await applyVia(a.apiKey, await job({ title: '<script>alert("x")</script> & co' }), "<b>bold</b>");
    const { token } = await signIn(a.apiKey);
    const res = await get("/dashboard/applications", token);
    expect(res.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co");
    expect(res.text).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(foreignScripts(res.text)).toEqual([]);
    expect(res.text).not.toContain("<b>bold");
  });

  test("the freelancers page lists the sandbox freelancers and their profileIds", async () => {
    const { a } = await setupApps({ start: false });
    const api = await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey });
    expect(api.status, show(api)).toBe(200);
    const profiles = (api.body.freelancers as { name: string; profiles: { profileId: string; name: string }[] }[]).flatMap((f) => f.profiles);
    expect(profiles.length).toBeGreaterThan(0);
    const { token } = await signIn(a.apiKey);
    const res = await get("/dashboard/freelancers", token);
    expect(res.status, show(res)).toBe(200);
    for (const f of api.body.freelancers) expect(res.text).toContain(Bun.escapeHTML(f.name));
    for (const p of profiles) expect(res.text).toContain(`<code>${Bun.escapeHTML(p.profileId)}</code>`);
  });

  test("a driver that cannot list freelancers gives a friendly page, not a 5xx", async () => {
    const { a } = await setupApps({ start: false });
    const { token } = await signIn(a.apiKey);
    const originals = Object.values(t.deps.drivers).map((d) => [d, d.freelancers] as const);
    for (const [d] of originals)
      d.freelancers = async () => {
        throw new Error("socket hang up at 10.0.0.1");
      };
    try {
      const res = await get("/dashboard/freelancers", token);
      expect(res.status, show(res)).toBe(200);
      expect(res.text).toContain("could not be loaded");
      expect(res.text).not.toContain("10.0.0.1");
    } finally {
      for (const [d, f] of originals) d.freelancers = f;
    }
  });
});

async function setupHooks() {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 300 } });
  const a = await t.account({ name: "Acme" });
  const b = await t.account({ name: "Other" });
  deliverer = createDeliverer(t.deps);
  t.deps.work.subscribe(() => deliverer?.notify());
  deliverer.start();
  return { a, b, authA: (await authenticate(t.deps, a.apiKey))!, authB: (await authenticate(t.deps, b.apiKey))! };
}

describe("dashboard webhook deliveries", () => {
  test("lists each event with its attempts; Resend (CSRF-checked) sends a failed event again at once", async () => {
    const { a, authA } = await setupHooks();
    receiver!.setFallback({ status: 500 });
    const feed = await feeds.createFeed(t.deps, authA, { title: "Go <hooks>", minScore: 0, webhookUrl: receiver!.url });
    await receiver!.waitFor(1);
    await ingestDocuments(t.deps, [makeDoc({ title: "Go service" })], { source: "test" });
    await receiver!.waitFor(2);
    await deliverer!.idle();
    const { token, csrf } = await signIn(a.apiKey);

    const page = await get(`/dashboard/feeds/${feed.id}/deliveries`, token);
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain("Deliveries · Go &lt;hooks&gt;");
    expect(page.text).toContain(receiver!.url);
    const events = await rows("SELECT id, type, status FROM events ORDER BY seq");
    expect(events.map((e) => e.type)).toEqual(["webhook.test", "job.matched"]);
    for (const e of events) {
      expect(page.text).toContain(e.id);
      expect(page.text).toContain(`action="/dashboard/feeds/${feed.id}/deliveries/${e.id}/resend"`);
    }
    expect(page.text).toContain("<td>500</td>");
    expect(page.text).toContain(" ms</td>");
    expect(page.text).toContain("retrying");

    const target = events[0]!.id;
    const before = await rows("SELECT next_attempt_at_ts AS next, attempts FROM events WHERE id = ?", target);
    for (const fields of [{}, { csrf: "wrong" }] as Record<string, string>[]) {
      const refused = await post(`/dashboard/feeds/${feed.id}/deliveries/${target}/resend`, token, fields);
      expect(refused.status, show(refused)).toBe(403);
    }
    await deliverer!.idle();
    expect(await rows("SELECT next_attempt_at_ts AS next, attempts FROM events WHERE id = ?", target)).toEqual(before);
    expect(receiver!.received).toHaveLength(2);

    receiver!.setFallback({ status: 200 });
    const resent = await post(`/dashboard/feeds/${feed.id}/deliveries/${target}/resend`, token, { csrf });
    expect(resent.status, show(resent)).toBe(303);
    expect(resent.headers.get("location")).toBe(`/dashboard/feeds/${feed.id}/deliveries`);
    await receiver!.waitFor(3);
    await deliverer!.idle();
    expect(await rows("SELECT status FROM events WHERE id = ?", target)).toEqual([{ status: "delivered" }]);

    const after = await get(`/dashboard/feeds/${feed.id}/deliveries`, token);
    expect(after.text).toContain("<td>200</td>");
    // A delivered event has no Resend button; resending it anyway is a 409 page.
    expect(after.text).not.toContain(`deliveries/${target}/resend`);
    const again = await post(`/dashboard/feeds/${feed.id}/deliveries/${target}/resend`, token, { csrf });
    expect(again.status, show(again)).toBe(409);
    expect(again.text).toContain("already delivered");
  });

  test("another account's feed (or an unknown one) is a 404 page, for the list and for Resend", async () => {
    const { a, authB } = await setupHooks();
    const other = await feeds.createFeed(t.deps, authB, { title: "B's feed", minScore: 0, webhookUrl: receiver!.url });
    await receiver!.waitFor(1);
    await deliverer!.idle();
    const eventId = (await rows("SELECT id FROM events"))[0]!.id;
    const { token, csrf } = await signIn(a.apiKey);
    for (const path of [`/dashboard/feeds/${other.id}/deliveries`, "/dashboard/feeds/nope/deliveries"]) {
      const res = await get(path, token);
      expect(res.status, show(res)).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.text).toContain("Feed not found");
      expect(res.text).not.toContain(eventId);
    }
    const resend = await post(`/dashboard/feeds/${other.id}/deliveries/${eventId}/resend`, token, { csrf });
    expect(resend.status, show(resend)).toBe(404);
  });
});
