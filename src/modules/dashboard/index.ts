import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import type { Html } from "./html";
import { DASHBOARD_PATH, SESSION_ABSOLUTE_MS, SESSION_COOKIE, type DashboardSession } from "./model";
import * as dashboard from "./service";
import { STYLESHEET } from "./style";
import * as views from "./views";

/** Mutable response state as Elysia hands it to handlers (only the parts used here). */
interface Set {
  status?: number | string;
  headers: Record<string, string | number>;
}

// Pages are personal and hold a CSRF token: never cached, never framed, no scripts at all,
// and no Referer (a sign-in link's token is in its URL).
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

// The dashboard is for people, not the API: keep it out of the OpenAPI document.
const HIDDEN = { detail: { hide: true } };

function page(set: Set, body: Html, status = 200): string {
  set.status = status;
  Object.assign(set.headers, PAGE_HEADERS);
  return body.value;
}

function redirect(set: Set, location: string): string {
  set.status = 303;
  set.headers.location = location;
  set.headers["cache-control"] = "no-store";
  return "";
}

function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Secure only over https, or the cookie would never come back on a plain-http localhost install. */
function isHttps(request: Request): boolean {
  return request.url.startsWith("https:") || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

function setSessionCookie(set: Set, request: Request, token: string): void {
  const secure = isHttps(request) ? "; Secure" : "";
  set.headers["set-cookie"] = `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=${DASHBOARD_PATH}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}${secure}`;
}

function clearSessionCookie(set: Set, request: Request): void {
  const secure = isHttps(request) ? "; Secure" : "";
  set.headers["set-cookie"] = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=${DASHBOARD_PATH}; Max-Age=0${secure}`;
}

/** Form fields arrive as strings (json-body parses urlencoded bodies for /dashboard); anything else is absent. */
function field(body: unknown, name: string): string | undefined {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * The server-rendered dashboard. It lives outside /api and /admin, so the
 * API-key auth and the rate limiter never see it; it signs people in with a
 * session cookie instead. Forms are plain HTML (no JavaScript), so request
 * bodies are read field by field instead of through a TypeBox schema: a bad
 * form should give a page, not the API's JSON 400.
 */
export function dashboardRoutes(deps: Deps) {
  /** The signed-in session, or null after pointing the browser at the sign-in page (and dropping a dead cookie). */
  function signedIn(request: Request, set: Set): DashboardSession | null {
    const token = readCookie(request, SESSION_COOKIE);
    const session = dashboard.resolveSession(deps, token);
    if (!session) {
      if (token) clearSessionCookie(set, request);
      redirect(set, `${DASHBOARD_PATH}/sign-in`);
    }
    return session;
  }

  /** Every state-changing form carries the session's CSRF token; SameSite=Strict is the second line. */
  function csrfRefused(session: DashboardSession, body: unknown, set: Set): string | null {
    if (dashboard.isCsrfValid(session, field(body, "csrf"))) return null;
    return page(set, views.errorPage("Forbidden", "This form has expired or did not come from the dashboard. Go back, reload the page and try again.", session), 403);
  }

  return new Elysia({ name: "dashboard" })
    .get(`${DASHBOARD_PATH}/style.css`, ({ set }) => {
      set.headers["content-type"] = "text/css; charset=utf-8";
      set.headers["cache-control"] = "public, max-age=3600";
      return STYLESHEET;
    }, HIDDEN)
    .get(`${DASHBOARD_PATH}/sign-in`, ({ request, set }) => {
      if (dashboard.resolveSession(deps, readCookie(request, SESSION_COOKIE))) return redirect(set, DASHBOARD_PATH);
      return page(set, views.signInPage());
    }, HIDDEN)
    .post(`${DASHBOARD_PATH}/sign-in`, ({ request, set, body }) => {
      const signed = dashboard.signInWithKey(deps, field(body, "apiKey"));
      if (!signed) return page(set, views.signInPage("That API key is not valid: it is unknown, revoked or mistyped."), 401);
      if (signed.session.keyId) deps.keyUsage.touch(signed.session.keyId, deps.clock.now());
      setSessionCookie(set, request, signed.token);
      return redirect(set, DASHBOARD_PATH);
    }, HIDDEN)
    // Opening a link only shows a button; the POST uses it up. So a mail or chat tool that fetches links for a
    // preview cannot burn it, and the 303 after a same-origin POST carries the SameSite=Strict cookie, which a
    // redirect at the end of a click from another site would not.
    .get(`${DASHBOARD_PATH}/link/:token`, ({ set, params }) => page(set, views.linkConfirmPage(params.token)), HIDDEN)
    .post(`${DASHBOARD_PATH}/link/:token`, ({ request, set, params }) => {
      const signed = dashboard.signInWithLink(deps, params.token);
      if (!signed) {
        return page(set, views.errorPage("Sign-in link not valid", "This sign-in link has been used already, has expired or is wrong. Run `jobpilot dashboard link` for a new one, or sign in with an API key."), 404);
      }
      setSessionCookie(set, request, signed.token);
      return redirect(set, DASHBOARD_PATH);
    }, HIDDEN)
    .post(`${DASHBOARD_PATH}/sign-out`, ({ request, set, body }) => {
      const session = signedIn(request, set);
      if (!session) return "";
      const refused = csrfRefused(session, body, set);
      if (refused !== null) return refused;
      dashboard.signOut(deps, session);
      clearSessionCookie(set, request);
      return redirect(set, `${DASHBOARD_PATH}/sign-in`);
    }, HIDDEN)
    .get(DASHBOARD_PATH, ({ request, set }) => {
      const session = signedIn(request, set);
      if (!session) return "";
      return page(set, views.overviewPage(session, dashboard.overview(deps, session)));
    }, HIDDEN)
    .get(`${DASHBOARD_PATH}/keys`, ({ request, set }) => {
      const session = signedIn(request, set);
      if (!session) return "";
      return page(set, views.keysPage(session, dashboard.listKeys(deps, session)));
    }, HIDDEN)
    .post(`${DASHBOARD_PATH}/keys`, ({ request, set, body }) => {
      const session = signedIn(request, set);
      if (!session) return "";
      const refused = csrfRefused(session, body, set);
      if (refused !== null) return refused;
      try {
        const created = dashboard.createKey(deps, session, field(body, "label"));
        // 200, not a redirect: the new key is shown on this response only and never again.
        return page(set, views.keysPage(session, dashboard.listKeys(deps, session), { created }));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== "bad_request") throw err;
        return page(set, views.keysPage(session, dashboard.listKeys(deps, session), { message: err.message }), 400);
      }
    }, HIDDEN)
    .post(`${DASHBOARD_PATH}/keys/:keyId/revoke`, ({ request, set, body, params }) => {
      const session = signedIn(request, set);
      if (!session) return "";
      const refused = csrfRefused(session, body, set);
      if (refused !== null) return refused;
      if (!dashboard.revokeOwnKey(deps, session, params.keyId)) {
        return page(set, views.errorPage("Key not found", "This account has no API key with that id.", session), 404);
      }
      return redirect(set, `${DASHBOARD_PATH}/keys`);
    }, HIDDEN);
}
