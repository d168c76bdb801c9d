import { afterEach, describe, expect, test } from "bun:test";
import { browser, openSignInForm } from "../../helpers/dashboard";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import * as accounts from "../../../src/modules/accounts/service";
import { addAiUsage, holdCredit } from "../../../src/modules/accounts/repo";
import { insertApplication, type ApplicationInsert } from "../../../src/modules/applications/repo";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { recordPoll } from "../../../src/modules/intake/repo";
import { noteDeliveryOutcome } from "../../../src/modules/feeds/repo";
import { applicationCounts, formatTime, isoWeekStart, localeFrom, matchesPerFeed, utcDayStart } from "../../../src/modules/dashboard/overview";

let t: TestApp;
const { get } = browser(() => t);
afterEach(() => t?.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function signIn(apiKey: string, headers: Record<string, string> = {}) {
  const { headers: formHeaders, csrf } = await openSignInForm(t);
  const res = await t.request("POST", "/dashboard/sign-in", { body: new URLSearchParams({ apiKey, csrf }).toString(), headers: formHeaders });
  expect(res.status, show(res)).toBe(303);
  const token = /^jp_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  return (extra: Record<string, string> = {}) =>
    t.app
      .handle(new Request("http://localhost/dashboard/overview", { headers: { cookie: `jp_session=${token}`, ...headers, ...extra } }))
      .then(async (r) => ({ status: r.status, text: await r.text() }));
}

async function createFeed(apiKey: string, title: string) {
  const res = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title, minScore: 0 } });
  expect(res.status, show(res)).toBe(201);
  return (res.body as { feed: { id: string } }).feed.id;
}

/** A job row to hang applications on (applications reference jobs). */
async function jobCiphertexts(n: number): Promise<string[]> {
  const docs = Array.from({ length: n }, () => makeDoc());
  await ingestDocuments(t.deps, docs, { source: "test" });
  return docs.map((d) => (d.jobTile as { job: { ciphertext: string } }).job.ciphertext);
}

async function application(accountId: string, jobCiphertext: string, status: ApplicationInsert["status"], appliedAtTs: number): Promise<void> {
  await insertApplication(t.deps.db, {
    id: crypto.randomUUID(),
    accountId,
    jobCiphertext,
    driver: "sandbox",
    freelancerId: "f1",
    profileId: "p1",
    status,
    phase: status === "processing" ? "queued" : "done",
    creditHeld: status === "processing",
    coverLetter: "Hello",
    timeline: "1 week",
    answers: [],
    autoFill: false,
    explicitPositions: [],
    appliedAtTs,
  });
}

describe("dashboard overview", () => {
  test("shows the signed-in account's credits, AI usage, applications, matches, webhook health and sources, and nothing of another account", async () => {
    // 2026-01-15 is a Thursday; its ISO week started on Monday 2026-01-12.
    t = await createTestApp({ config: { sources: "remoteok,hackernews" } });
    const now = t.clock.now();
    const mine = await t.account({ name: "Mine", credits: 10 });
    const other = await t.account({ name: "Other", credits: 99 });
    await accounts.setAiScoringAllowance(t.deps, mine.accountId, 50);
    await holdCredit(t.deps.db, mine.accountId);
    await holdCredit(t.deps.db, mine.accountId);
    await holdCredit(t.deps.db, other.accountId);
    for (let i = 0; i < 3; i++)
      await addAiUsage(t.deps.db, { accountId: mine.accountId, month: "2026-01", purpose: "scoring", promptTokens: 1, completionTokens: 1 });
    await addAiUsage(t.deps.db, { accountId: mine.accountId, month: "2025-12", purpose: "scoring", promptTokens: 1, completionTokens: 1 });
    for (let i = 0; i < 7; i++)
      await addAiUsage(t.deps.db, { accountId: other.accountId, month: "2026-01", purpose: "scoring", promptTokens: 1, completionTokens: 1 });

    // Feeds: matches two days ago and now, for "<Go> & Rust"; none for the quiet one; the other account's feed matches too.
    t.clock.set(now - 20 * DAY);
    const loud = await createFeed(mine.apiKey, `<Go> & "Rust"`);
    const quiet = await createFeed(mine.apiKey, "Quiet feed");
    await createFeed(other.apiKey, "Other's feed");
    t.clock.set(now - 2 * DAY);
    await ingestDocuments(t.deps, [makeDoc(), makeDoc()], { source: "test" });
    t.clock.set(now - 10 * DAY); // outside the 7 days
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });
    const jobs = await jobCiphertexts(8); // the jobs applied to below, matched long ago
    t.clock.set(now);
    await ingestDocuments(t.deps, [makeDoc()], { source: "test" });

    // Applications: today, earlier this week, last week, and the other account's.
    await application(mine.accountId, jobs[0]!, "applied", now - HOUR);
    await application(mine.accountId, jobs[1]!, "applied", now - 2 * HOUR);
    await application(mine.accountId, jobs[2]!, "failed", now - 3 * HOUR);
    await application(mine.accountId, jobs[3]!, "processing", now - 2 * DAY);
    await application(mine.accountId, jobs[4]!, "not_available", now - 3 * DAY);
    await application(mine.accountId, jobs[5]!, "applied", now - 4 * DAY); // Sunday 2026-01-11: last week
    await application(other.accountId, jobs[6]!, "applied", now - HOUR);
    await application(other.accountId, jobs[7]!, "failed", now - HOUR);

    // Webhooks: the quiet feed's endpoint is disabled after failing; the other account's feeds are failing too.
    await noteDeliveryOutcome(t.deps.db, quiet, false, now - HOUR, 0, "HTTP 500");
    await noteDeliveryOutcome(t.deps.db, quiet, false, now - HOUR, 0, "HTTP 500");

    await recordPoll(t.deps.db, "remoteok", now - 3 * 60_000, { ok: true, state: {}, seen: 40, inserted: 7, nextRunAtTs: now + HOUR });
    await recordPoll(t.deps.db, "hackernews", now - 5 * 60_000, { ok: false, error: "HTTP 503 <upstream>", nextRunAtTs: now + HOUR });

    expect(await applicationCounts(t.deps.db, mine.accountId, now)).toEqual({
      today: { applied: 2, failed: 1 },
      week: { applied: 2, failed: 1, processing: 1, not_available: 1 },
    });
    const matches = await matchesPerFeed(t.deps.db, mine.accountId, now);
    expect(matches.map((f) => [f.title, f.total, f.days.map((d) => d.count)])).toEqual([
      [`<Go> & "Rust"`, 3, [0, 0, 0, 0, 2, 0, 1]],
      ["Quiet feed", 3, [0, 0, 0, 0, 2, 0, 1]],
    ]);

    const view = await signIn(mine.apiKey);
    const page = await view();
    expect(page.status).toBe(200);
    const text = page.text;
    expect(text).toContain("<strong>8</strong> credits available");
    expect(text).toContain("<strong>2</strong> credits held");
    expect(text).toContain("<strong>3</strong> AI scorings this month");
    expect(text).toContain("of 50");
    // Applications table: today / week per status.
    expect(text).toMatch(/status-applied">applied<\/span><\/th><td>2<\/td><td>2<\/td>/);
    expect(text).toMatch(/status-failed">failed<\/span><\/th><td>1<\/td><td>1<\/td>/);
    expect(text).toMatch(/status-processing">processing<\/span><\/th><td>0<\/td><td>1<\/td>/);
    expect(text).toMatch(/status-not_available">not available<\/span><\/th><td>0<\/td><td>1<\/td>/);
    // Charts: one SVG per feed, accessible, titles escaped everywhere.
    expect(text.match(/<svg role="img"/g)).toHaveLength(2);
    expect(text).toMatch(/aria-label="&lt;Go&gt; &amp; &quot;Rust&quot;: 3 matches in the last 7 days \(bars per UTC day, scale 0 to \d+ matches\)"/);
    // Charts side by side share one scale (the busiest day of any feed), and label their axes.
    const scales = [...text.matchAll(/scale 0 to (\d+) matches\)"/g)].map((m) => m[1]);
    expect(scales).toHaveLength(2);
    expect(new Set(scales).size).toBe(1);
    expect(text).toContain("every chart uses the same scale");
    expect(text).toContain(`<caption>Matches per day for &lt;Go&gt; &amp; &quot;Rust&quot;</caption>`);
    expect(text).not.toContain("<Go>");
    expect(text).toContain('<div class="visually-hidden"><table>');
    expect(text).toContain(`href="/dashboard/feeds/${loud}"`);
    // Webhook health: the disabled endpoint, linked to its deliveries.
    expect(text).toContain(`<a href="/dashboard/feeds/${quiet}/deliveries">Quiet feed</a>`);
    expect(text).toContain('status-disabled">disabled</span>');
    expect(text).not.toContain("All webhooks healthy");
    // Sources: last poll, new jobs, last error (escaped), relative times.
    expect(text).toMatch(
      /<th scope="row">remoteok<\/th>\s*<td><time datetime="2026-01-15T11:57:00.000Z" title="[^"]+">3 minutes ago<\/time><\/td>\s*<td>7<\/td>/,
    );
    expect(text).toContain("HTTP 503 &lt;upstream&gt;");
    expect(text).toContain(">5 minutes ago</time>");
    // Nothing of the other account.
    expect(text).not.toContain("Other's feed");
    expect(text).not.toContain("Other&#39;s feed");
    expect(text).not.toContain("<strong>7</strong> AI");

    // The other account sees its own numbers, and a healthy webhook list.
    const otherPage = await (await signIn(other.apiKey))();
    expect(otherPage.text).toContain("<strong>98</strong> credits available");
    expect(otherPage.text).toContain("<strong>1</strong> credits held");
    expect(otherPage.text).toContain("<strong>7</strong> AI scorings this month");
    expect(otherPage.text).toContain("(unlimited)");
    expect(otherPage.text).toContain("All webhooks healthy");
    expect(otherPage.text).not.toContain("Quiet feed");
  });

  test("times follow the request's Accept-Language", async () => {
    t = await createTestApp({ config: { sources: "remoteok" } });
    const now = t.clock.now();
    const { apiKey } = await t.account();
    await recordPoll(t.deps.db, "remoteok", now - 3 * 60_000, { ok: true, state: {}, seen: 1, inserted: 1, nextRunAtTs: now + HOUR });
    const view = await signIn(apiKey);
    expect((await view({ "accept-language": "de-DE,de;q=0.9,en;q=0.5" })).text).toContain(">vor 3 Minuten</time>");
    expect((await view({ "accept-language": "!!not a tag" })).text).toContain(">3 minutes ago</time>");
    expect((await view()).text).toContain(">3 minutes ago</time>");
  });

  test("empty states: no matches, healthy webhooks, no sources, no applications", async () => {
    t = await createTestApp({ config: { sources: "none" } });
    const { apiKey } = await t.account();
    const view = await signIn(apiKey);
    let text = (await view()).text;
    expect(text).toContain("No feeds yet.");
    expect(text).toContain("All webhooks healthy");
    expect(text).toContain("No sources enabled");
    expect(text).toContain("No applications this week");
    expect(text).toContain("(unlimited)");
    await createFeed(apiKey, "Empty");
    text = (await view()).text;
    expect(text).toContain("No matches in the last 7 days");
    expect(text).not.toContain("<svg");
  });

  test("a source that has never polled shows as never; a success after failures clears the error", async () => {
    t = await createTestApp({ config: { sources: "remoteok,remotive" } });
    const now = t.clock.now();
    const { apiKey } = await t.account();
    await recordPoll(t.deps.db, "remoteok", now - HOUR, { ok: false, error: "boom", nextRunAtTs: now });
    await recordPoll(t.deps.db, "remoteok", now - 60_000, { ok: true, state: {}, seen: 3, inserted: 2, nextRunAtTs: now + HOUR });
    const text = (await (await signIn(apiKey))()).text;
    expect(text).toMatch(/<th scope="row">remotive<\/th>\s*<td><span class="muted">never<\/span><\/td>/);
    expect(text).not.toContain("boom");
    expect(text).toContain(">1 minute ago</time>");
  });

  test("the signed-out overview still redirects to sign-in", async () => {
    t = await createTestApp();
    const res = await get("/dashboard/overview");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });
});

describe("formatTime and localeFrom", () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  test("relative text in English, with ISO datetime and an absolute title", () => {
    const out = formatTime(now - 3 * 60_000, now, "en").value;
    expect(out).toStartWith('<time datetime="2026-01-15T11:57:00.000Z" title="');
    expect(out).toEndWith(">3 minutes ago</time>");
    expect(out).toContain("Jan 15, 2026");
    expect(formatTime(now - 2 * 3_600_000, now, "en").value).toContain(">2 hours ago<");
    expect(formatTime(now - DAY, now, "en").value).toContain(">yesterday<");
    expect(formatTime(now - 3 * DAY, now, "en").value).toContain(">3 days ago<");
    expect(formatTime(now + 2 * DAY, now, "en").value).toContain(">in 2 days<");
    expect(formatTime(now - 5_000, now, "en").value).toContain(">5 seconds ago<");
    expect(formatTime(now, now, "en").value).toContain(">now<");
    expect(formatTime(null, now, "en").value).toBe('<span class="muted">—</span>');
  });

  test("German from de-DE, and the absolute title in German too", () => {
    const out = formatTime(now - 3 * 60_000, now, localeFrom("de-DE,de;q=0.9")).value;
    expect(out).toContain(">vor 3 Minuten</time>");
    expect(out).toContain("15. Jan. 2026");
  });

  test("localeFrom takes the first valid tag by quality, falls back to en", () => {
    expect(localeFrom("de-DE,de;q=0.9,en;q=0.8")).toBe("de-DE");
    expect(localeFrom("fr;q=0.5, es-ES")).toBe("es-ES");
    expect(localeFrom("!!bad, fr-FR")).toBe("fr-FR");
    expect(localeFrom("*")).toBe("en");
    expect(localeFrom("")).toBe("en");
    expect(localeFrom(null)).toBe("en");
    expect(localeFrom("x_y_z-???")).toBe("en");
    // Even an invalid locale handed straight to formatTime renders English instead of throwing.
    expect(formatTime(now - 60_000, now, "not a locale!").value).toContain(">1 minute ago<");
  });

  test("UTC day and ISO week boundaries", () => {
    expect(new Date(utcDayStart(now)).toISOString()).toBe("2026-01-15T00:00:00.000Z");
    expect(new Date(isoWeekStart(now)).toISOString()).toBe("2026-01-12T00:00:00.000Z");
    const sunday = Date.UTC(2026, 0, 18, 23, 59);
    expect(new Date(isoWeekStart(sunday)).toISOString()).toBe("2026-01-12T00:00:00.000Z");
  });
});

describe("keys page times", () => {
  test("created and last-used times are relative and follow Accept-Language", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    t.clock.advance(2 * HOUR);
    const { token } = await browser(() => t).signIn(apiKey);
    const de = await t.request("GET", "/dashboard/keys", { headers: { cookie: `jp_session=${token}`, "accept-language": "de" } });
    expect(de.status, show(de)).toBe(200);
    expect(de.text).toContain(">vor 2 Stunden</time>");
    const en = await get("/dashboard/keys", token);
    expect(en.text).toMatch(/<time datetime="2026-01-15T12:00:00.000Z" title="[^"]+">2 hours ago<\/time>/);
  });
});
