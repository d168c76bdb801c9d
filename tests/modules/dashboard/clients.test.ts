import { afterEach, describe, expect, test } from "bun:test";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { memberWithKey } from "../../helpers/team";

// The client lists on the dashboard (issue 45): Block / Favour on the inbox cards and the job page (CSRF-protected
// forms, the errors by their field), the favoured mark, the Clients page, and a feed's filtered-out page.

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(() => t?.close());

async function setup() {
  t = await createTestApp();
  const acct = await t.account({ name: "Acme" });
  const s = await signIn(acct.apiKey);
  const feed = await t.request("POST", "/api/v1/feeds", { key: acct.apiKey, json: { title: "Rust", minScore: 0 } });
  expect(feed.status, show(feed)).toBe(201);
  return { ...acct, ...s, feedId: feed.body.feed.id as string };
}

async function ingest(over: Parameters<typeof makeDoc>[0]): Promise<string> {
  const doc = makeDoc(over);
  await ingestDocuments(t.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

const entries = async (apiKey: string) => (await t.request("GET", "/api/v1/client-lists", { key: apiKey })).body.clients;

describe("client lists on the dashboard", () => {
  test("a card's Favour client marks the client's cards; Remove takes the mark off; the form needs the CSRF token", async () => {
    const { apiKey, token, csrf } = await setup();
    await ingest({ title: "Rust job A", companyId: "co-fav" });
    const inbox = await get("/dashboard", token);
    expect(inbox.text).toContain('<summary class="client-toggle">Client…</summary>');
    expect(inbox.text).toContain('name="companyId" value="co-fav"');
    expect(inbox.text).not.toContain("★ Favoured client");

    const forged = await post("/dashboard/clients", token, { companyId: "co-fav", list: "favoured", back: "/dashboard" });
    expect(forged.status).toBe(403);
    expect(await entries(apiKey)).toEqual([]);

    const favoured = await post("/dashboard/clients", token, {
      csrf,
      companyId: "co-fav",
      list: "favoured",
      reason: "Great to work with",
      back: "/dashboard?show=all",
    });
    expect(favoured.status, show(favoured)).toBe(303);
    expect(favoured.headers.get("location")).toBe("/dashboard?show=all");
    expect(await entries(apiKey)).toMatchObject([{ companyId: "co-fav", list: "favoured", reason: "Great to work with" }]);
    const marked = await get("/dashboard", token);
    expect(marked.text).toContain("★ Favoured client");
    expect(marked.text).toContain("Remove from favoured");

    // Another site as the return address is refused: back to the Clients page instead.
    const elsewhere = await post("/dashboard/clients/co-fav/remove", token, { csrf, back: "https://evil.example/" });
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get("location")).toBe("/dashboard/clients");
    expect(await entries(apiKey)).toEqual([]);
    expect((await get("/dashboard", token)).text).not.toContain("★ Favoured client");
  });

  test("the job page blocks with a reason; a reason too long comes back next to its field in the label's words", async () => {
    const { apiKey, token, csrf } = await setup();
    const cipher = await ingest({ title: "Rust job B", companyId: "co-bad" });
    const jobPage = `/dashboard/jobs/${encodeURIComponent(cipher)}`;
    const before = await get(jobPage, token);
    expect(before.text).toContain("Block client");
    expect(before.text).toContain('for="reason-job" class="client-label">Reason (optional)');

    const long = await post("/dashboard/clients", token, { csrf, companyId: "co-bad", list: "blocked", reason: "x".repeat(501), back: jobPage });
    expect(long.status).toBe(400);
    expect(long.text).toContain('id="cl-reasonError"');
    expect(long.text).toContain("Reason must be at most 500 characters");
    expect(long.text).toContain('value="co-bad"');
    const badList = await post("/dashboard/clients", token, { csrf, companyId: "co-bad", list: "maybe", back: jobPage });
    expect(badList.status).toBe(400);
    expect(badList.text).toContain('id="cl-listError"');
    expect(badList.text).toContain("List must be one of blocked, favoured");
    expect(await entries(apiKey)).toEqual([]);

    const blocked = await post("/dashboard/clients", token, { csrf, companyId: "co-bad", list: "blocked", reason: "Unpaid invoice", back: jobPage });
    expect(blocked.status, show(blocked)).toBe(303);
    expect(blocked.headers.get("location")).toBe(jobPage);
    const after = await get(jobPage, token);
    expect(after.text).toContain("Blocked client");
    expect(after.text).toContain("Reason: Unpaid invoice");
    expect(after.text).toContain("Unblock client");

    // The Clients page (linked from the Feeds page) lists it with who added it, and Remove.
    expect((await get("/dashboard/feeds", token)).text).toContain('href="/dashboard/clients"');
    const clients = await get("/dashboard/clients", token);
    expect(clients.status).toBe(200);
    expect(clients.text).toContain("<code>co-bad</code>");
    expect(clients.text).toContain("Unpaid invoice");
    expect(clients.text).toContain("No favoured clients.");
    const removed = await post("/dashboard/clients/co-bad/remove", token, { csrf, back: "/dashboard/clients" });
    expect(removed.status).toBe(303);
    expect((await get("/dashboard/clients", token)).text).toContain("No blocked clients.");
    expect((await post("/dashboard/clients/co-bad/remove", token, { csrf, back: "/dashboard/clients" })).status).toBe(404);
  });

  test("the feed's Filtered out (n) page lists a blocked client's jobs with the reason and Unblock", async () => {
    const { apiKey, token, csrf, feedId } = await setup();
    await post("/dashboard/clients", token, { csrf, companyId: "co-bad", list: "blocked", reason: "Scope creep", back: "/dashboard" });
    await ingest({ title: "Rust job from a blocked client", companyId: "co-bad" });
    await ingest({ title: "Rust job from a fine client", companyId: "co-ok" });
    const feedPage = await get(`/dashboard/feeds/${feedId}`, token);
    expect(feedPage.text).toContain(`href="/dashboard/feeds/${feedId}/filtered">Filtered out (1)</a>`);
    expect(feedPage.text).toContain("Rust job from a fine client");
    expect(feedPage.text).not.toContain("Rust job from a blocked client");

    const filtered = await get(`/dashboard/feeds/${feedId}/filtered`, token);
    expect(filtered.status, show(filtered)).toBe(200);
    expect(filtered.text).toContain("Rust job from a blocked client");
    expect(filtered.text).toContain("Blocked client: Scope creep");
    expect(filtered.text).toContain(`action="/dashboard/clients/co-bad/remove"`);
    const unblocked = await post("/dashboard/clients/co-bad/remove", token, { csrf, back: `/dashboard/feeds/${feedId}/filtered` });
    expect(unblocked.headers.get("location")).toBe(`/dashboard/feeds/${feedId}/filtered`);
    expect(await entries(apiKey)).toEqual([]);
    const after = await get(`/dashboard/feeds/${feedId}/filtered`, token);
    expect(after.text).toContain("Rust job from a blocked client");
    expect(after.text).not.toContain(`action="/dashboard/clients/co-bad/remove"`);

    // Another account's feed is not found.
    const other = await t.account({ name: "Other" });
    const theirs = await signIn(other.apiKey);
    expect((await get(`/dashboard/feeds/${feedId}/filtered`, theirs.token)).status).toBe(404);
  });

  test("a viewer sees the lists but no forms, and may not post them", async () => {
    const { accountId, apiKey } = await setup();
    await t.request("PUT", "/api/v1/client-lists/co-1", { key: apiKey, json: { list: "favoured", reason: "Repeat client" } });
    await ingest({ title: "Rust job C", companyId: "co-1" });
    const viewer = await memberWithKey(t, accountId, "Vi Ewer", "vi@example.com", "viewer");
    const s = await signIn(viewer.key);
    const inbox = await get("/dashboard?show=all", s.token);
    expect(inbox.text).toContain("★ Favoured client");
    expect(inbox.text).not.toContain("Remove from favoured");
    expect(inbox.text).not.toContain('<summary class="client-toggle">Client…</summary>');
    const clients = await get("/dashboard/clients", s.token);
    expect(clients.text).toContain("Repeat client");
    expect(clients.text).not.toContain("Add a client");
    const refused = await post("/dashboard/clients", s.token, { csrf: s.csrf, companyId: "co-2", list: "blocked", back: "/dashboard" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("clients");
  });
});
