import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../../src/modules/accounts/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import * as members from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

const PAGE = "/dashboard/freelancers";

async function setup(kind: "agency" | "solo" = "agency") {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0 } });
  const acct = await t.account({ name: "Acme", kind });
  return { ...acct, ...(await signIn(acct.apiKey)) };
}

/** A member of the account with a key of their role, signed in to the dashboard. */
async function memberSession(accountId: string, name: string, role: "admin" | "bidder" | "viewer") {
  const { member } = await members.createMember(t.deps, { accountId, email: `${name.toLowerCase()}@example.com`, name, role, by: null });
  const { apiKey } = await accounts.createKey(t.deps, accountId, `${name}'s key`, { memberId: member.id, role });
  return { member, apiKey, ...(await signIn(apiKey)) };
}

const roster = async (apiKey: string) =>
  (await t.request("GET", "/api/auto-apply-v2/freelancers", { key: apiKey })).body.freelancers as {
    id: string;
    name: string;
    profiles: { profileId: string; name: string }[];
  }[];

describe("the Freelancers page (sandbox driver)", () => {
  test("add, edit, give a profile, set working hours and Connects, remove: each form saves and the page shows it", async () => {
    const { token, csrf, apiKey } = await setup();
    const blank = await get(PAGE, token);
    expect(blank.status, show(blank)).toBe(200);
    expect(blank.text).toContain(`action="${PAGE}"`);

    const added = await post(PAGE, token, { csrf, name: "Bo Lind", hourlyRate: "60", country: "de" });
    expect(added.status, show(added)).toBe(303);
    expect(added.headers.get("location")).toBe(`${PAGE}?saved=added`);
    const bo = (await roster(apiKey)).find((f) => f.name === "Bo Lind")!;
    expect(bo).toBeDefined();
    const shown = await get(`${PAGE}?saved=added`, token);
    expect(shown.text).toContain("Freelancer added.");
    expect(shown.text).toContain("Bo Lind");
    expect(shown.text).toContain("Base rate 60/h · DE");

    expect((await post(`${PAGE}/${bo.id}`, token, { csrf, name: "Bo Lindqvist", hourlyRate: "", country: "" })).status).toBe(303);
    expect((await roster(apiKey)).find((f) => f.id === bo.id)!.name).toBe("Bo Lindqvist");

    const profile = await post(`${PAGE}/${bo.id}/profiles`, token, { csrf, name: "Rust specialist", hourlyRate: "90", skills: "Rust, Tokio,  ,rust" });
    expect(profile.status, show(profile)).toBe(303);
    const page = await get(PAGE, token);
    expect(page.text).toContain("Rust specialist");
    expect(page.text).toContain("Rust, Tokio");

    const settings = await post(`${PAGE}/${bo.id}/settings`, token, {
      csrf,
      timeZone: "Europe/Berlin",
      start: "08:00",
      end: "16:00",
      days: "2",
      available: "55",
    });
    expect(settings.status, show(settings)).toBe(303);
    const automation = await t.request("GET", `/api/v1/automation?freelancerId=${bo.id}`, { key: apiKey });
    expect(automation.body.limits.workingHours).toEqual({ timeZone: "Europe/Berlin", days: [2], start: "08:00", end: "16:00" });
    expect(automation.body.balance).toMatchObject({ available: 55, source: "manual" });

    const removed = await post(`${PAGE}/${bo.id}/remove`, token, { csrf });
    expect(removed.status, show(removed)).toBe(303);
    expect((await roster(apiKey)).map((f) => f.id)).not.toContain(bo.id);
  });

  test("a refused form re-shows the page with the status and the message naming the field", async () => {
    const { token, csrf, apiKey } = await setup();
    const before = (await roster(apiKey)).length;
    const blank = await post(PAGE, token, { csrf, name: "", hourlyRate: "", country: "" });
    expect(blank.status).toBe(400);
    // By the field, in the label's words, with a summary linking to it; what was typed is kept.
    expect(blank.text).toContain('<p class="field-error error-text" id="new-nameError">Name must be 1 to 100 characters long</p>');
    expect(blank.text).toContain('<a href="#new-name">');
    const country = await post(PAGE, token, { csrf, name: "Cy", hourlyRate: "", country: "Germany" });
    expect(country.status).toBe(400);
    expect(country.text).toContain('id="new-countryError">Country must be a two-letter ISO 3166 code');
    expect(country.text).toContain('value="Germany"');
    const rate = await post(PAGE, token, { csrf, name: "Cy", hourlyRate: "lots", country: "" });
    expect(rate.status).toBe(400);
    expect(rate.text).toContain('id="new-rateError">Base hourly rate must be a number');
    expect((await roster(apiKey)).length).toBe(before);
    const own = (await roster(apiKey))[0]!;
    const zone = await post(`${PAGE}/${own.id}/settings`, token, { csrf, timeZone: "Mars/Olympus", start: "09:00", end: "17:00", days: "1" });
    expect(zone.status).toBe(400);
    // Inside the folded settings, opened so the message is in view.
    expect(zone.text).toContain(`id="s-${own.id}-tzError">Time zone: unknown time zone`);
    expect(zone.text).toContain("<details open><summary>Working hours and Connects");
    const keepOwn = await post(`${PAGE}/${own.id}/remove`, token, { csrf });
    expect(keepOwn.status).toBe(400);
    expect(keepOwn.text).toContain("own freelancer cannot be removed");
    const foreign = await post(PAGE, token, { csrf: "not-the-token", name: "Dee", hourlyRate: "", country: "" });
    expect(foreign.status).toBe(403);
  });

  test("a bidder sees the roster but its forms are refused (403); a viewer gets no edit forms", async () => {
    const { accountId } = await setup();
    const bidder = await memberSession(accountId, "Ana", "bidder");
    const seen = await get(PAGE, bidder.token);
    expect(seen.status, show(seen)).toBe(200);
    expect(seen.text).not.toContain(`action="${PAGE}"`);
    const res = await post(PAGE, bidder.token, { csrf: bidder.csrf, name: "Nope", hourlyRate: "", country: "" });
    expect(res.status).toBe(403);
    expect(res.text).toContain("does not have the permission &quot;freelancers&quot;");
  });

  test("on the companion driver the roster is read-only: no add form, and a posted change is a 409 saying so", async () => {
    const { token, csrf, accountId } = await setup();
    await accounts.setMarketplaceDriver(t.deps, accountId, "companion");
    const page = await get(PAGE, token);
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain("On the companion driver the freelancers come from the marketplace");
    expect(page.text).not.toContain("Add a freelancer");
    const res = await post(PAGE, token, { csrf, name: "Bo", hourlyRate: "", country: "" });
    expect(res.status).toBe(409);
    expect(res.text).toContain("freelancers come from the marketplace on the companion driver; change them there");
  });
});

describe("routing feeds on the Freelancers page, and the inbox", () => {
  test("the routing form sets a feed's profile and members; the member's inbox lists their feeds first, marked", async () => {
    const { token, csrf, apiKey, accountId } = await setup();
    await post(PAGE, token, { csrf, name: "Bo", hourlyRate: "", country: "" });
    const bo = (await roster(apiKey)).find((f) => f.name === "Bo")!;
    const ana = await memberSession(accountId, "Ana", "bidder");
    const feed = async (title: string, includes: string[]) =>
      (await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title, minScore: 0, includes } })).body.feed.id as string;
    const rustFeed = await feed("Rust feed", ["rust"]);
    const goFeed = await feed("Go feed", ["golang"]);

    const routed = await post(`${PAGE}/routing/${rustFeed}`, token, { csrf, profileId: bo.profiles[0]!.profileId, memberIds: ana.member.id });
    expect(routed.status, show(routed)).toBe(303);
    const read = await t.request("GET", `/api/v1/automation/feeds/${rustFeed}`, { key: apiKey });
    expect(read.body).toMatchObject({ freelancerId: bo.id, profileId: bo.profiles[0]!.profileId, memberIds: [ana.member.id] });
    const badMember = await post(`${PAGE}/routing/${rustFeed}`, token, { csrf, profileId: "", memberIds: "no-such-member" });
    expect(badMember.status).toBe(400);
    expect(badMember.text).toMatch(new RegExp(`<p class="field-error error-text" id="r-${rustFeed}-membersError">Members \\(entry 1\\)[^<]*</p>`));
    // A bidder cannot route feeds (the "feeds" permission).
    expect((await post(`${PAGE}/routing/${goFeed}`, ana.token, { csrf: ana.csrf, profileId: "" })).status).toBe(403);

    // The Rust job first, the Go job a minute newer: newest first, except the member's own feed comes first.
    const rustDoc = makeDoc({ title: "Rust CLI tool", skills: ["Rust"], fixed: 900 });
    await ingestDocuments(t.deps, [rustDoc], { source: "test" });
    t.clock.advance(60_000);
    await ingestDocuments(t.deps, [makeDoc({ title: "Golang API", skills: ["Golang"], fixed: 900 })], { source: "test" });
    const order = (html: string) => [...html.matchAll(/<h2 id="title-[^"]+"><a[^>]*>([^<]+)<\/a>/g)].map((m) => m[1]);
    const owners = await get("/dashboard", token);
    expect(order(owners.text)).toEqual(["Golang API", "Rust CLI tool"]);
    expect(owners.text).not.toContain("Your feeds</span>");
    const anas = await get("/dashboard", ana.token);
    expect(anas.status, show(anas)).toBe(200);
    expect(order(anas.text)).toEqual(["Rust CLI tool", "Golang API"]);
    expect(anas.text.match(/yours-badge/g)?.length).toBe(1);

    // The job page's apply form goes out as the feed's profile unless another is picked.
    const cipher = (rustDoc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
    const jobPage = await get(`/dashboard/jobs/${encodeURIComponent(cipher)}`, token);
    expect(jobPage.status, show(jobPage)).toBe(200);
    const selected = [...jobPage.text.matchAll(/<option value="([^"]+)" selected>/g)].map((m) => m[1]);
    expect(selected).toContain(bo.profiles[0]!.profileId);
  });
});
