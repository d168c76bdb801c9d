import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(() => t?.close());

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 15, 12);

async function setup() {
  const clock = new ManualClock(T0 - 2 * DAY);
  t = await createTestApp({ clock });
  await ingestDocuments(t.deps, [makeDoc({ title: "Rust developer" }), makeDoc({ title: "Rust and WordPress" }), makeDoc({ title: "Go developer" })], {
    source: "test",
  });
  clock.set(T0);
  const acct = await t.account({ name: "Acme" });
  return { ...acct, ...(await signIn(acct.apiKey)) };
}

describe("dashboard feed preview", () => {
  test("the form has a Preview button and a live panel; without script the button renders the panel server-side", async () => {
    const { token, csrf } = await setup();
    const form = await get("/dashboard/feeds/new", token);
    expect(form.text).toContain('formaction="/dashboard/feeds/preview"');
    expect(form.text).toContain('hx-post="/dashboard/feeds/preview"');
    expect(form.text).toContain('id="previewDays"');
    const res = await post("/dashboard/feeds/preview", token, { csrf, title: "", minScore: "0", includes: "rust", excludes: "wordpress", previewDays: "7" });
    expect(res.status, show(res)).toBe(200);
    expect(res.text).toContain("Preview: last 7 days");
    expect(res.text).toContain("<strong>1 job matched</strong> of 3 jobs");
    expect(res.text).toContain("1 dropped for having one of the exclude keywords (wordpress)");
    expect(res.text).toContain("1 dropped for having none of the include keywords (rust)");
    expect(res.text).toContain("Rust developer");
    // The form comes back as typed, ready to save.
    expect(res.text).toContain('<form method="post" action="/dashboard/feeds" id="feed-form">');
    expect(res.text).toMatch(/<textarea id="excludes"[^>]*>wordpress<\/textarea>/);
    // Nothing saved.
    expect((await t.request("GET", "/api/v1/feeds", { key: (await t.account()).apiKey })).body.feeds).toEqual([]);
  });

  test("a live (htmx) update answers the panel alone; a refusal is in the fields' words", async () => {
    const { token, csrf } = await setup();
    const live = await t.request("POST", "/dashboard/feeds/preview", {
      body: new URLSearchParams({ csrf, title: "x", minScore: "0", includes: "rust", previewDays: "1" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${token}`, "hx-request": "true" },
    });
    expect(live.status, show(live)).toBe(200);
    expect(live.text).toContain("Preview: last day");
    expect(live.text).toContain("<strong>0 jobs matched</strong>");
    expect(live.text).not.toContain("<html");
    const refused = await post("/dashboard/feeds/preview", token, { csrf, title: "x", minScore: "8", previewDays: "7" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Minimum score must be 5 or lower");
  });

  test("the empty inbox and an empty feed say what to expect and link to the preview and the sandbox's speed", async () => {
    const { token, csrf } = await setup();
    const inbox = await get("/dashboard", token);
    expect(inbox.text).toContain("the sandbox posts 4 jobs a minute");
    expect(inbox.text).toContain("JOBPILOT_SANDBOX_JOBS_PER_MINUTE");
    expect(inbox.text).toContain('href="/dashboard/feeds/new#preview"');
    const created = await post("/dashboard/feeds", token, { csrf, title: "Rust", minScore: "0", includes: "rust" });
    const id = created.headers.get("location")!.split("/").pop()!;
    const feed = await get(`/dashboard/feeds/${id}?show=all`, token);
    expect(feed.text).toContain(`href="/dashboard/feeds/${id}/edit#preview"`);
    const edit = await get(`/dashboard/feeds/${id}/edit`, token);
    expect(edit.text).toContain('id="preview"');
  });
});
