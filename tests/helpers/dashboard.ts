import { expect } from "bun:test";
import { show, type TestApp, type TestResponse } from "./app";

/** A browser's view of the dashboard in tests: forms posted urlencoded, the session cookie carried by hand. */
export const FORM = { "content-type": "application/x-www-form-urlencoded" };

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function sessionCookie(res: TestResponse): string {
  const header = res.headers.get("set-cookie") ?? "";
  const match = /^jp_session=([^;]*)/.exec(header);
  if (!match) throw new Error(`no jp_session cookie in ${show(res)} (${header})`);
  return match[1]!;
}

function csrfOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error(`no csrf field in ${page}`);
  return match[1]!;
}

/**
 * Opens a sign-in form (the sign-in page or a link's confirm page) as a browser
 * would, and returns the headers its POST carries: the pre-session cookie, plus
 * the form's hidden token to put in the body.
 */
export async function openSignInForm(app: TestApp, path = "/dashboard/sign-in"): Promise<{ headers: Record<string, string>; csrf: string }> {
  const res = await app.request("GET", path);
  expect(res.status, show(res)).toBe(200);
  const cookie = /^jp_signin=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`no jp_signin cookie from GET ${path}: ${res.headers.get("set-cookie")}`);
  return { headers: { ...FORM, cookie: `jp_signin=${cookie}` }, csrf: csrfOf(res.text) };
}

/** Requests against whichever app `app()` returns now (test files re-create theirs per test). */
export function browser(app: () => TestApp) {
  const get = (path: string, token?: string) => app().request("GET", path, { headers: token ? { cookie: `jp_session=${token}` } : {} });
  const post = (path: string, token: string | undefined, fields: Record<string, string>) =>
    app().request("POST", path, { body: form(fields), headers: { ...FORM, ...(token ? { cookie: `jp_session=${token}` } : {}) } });
  /** Signs in with the API key; returns the cookie token and the session's CSRF token. */
  const signIn = async (apiKey: string) => {
    const { headers, csrf } = await openSignInForm(app());
    const res = await app().request("POST", "/dashboard/sign-in", { body: form({ apiKey, csrf }), headers });
    expect(res.status, show(res)).toBe(303);
    const token = sessionCookie(res);
    const overview = await get("/dashboard", token);
    expect(overview.status, show(overview)).toBe(200);
    return { token, csrf: csrfOf(overview.text) };
  };
  return { get, post, signIn };
}

const OWN_SCRIPTS = new Set([
  '<script src="/dashboard/htmx.js" defer>',
  '<script src="/dashboard/app.js" defer>',
  '<script src="/dashboard/channels/time-zone.js" defer>',
]);

/** Every `<script` in a page except the dashboard's own (htmx, app.js, the channel form's): must be empty, whatever a user's data contains. */
export function foreignScripts(page: string): string[] {
  return (page.match(/<script[^>]*>/gi) ?? []).filter((tag) => !OWN_SCRIPTS.has(tag));
}
