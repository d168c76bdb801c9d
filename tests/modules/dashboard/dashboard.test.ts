import { afterEach, describe, expect, test } from "bun:test";
import { browser, form, FORM, sessionCookie, foreignScripts, openSignInForm } from "../../helpers/dashboard";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import * as accounts from "../../../src/modules/accounts/service";
import { createSignInLink } from "../../../src/modules/dashboard/service";
import { html, raw } from "../../../src/modules/dashboard/html";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SIGN_IN_LINK_MS } from "../../../src/modules/dashboard/model";
import { rawMany } from "../../../src/db/query";
import { COMPANION_KEY_LABEL } from "../../../src/modules/companion/service";

let t: TestApp;
const { get, post, signIn } = browser(() => t);
afterEach(() => t?.close());

function sessionRows(): Promise<Record<string, unknown>[]> {
  return rawMany<Record<string, unknown>>(t.deps.db, "test.sessions", "SELECT * FROM dashboard_sessions", []);
}

describe("dashboard sign-in", () => {
  test("a valid key sets an HttpOnly, SameSite=Strict session cookie scoped to /dashboard and redirects", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account({ name: "Acme" });
    const { headers, csrf } = await openSignInForm(t);
    const res = await t.request("POST", "/dashboard/sign-in", { body: form({ apiKey, csrf }), headers });
    expect(res.status, show(res)).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/dashboard");
    expect(cookie).not.toContain("Secure");
    const token = sessionCookie(res);
    expect(token).not.toBe(apiKey);
    expect(token).not.toContain(apiKey);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored only as a hash: neither the token nor the key appears anywhere in the table.
    const dump = JSON.stringify(await sessionRows());
    expect(await sessionRows()).toHaveLength(1);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(apiKey);
    expect((await sessionRows())[0]!.id).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
  });

  test("over https (directly or behind a proxy) the cookie is also Secure", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const { headers, csrf } = await openSignInForm(t);
    const direct = await t.app.handle(new Request("https://localhost/dashboard/sign-in", { method: "POST", headers, body: form({ apiKey, csrf }) }));
    expect(direct.status).toBe(303);
    expect(direct.headers.get("set-cookie")).toContain("; Secure");
    const proxied = await t.request("POST", "/dashboard/sign-in", { body: form({ apiKey, csrf }), headers: { ...headers, "x-forwarded-proto": "https" } });
    expect(proxied.headers.get("set-cookie")).toContain("; Secure");
  });

  test("a wrong, malformed or missing key gets 401 with the form and a clear message, and no session", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const wrong = apiKey.slice(0, -1) + (apiKey.endsWith("a") ? "b" : "a");
    const { headers, csrf } = await openSignInForm(t);
    for (const body of [form({ apiKey: wrong, csrf }), form({ apiKey: "nonsense", csrf }), form({ csrf })]) {
      const res = await t.request("POST", "/dashboard/sign-in", { body, headers });
      expect(res.status, show(res)).toBe(401);
      expect(res.headers.get("content-type")).toStartWith("text/html");
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(res.text).toContain("That API key is not valid");
      expect(res.text).toContain('<form method="post" action="/dashboard/sign-in">');
      expect(res.text).toContain('<label for="apiKey">');
    }
    expect(await sessionRows()).toHaveLength(0);
  });

  // Login CSRF: another site's page auto-submitting the form with the attacker's key would put the victim in the attacker's account.
  test("a sign-in POST that did not come from the sign-in page is refused with a 403 page and no session, even with a valid key", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const { headers, csrf } = await openSignInForm(t);
    const other = await openSignInForm(t); // another browser's pair
    const attempts: [string, Record<string, string>, Record<string, string>][] = [
      ["no pre-session cookie, no token (a cross-site form)", FORM, { apiKey }],
      ["a token but no cookie", FORM, { apiKey, csrf }],
      ["the cookie but no token", headers, { apiKey }],
      ["another browser's token", headers, { apiKey, csrf: other.csrf }],
      ["a token one character longer", headers, { apiKey, csrf: csrf + "x" }],
      ["a matching pair sent cross-site", { ...headers, "sec-fetch-site": "cross-site" }, { apiKey, csrf }],
      ["a matching pair sent from a sibling site", { ...headers, "sec-fetch-site": "same-site" }, { apiKey, csrf }],
    ];
    for (const [what, h, fields] of attempts) {
      const res = await t.request("POST", "/dashboard/sign-in", { body: form(fields), headers: h });
      expect(res.status, `${what}: ${show(res)}`).toBe(403);
      expect(res.headers.get("content-type"), what).toStartWith("text/html");
      expect(res.headers.get("set-cookie") ?? "", what).not.toContain("jp_session=");
      expect(res.text, what).toContain("did not come from this dashboard");
      // The page offers a fresh form, so a person who hit this by accident just signs in again.
      expect(res.text, what).toContain('<form method="post" action="/dashboard/sign-in">');
      expect(res.text, what).toContain('name="csrf"');
    }
    expect(await sessionRows()).toHaveLength(0);
    const ok = await t.request("POST", "/dashboard/sign-in", { body: form({ apiKey, csrf }), headers: { ...headers, "sec-fetch-site": "same-origin" } });
    expect(ok.status, show(ok)).toBe(303);
    expect(await sessionRows()).toHaveLength(1);
  });

  test("the sign-in page keeps the browser's pre-session token, so two open tabs both work", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const { headers, csrf } = await openSignInForm(t);
    const again = await t.request("GET", "/dashboard/sign-in", { headers });
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(again.text).toContain(`name="csrf" value="${csrf}"`);
    const res = await t.request("POST", "/dashboard/sign-in", { body: form({ apiKey, csrf }), headers });
    expect(res.status, show(res)).toBe(303);
  });

  test("the sign-in page and the stylesheet are served without a session; the API-key auth does not apply", async () => {
    t = await createTestApp();
    const page = await get("/dashboard/sign-in");
    expect(page.status, show(page)).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.text).toContain('href="/dashboard/style.css"');
    expect(foreignScripts(page.text)).toEqual([]);
    const css = await get("/dashboard/style.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toStartWith("text/css");
    expect(css.text).toContain(":focus-visible");
  });

  test("the dashboard's script and stylesheet are served from their files, byte for byte, with their types and an hour's cache", async () => {
    t = await createTestApp();
    const assets = [
      ["/dashboard/app.js", "app.browser.js", "text/javascript; charset=utf-8"],
      ["/dashboard/style.css", "style.css", "text/css; charset=utf-8"],
    ] as const;
    for (const [path, file, type] of assets) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe(type);
      expect(res.headers.get("cache-control"), path).toBe("public, max-age=3600");
      expect(res.text, path).toBe(await Bun.file(new URL(`../../../src/modules/dashboard/${file}`, import.meta.url)).text());
    }
  });

  test("the API still refuses urlencoded bodies with 415", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const res = await t.request("POST", "/api/v1/feeds", { key: apiKey, body: "title=Go", headers: FORM });
    expect(res.status, show(res)).toBe(415);
  });

  test("GET / sends a newcomer to the dashboard", async () => {
    t = await createTestApp();
    for (const method of ["GET", "HEAD"]) {
      const res = await t.request(method, "/");
      expect(res.status, `${method} ${show(res)}`).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard");
    }
  });

  test("/favicon.ico is a real icon, served without a session", async () => {
    t = await createTestApp();
    const res = await t.app.handle(new Request("http://localhost/favicon.ico"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    expect(res.headers.get("cache-control")).toContain("max-age=");
    const bytes = new Uint8Array(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), at least one image.
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes[4]).toBeGreaterThanOrEqual(1);
    expect(bytes.length).toBeGreaterThan(100);
  });

  test("the dashboard is not in the OpenAPI document", async () => {
    t = await createTestApp();
    const res = await get("/docs/json");
    expect(Object.keys(res.body.paths).filter((p) => p.startsWith("/dashboard"))).toEqual([]);
  });
});

describe("dashboard pages", () => {
  test("pages redirect to sign-in when signed out, or with an unknown cookie", async () => {
    t = await createTestApp();
    for (const path of ["/dashboard", "/dashboard/keys"]) {
      for (const token of [undefined, "bogus"]) {
        const res = await get(path, token);
        expect(res.status, show(res)).toBe(303);
        expect(res.headers.get("location")).toBe("/dashboard/sign-in");
      }
    }
    const res = await post("/dashboard/keys", undefined, { label: "x", csrf: "x" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("the overview shows the account's name, credits available and held, keys and feeds", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account({ name: "Acme Ltd", credits: 42 });
    const other = await t.account({ name: "Other Co", credits: 7 });
    const created = await t.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "Go", minScore: 5 } });
    expect(created.status, show(created)).toBe(201);
    const { token } = await signIn(apiKey);
    const res = await get("/dashboard/overview", token);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text).toContain("Acme Ltd");
    expect(res.text).toMatch(/<strong>42<\/strong> credits available/);
    expect(res.text).toMatch(/<strong>0<\/strong> credits held/);
    expect(res.text).toMatch(/<strong>1<\/strong> active API keys/);
    expect(res.text).toMatch(/<strong>1<\/strong> feeds/);
    expect(res.text).not.toContain("Other Co");
    expect(res.text).not.toContain(other.accountId);
  });

  test("creating a key shows it once (200); the list afterwards shows only its prefix", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    const { token, csrf } = await signIn(apiKey);
    const res = await post("/dashboard/keys", token, { label: "production", csrf });
    expect(res.status, show(res)).toBe(200);
    const shown = /<code class="secret" id="new-secret">(jp_live_[0-9A-Za-z]+)<\/code>/.exec(res.text)?.[1];
    expect(shown).toBeDefined();
    expect((await accounts.authenticate(t.deps, shown))?.accountId).toBe(accountId);
    const list = await get("/dashboard/keys", token);
    expect(list.status).toBe(200);
    expect(list.text).toContain("production");
    expect(list.text).not.toContain(shown!);
    expect(list.text).not.toContain(apiKey);
    expect(list.text).toContain(`<code>${shown!.slice(0, 12)}`);
    expect(await accounts.listKeys(t.deps, accountId)).toHaveLength(2);
  });

  test("a label over 200 characters gets a 400 page and no key", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    const { token, csrf } = await signIn(apiKey);
    const res = await post("/dashboard/keys", token, { label: "x".repeat(201), csrf });
    expect(res.status, show(res)).toBe(400);
    expect(res.text).toContain('<p class="field-error error-text" id="labelError">Label must be at most 200 characters</p>');
    expect(res.text).toContain('aria-invalid="true" aria-describedby="labelError labelHelp"');
    expect(await accounts.listKeys(t.deps, accountId)).toHaveLength(1);
  });

  test("revoking an own key works; another account's key is a 404 and stays live", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    const other = await t.account({ name: "Other" });
    const spare = await accounts.createKey(t.deps, accountId, "spare");
    const { token, csrf } = await signIn(apiKey);

    const mine = await post(`/dashboard/keys/${spare.key.id}/revoke`, token, { csrf });
    expect(mine.status, show(mine)).toBe(303);
    expect(mine.headers.get("location")).toBe("/dashboard/keys");
    expect(await accounts.authenticate(t.deps, spare.apiKey)).toBeNull();

    const theirs = await post(`/dashboard/keys/${other.keyId}/revoke`, token, { csrf });
    expect(theirs.status, show(theirs)).toBe(404);
    expect(theirs.headers.get("content-type")).toStartWith("text/html");
    expect((await accounts.authenticate(t.deps, other.apiKey))?.accountId).toBe(other.accountId);
    const missing = await post(`/dashboard/keys/nope/revoke`, token, { csrf });
    expect(missing.status).toBe(404);
  });

  test("revoking asks first: the keys page only links to a confirmation that names the key, above all the session's own and the companion's", async () => {
    t = await createTestApp();
    const { apiKey, accountId, keyId } = await t.account();
    const spare = await accounts.createKey(t.deps, accountId, "spare");
    const companion = await accounts.createKey(t.deps, accountId, COMPANION_KEY_LABEL);
    const { token } = await signIn(apiKey);

    const list = await get("/dashboard/keys", token);
    // No row revokes by itself: each Revoke button opens the confirmation (a GET), with no CSRF token to post.
    expect(list.text).toContain(
      `<form method="get" action="/dashboard/keys/${spare.key.id}/revoke"><button type="submit" class="danger" aria-label="Revoke key spare">Revoke</button></form>`,
    );
    expect(list.text).not.toMatch(/<form method="post" action="\/dashboard\/keys\/[^"]+\/revoke"/);
    expect(list.text).toContain('default <span class="badge">signed in with</span>');
    expect(list.text).toContain(`${COMPANION_KEY_LABEL} <span class="badge">browser companion</span>`);

    const own = await get(`/dashboard/keys/${keyId}/revoke`, token);
    expect(own.status, show(own)).toBe(200);
    expect(own.text).toContain("This is the key you are signed in with.</strong> Revoking it signs you out");
    expect(own.text).toContain(`<form method="post" action="/dashboard/keys/${keyId}/revoke">`);
    expect(own.text).toContain('<button type="submit" class="danger">Revoke key default</button>');
    const paired = await get(`/dashboard/keys/${companion.key.id}/revoke`, token);
    expect(paired.text).toContain("This is the browser companion's key.</strong> Revoking it unpairs the companion");
    const plain = await get(`/dashboard/keys/${spare.key.id}/revoke`, token);
    expect(plain.text).toContain("Every program using this key is refused");
    expect(plain.text).not.toContain("signed in with");
    // Looking is not revoking.
    expect((await accounts.listKeys(t.deps, accountId)).every((k) => k.revokedAtTs === null)).toBe(true);

    const other = await t.account({ name: "Other" });
    expect((await get(`/dashboard/keys/${other.keyId}/revoke`, token)).status).toBe(404);
    await accounts.revokeKey(t.deps, spare.key.id);
    expect((await get(`/dashboard/keys/${spare.key.id}/revoke`, token)).status).toBe(404);
    expect((await get(`/dashboard/keys/${spare.key.id}/revoke`)).status).toBe(303);
  });

  test("a POST without the right CSRF token gets 403 and changes nothing", async () => {
    t = await createTestApp();
    const { apiKey, accountId } = await t.account();
    const spare = await accounts.createKey(t.deps, accountId, "spare");
    const { token, csrf } = await signIn(apiKey);
    const other = await signIn(apiKey); // another session's token is not this one's
    for (const fields of [{} as Record<string, string>, { csrf: "" }, { csrf: "wrong" }, { csrf: other.csrf }, { csrf: csrf + "x" }]) {
      const create = await post("/dashboard/keys", token, { label: "sneaky", ...fields });
      expect(create.status, show(create)).toBe(403);
      const revoke = await post(`/dashboard/keys/${spare.key.id}/revoke`, token, fields);
      expect(revoke.status).toBe(403);
      const out = await post("/dashboard/sign-out", token, fields);
      expect(out.status).toBe(403);
    }
    expect((await accounts.listKeys(t.deps, accountId)).map((k) => [k.label, k.revokedAtTs])).toEqual([
      ["default", null],
      ["spare", null],
    ]);
    expect((await get("/dashboard", token)).status).toBe(200);
  });

  test("a label or account name with markup is escaped", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account({ name: `<script>alert("name")</script>` });
    const { token, csrf } = await signIn(apiKey);
    const created = await post("/dashboard/keys", token, { label: `<script>alert('label')</script>`, csrf });
    expect(created.status).toBe(200);
    const overview = await get("/dashboard/overview", token);
    const keys = await get("/dashboard/keys", token);
    for (const page of [overview.text, keys.text, created.text]) expect(foreignScripts(page)).toEqual([]);
    expect(overview.text).toContain("&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;");
    expect(keys.text).toContain("&lt;script&gt;alert(&#39;label&#39;)&lt;/script&gt;");
  });

  test("html`` escapes interpolations but not nested html or raw()", () => {
    expect(html`<p>${"<b>&\"'"}</p>`.value).toBe("<p>&lt;b&gt;&amp;&quot;&#39;</p>");
    expect(html`<ul>${["<a>", html`<li>ok</li>`, raw("<hr>"), null, undefined, false]}</ul>`.value).toBe("<ul>&lt;a&gt;<li>ok</li><hr></ul>");
    expect(html`${0}`.value).toBe("0");
  });
});

describe("dashboard sessions", () => {
  test("a session idle past the limit is gone; activity keeps it alive up to the absolute limit", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const { token } = await signIn(apiKey);
    t.clock.advance(SESSION_IDLE_MS - 1000);
    expect((await get("/dashboard", token)).status).toBe(200);
    t.clock.advance(SESSION_IDLE_MS - 1000);
    expect((await get("/dashboard", token)).status).toBe(200); // idle time counts from the last request
    t.clock.advance(SESSION_IDLE_MS);
    const res = await get("/dashboard", token);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(await sessionRows()).toHaveLength(0);

    const again = await signIn(apiKey);
    const step = SESSION_IDLE_MS / 2;
    let elapsed = 0;
    for (; elapsed + step < SESSION_ABSOLUTE_MS; elapsed += step) {
      t.clock.advance(step);
      expect((await get("/dashboard", again.token)).status).toBe(200);
    }
    t.clock.advance(SESSION_ABSOLUTE_MS - elapsed); // never idle, but 30 days old
    expect((await get("/dashboard", again.token)).status).toBe(303);
  });

  test("revoking the key a session signed in with ends the session", async () => {
    t = await createTestApp();
    const { apiKey, keyId } = await t.account();
    const { token } = await signIn(apiKey);
    await accounts.revokeKey(t.deps, keyId);
    const res = await get("/dashboard", token);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
  });

  test("revoking the session's own key from the keys page signs it out", async () => {
    t = await createTestApp();
    const { apiKey, keyId } = await t.account();
    const { token, csrf } = await signIn(apiKey);
    expect((await post(`/dashboard/keys/${keyId}/revoke`, token, { csrf })).status).toBe(303);
    expect((await get("/dashboard/keys", token)).status).toBe(303);
  });

  test("sign-out deletes the session and clears the cookie", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const { token, csrf } = await signIn(apiKey);
    const res = await post("/dashboard/sign-out", token, { csrf });
    expect(res.status, show(res)).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in");
    expect(res.headers.get("set-cookie")).toMatch(/^jp_session=; .*Max-Age=0/);
    expect(await sessionRows()).toHaveLength(0);
    expect((await get("/dashboard", token)).status).toBe(303);
  });

  test("a one-time link signs in once; a second use or an expired link fails", async () => {
    t = await createTestApp();
    const { accountId } = await t.account({ name: "Linked", credits: 3 });
    const { token: link } = await createSignInLink(t.deps, accountId);
    expect(JSON.stringify(await rawMany(t.deps.db, "test.links", "SELECT * FROM dashboard_sign_in_links", []))).not.toContain(link);
    // Opening the link (or a link preview fetching it) only shows the button; nothing is used up.
    const opened = await get(`/dashboard/link/${link}`);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain(`action="/dashboard/link/${link}"`);
    expect(opened.headers.get("set-cookie") ?? "").not.toContain("jp_session=");
    expect((await get(`/dashboard/link/${link}`)).status).toBe(200);
    const { headers, csrf } = await openSignInForm(t, `/dashboard/link/${link}`);
    const first = await t.request("POST", `/dashboard/link/${link}`, { body: form({ csrf }), headers });
    expect(first.status, show(first)).toBe(303);
    expect(first.headers.get("location")).toBe("/dashboard");
    const session = sessionCookie(first);
    const overview = await get("/dashboard/overview", session);
    expect(overview.text).toContain("Linked");
    expect((await sessionRows())[0]!.key_id).toBeNull();

    const second = await t.request("POST", `/dashboard/link/${link}`, { body: form({ csrf }), headers });
    expect(second.status).toBe(404);
    expect(second.headers.get("set-cookie")).toBeNull();
    expect(second.text).toContain("used already, has expired");

    const { token: late } = await createSignInLink(t.deps, accountId);
    t.clock.advance(SIGN_IN_LINK_MS);
    expect((await t.request("POST", `/dashboard/link/${late}`, { body: form({ csrf }), headers })).status).toBe(404);
    expect((await t.request("POST", `/dashboard/link/nonsense`, { body: form({ csrf }), headers })).status).toBe(404);
  });

  test("a sign-in link POST from another site is refused with a 403 page, and the link is not used up", async () => {
    t = await createTestApp();
    const { accountId } = await t.account({ name: "Attacker's" });
    const { token: link } = await createSignInLink(t.deps, accountId);
    const { headers, csrf } = await openSignInForm(t, `/dashboard/link/${link}`);
    for (const [what, h, fields] of [
      ["a cross-site form", FORM, {}],
      ["a token but no cookie", FORM, { csrf }],
      ["a matching pair sent cross-site", { ...headers, "sec-fetch-site": "cross-site" }, { csrf }],
    ] as [string, Record<string, string>, Record<string, string>][]) {
      const res = await t.request("POST", `/dashboard/link/${link}`, { body: form(fields), headers: h });
      expect(res.status, `${what}: ${show(res)}`).toBe(403);
      expect(res.headers.get("set-cookie") ?? "", what).not.toContain("jp_session=");
      expect(res.text, what).toContain(`action="/dashboard/link/${link}"`);
    }
    expect(await sessionRows()).toHaveLength(0);
    const ok = await t.request("POST", `/dashboard/link/${link}`, { body: form({ csrf }), headers });
    expect(ok.status, show(ok)).toBe(303);
    expect(sessionCookie(ok)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
