import { afterEach, describe, expect, test } from "bun:test";
import { parseHTML } from "linkedom";
import { type DomDocument, extractJobs, readApplyForm } from "../extension/src/adapter";
import { readFreelancers } from "../extension/src/apply";
import { revokeKey } from "../src/modules/accounts/service";
import { normalizeJob } from "../src/modules/jobs/normalize";
import { createTestApp, show, type TestApp } from "./helpers/app";

const ORIGIN = "http://localhost";
const SITE = `${ORIGIN}/sandbox/site`;
const dom = (html: string) => parseHTML(html).document as unknown as DomDocument;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const LOGIN = "/sandbox/site/ab/account-security/login";

/** The login form as a browser is given it: its double-submit cookie and the token in its hidden field. */
async function loginForm(app: TestApp): Promise<{ cookie: string; csrf: string }> {
  const page = await app.request("GET", LOGIN);
  const cookie = /sbx_login=[^;]+/.exec(page.headers.get("set-cookie") ?? "")?.[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(cookie, show(page)).toBeDefined();
  expect(csrf, show(page)).toBeDefined();
  return { cookie: cookie!, csrf: csrf! };
}

/** Posts the login form with `password`, as a browser that was given the form does (or, with `extra`, does not). */
async function postLogin(app: TestApp, password: string, extra: { headers?: Record<string, string>; csrf?: string; redir?: string } = {}) {
  const form = await loginForm(app);
  return app.request("POST", LOGIN, {
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie, "sec-fetch-site": "same-origin", ...extra.headers },
    body: new URLSearchParams({ username: "me", password, redir: extra.redir ?? "/sandbox/site/nx/search/jobs/", csrf: extra.csrf ?? form.csrf }).toString(),
  });
}

/** A test app whose sandbox posts a job a minute, and a signed-in browser's cookie for a new account. */
async function signedIn() {
  t = await createTestApp({ config: { sandboxJobsPerMinute: 1, adminToken: "admin-token" } });
  t.clock.set(Date.UTC(2026, 5, 1, 12, 0, 0));
  const acc = await t.account();
  const res = await postLogin(t, acc.apiKey);
  expect(res.status, show(res)).toBe(303);
  expect(res.headers.get("location")).toBe("/sandbox/site/nx/search/jobs/");
  const cookie = /sbx_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")?.[0];
  expect(cookie).toBeDefined();
  return { app: t, acc, cookie: cookie! };
}

describe("sandbox marketplace website", () => {
  test("search without a session goes to the login page, which refuses a wrong password", async () => {
    t = await createTestApp();
    const res = await t.request("GET", "/sandbox/site/nx/search/jobs/?q=react");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sandbox/site/ab/account-security/login?redir=%2Fsandbox%2Fsite%2Fnx%2Fsearch%2Fjobs%2F%3Fq%3Dreact");
    const login = await t.request("GET", res.headers.get("location")!);
    expect(extractJobs(dom(login.text), `${SITE}/ab/account-security/login`, [ORIGIN], 0).kind).toBe("login");
    const wrong = await postLogin(t, "jp_live_nope", { redir: "https://evil.example/" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  test("login CSRF: a cross-site post, or one without the form's token, opens no session even with a valid key", async () => {
    t = await createTestApp();
    const acc = await t.account();
    const attempts = [
      await postLogin(t, acc.apiKey, { headers: { "sec-fetch-site": "cross-site" } }),
      await postLogin(t, acc.apiKey, { headers: { "sec-fetch-site": "same-site" } }),
      await postLogin(t, acc.apiKey, { csrf: "A".repeat(43) }),
      await postLogin(t, acc.apiKey, { csrf: "" }),
      await t.request("POST", LOGIN, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: "me", password: acc.apiKey, redir: "/sandbox/site/nx/search/jobs/" }).toString(),
      }),
    ];
    for (const res of attempts) {
      expect(res.status, show(res)).toBe(403);
      expect(res.headers.get("set-cookie") ?? "").not.toContain("sbx_session=");
      expect(res.text).toContain("did not come from this site");
    }
  });

  test("the session ends when the key it signed in with is revoked", async () => {
    const { app, acc, cookie } = await signedIn();
    expect((await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } })).status).toBe(200);
    await revokeKey(app.deps, acc.keyId);
    const after = await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toStartWith(LOGIN);
  });

  test("the search page lists ten jobs the adapter reads into documents the normaliser accepts", async () => {
    const { app, cookie } = await signedIn();
    const res = await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } });
    expect(res.status, show(res)).toBe(200);
    const got = extractJobs(dom(res.text), `${SITE}/nx/search/jobs/`, [ORIGIN], 1);
    expect(got.kind).toBe("search");
    expect(got.jobs).toHaveLength(10);
    for (const job of got.jobs) {
      const normalized = normalizeJob(job);
      expect(normalized.ok, JSON.stringify(normalized)).toBe(true);
      expect(job.url).toStartWith(`${SITE}/jobs/~02`);
    }
    // A minute later the site has posted one more job, first in the list.
    app.clock.advance(60_000);
    const later = extractJobs(
      dom((await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } })).text),
      `${SITE}/nx/search/jobs/`,
      [ORIGIN],
      2,
    );
    expect(later.jobs[1]!.jobTile.job.ciphertext).toBe(got.jobs[0]!.jobTile.job.ciphertext);
  });

  test("a job page shows the client's stats to a signed-in browser only; an invalidated session is sent to log in", async () => {
    const { app, acc, cookie } = await signedIn();
    const search = extractJobs(
      dom((await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } })).text),
      `${SITE}/nx/search/jobs/`,
      [ORIGIN],
      1,
    );
    // The first job whose generated document has authenticated details.
    let shown: ReturnType<typeof extractJobs> | undefined;
    let visitor: ReturnType<typeof extractJobs> | undefined;
    for (const job of search.jobs) {
      const path = new URL(job.url).pathname;
      shown = extractJobs(dom((await app.request("GET", path, { headers: { cookie } })).text), job.url, [ORIGIN], 1);
      if (shown.jobs[0]?.authJobDetailsResponse) {
        visitor = extractJobs(dom((await app.request("GET", path)).text), job.url, [ORIGIN], 1);
        break;
      }
    }
    expect(shown?.jobs[0]?.authJobDetailsResponse).toBeDefined();
    expect(normalizeJob(shown!.jobs[0]).ok).toBe(true);
    expect(visitor?.jobs[0]?.authJobDetailsResponse).toBeUndefined();
    const pub = visitor?.jobs[0]?.jobDetailsResponse?.data.jobPubDetails as Record<string, any> | undefined;
    if (pub) expect(pub.buyer?.stats).toBeUndefined();

    const invalidate = await app.request("POST", `/admin/sandbox/accounts/${acc.accountId}/session`, {
      headers: { authorization: "Bearer admin-token" },
      json: { valid: false },
    });
    expect(invalidate.status, show(invalidate)).toBe(200);
    const res = await app.request("GET", "/sandbox/site/nx/find-work/most-recent", { headers: { cookie } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toStartWith("/sandbox/site/ab/account-security/login");
  });

  test("any page answers with the bot check on demand", async () => {
    const { app, cookie } = await signedIn();
    const res = await app.request("GET", "/sandbox/site/nx/search/jobs/?q=api&challenge=1", { headers: { cookie } });
    expect(res.status).toBe(403);
    expect(extractJobs(dom(res.text), `${SITE}/nx/search/jobs/?q=api&challenge=1`, [ORIGIN], 1)).toEqual({ kind: "challenge", jobs: [] });
  });

  test("a proposal sent through the apply form is recorded as the sandbox driver records one, once, and listed in my proposals", async () => {
    const { app, cookie } = await signedIn();
    const search = extractJobs(
      dom((await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } })).text),
      `${SITE}/nx/search/jobs/`,
      [ORIGIN],
      1,
    );
    let form: ReturnType<typeof readApplyForm> | undefined;
    let applyPath = "";
    let profileId = "";
    for (const job of search.jobs) {
      applyPath = `/sandbox/site/nx/proposals/job/${job.jobTile.job.ciphertext}/apply/`;
      const page = await app.request("GET", applyPath, { headers: { cookie } });
      form = readApplyForm(dom(page.text), `${ORIGIN}${applyPath}`, [ORIGIN]);
      profileId = /<option value="([^"]+)"/.exec(page.text)?.[1] ?? "";
      if (form.hasCoverLetter) break;
    }
    expect(form?.hasCoverLetter).toBe(true);
    expect(form!.requiredConnects).toBeGreaterThan(0);
    expect(form!.availableConnects).toBe(80);
    expect(form!.submitLabel).toBe(`Send for ${form!.requiredConnects} Connects`);
    const fields: Record<string, string> = { profileId, timeline: "1 to 3 months", coverLetter: "Hello, I can do this.", confirmed: "yes" };
    fields[form!.rateField === "hourly" ? "hourlyRate" : "fixedBid"] = "50";
    for (const q of form!.questions) fields[`answer_${q.position}`] = "Yes.";
    const post = () =>
      app.request("POST", applyPath, {
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    const sent = await post();
    expect(sent.status, show(sent)).toBe(303);
    const again = await post();
    expect(again.status).toBe(409);
    expect(again.text).toContain("Already applied");
    const list = await app.request("GET", "/sandbox/site/nx/proposals", { headers: { cookie } });
    const items = dom(list.text).querySelectorAll('[data-test="proposal-item"][data-status="applied"]');
    expect(items.length).toBe(1);
    const after = readApplyForm(dom((await app.request("GET", applyPath, { headers: { cookie } })).text), `${ORIGIN}${applyPath}`, [ORIGIN]);
    expect(after.availableConnects).toBe(80 - form!.requiredConnects!);
  });

  test("the apply form of a closed job is the not-available page; too few Connects shows the more-Connects dialog", async () => {
    const { app, acc, cookie } = await signedIn();
    const search = extractJobs(
      dom((await app.request("GET", "/sandbox/site/nx/search/jobs/", { headers: { cookie } })).text),
      `${SITE}/nx/search/jobs/`,
      [ORIGIN],
      1,
    );
    const cipher = search.jobs[0]!.jobTile.job.ciphertext as string;
    const freelancers = await app.request("GET", `/admin/sandbox/accounts/${acc.accountId}/freelancers`, { headers: { authorization: "Bearer admin-token" } });
    const freelancerId = (freelancers.body as any).freelancers[0].id;
    await app.request("POST", `/admin/sandbox/freelancers/${freelancerId}/connects`, {
      headers: { authorization: "Bearer admin-token" },
      json: { connects: 0 },
    });
    const short = await app.request("GET", `/sandbox/site/nx/proposals/job/${cipher}/apply/`, { headers: { cookie } });
    const facts = readApplyForm(dom(short.text), `${SITE}/nx/proposals/job/${cipher}/apply/`, [ORIGIN]);
    if (facts.hasCoverLetter) expect(facts.needsMoreConnects).toBe(true);
    await app.request("POST", `/admin/sandbox/jobs/${cipher}/close`, { headers: { authorization: "Bearer admin-token" } });
    const closed = await app.request("GET", `/sandbox/site/nx/proposals/job/${cipher}/apply/`, { headers: { cookie } });
    const read = readApplyForm(dom(closed.text), `${SITE}/nx/proposals/job/${cipher}/apply/`, [ORIGIN]);
    expect(read.hasCoverLetter).toBe(false);
    expect(read.error).toContain("no longer available");
  });

  test("the profiles page lists the freelancers and profiles the account may propose with, as apply accepts them (freelancers.list)", async () => {
    const { app, acc, cookie } = await signedIn();
    expect((await app.request("GET", "/sandbox/site/nx/profiles")).headers.get("location")).toStartWith("/sandbox/site/ab/account-security/login");
    const page = await app.request("GET", "/sandbox/site/nx/profiles", { headers: { cookie } });
    expect(page.status, show(page)).toBe(200);
    const listed = readFreelancers(dom(page.text));
    const api = await app.request("GET", "/api/auto-apply-v2/freelancers", { key: acc.apiKey });
    expect(api.status, show(api)).toBe(200);
    expect(listed).toEqual(api.body.freelancers);
  });
});
