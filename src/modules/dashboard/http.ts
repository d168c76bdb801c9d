import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Deps } from "../../deps";
import { AppError, validationDetails } from "../../errors";
import { permissionOf } from "../../http/auth";
import { getRequestState } from "../../http/context";
import type { RoutePolicy } from "../../http/route-policy";
import { authorizeCaller } from "../members/caller";
import { MAX_OFFSET } from "../../http/schemas";
import { isForeignSignIn as isForeignSignInForm, isHttps, readCookie, signInFormToken } from "../../http/form-guard";
import { listHeld } from "../applications/repo";
import type { Permission } from "../members/permissions";
import type { Html } from "./html";
import { DASHBOARD_PATH, SESSION_ABSOLUTE_MS, SESSION_COOKIE, SIGN_IN_COOKIE, type DashboardSession } from "./model";
import * as dashboard from "./service";
import * as views from "./views";

export { readCookie };

/**
 * What every dashboard page handler shares: page and redirect responses with
 * the dashboard's headers, the session cookie, form fields, and the guard
 * that sends signed-out browsers to the sign-in page and refuses forms
 * without the session's CSRF token.
 */

/** Mutable response state as Elysia hands it to handlers (only the parts used here). */
export interface ResponseState {
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
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/**
 * Options of every dashboard route. The dashboard is for people, not the API: keep it out of the
 * OpenAPI document; and its HTML forms post urlencoded bodies (see route-policy.ts).
 */
export const HIDDEN = { detail: { hide: true }, policy: { formBody: true } satisfies RoutePolicy };

/** HIDDEN for a page or form that needs a permission beyond `read` (GET) or `members` (POST): see http/auth.ts permissionOf. */
export const needs = (permission: Permission) => ({ detail: { hide: true }, policy: { formBody: true, permission } satisfies RoutePolicy });

export function page(set: ResponseState, body: Html, status = 200): string {
  set.status = status;
  Object.assign(set.headers, PAGE_HEADERS);
  return body.value;
}

export function redirect(set: ResponseState, location: string): string {
  set.status = 303;
  set.headers.location = location;
  set.headers["cache-control"] = "no-store";
  return "";
}

export function setSessionCookie(set: ResponseState, request: Request, token: string): void {
  const secure = isHttps(request) ? "; Secure" : "";
  set.headers["set-cookie"] = `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=${DASHBOARD_PATH}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}${secure}`;
}

export function clearSessionCookie(set: ResponseState, request: Request): void {
  const secure = isHttps(request) ? "; Secure" : "";
  set.headers["set-cookie"] = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=${DASHBOARD_PATH}; Max-Age=0${secure}`;
}

/**
 * The pre-session token for a sign-in form (the key form or a link's button), and the login-CSRF check of its
 * POST (http/form-guard.ts).
 */
export const signInToken = (request: Request, set: ResponseState): string => signInFormToken(request, set, SIGN_IN_COOKIE, DASHBOARD_PATH);

export const isForeignSignIn = (request: Request, body: unknown): boolean => isForeignSignInForm(request, field(body, "csrf"), SIGN_IN_COOKIE);

export const FOREIGN_SIGN_IN = "This sign-in form did not come from this dashboard, or it has expired. Nothing was changed; sign in again below.";

/** Form fields arrive as strings (json-body parses urlencoded bodies for routes with HIDDEN); anything else is absent. */
/**
 * `?offset=` of a dashboard list: a whole number from 0 to the API's MAX_OFFSET,
 * 0 when absent, undefined for anything else (→ badOffsetPage, never a 5xx).
 */
export function parseOffset(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return 0;
  if (!/^\d{1,7}$/.test(raw)) return undefined;
  const offset = Number(raw);
  return offset <= MAX_OFFSET ? offset : undefined;
}

export function badOffsetPage(set: ResponseState, session: DashboardSession): string {
  return page(set, views.errorPage("Bad page", `offset must be a whole number from 0 to ${MAX_OFFSET}.`, session), 400);
}

export function field(body: unknown, name: string): string | undefined {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

export function dashboardGuard(deps: Deps) {
  /**
   * The signed-in session allowed the route's permission; else the response to send instead: a redirect to the
   * sign-in page (dropping a dead cookie), or the 403 page naming the permission the role lacks.
   */
  async function signedIn(request: Request, set: ResponseState): Promise<views.NavSession | string> {
    const token = readCookie(request, SESSION_COOKIE);
    const session = await dashboard.resolveSession(deps, token);
    if (!session) {
      if (token) clearSessionCookie(set, request);
      return redirect(set, `${DASHBOARD_PATH}/sign-in`);
    }
    // The route's permission, checked by the same one function as the API's (a 403 page naming it).
    try {
      authorizeCaller(session, permissionOf(request.method, getRequestState(request)?.policy));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return page(set, views.errorPage("Not allowed", err.message, session), 403);
    }
    // Every page's nav shows how many applications wait for review ("Review 3").
    return { ...session, heldCount: (await listHeld(deps.db, session.accountId, 0, 0)).total };
  }

  /** Every state-changing form carries the session's CSRF token; SameSite=Strict is the second line. */
  function csrfRefused(session: DashboardSession, body: unknown, set: ResponseState): string | null {
    if (dashboard.isCsrfValid(session, field(body, "csrf"))) return null;
    return page(
      set,
      views.errorPage("Forbidden", "This form has expired or did not come from the dashboard. Go back, reload the page and try again.", session),
      403,
    );
  }

  /** The session for a page, and for a POST its CSRF check too; a string is the response to send instead. */
  async function open(request: Request, set: ResponseState, body?: unknown): Promise<DashboardSession | string> {
    const session = await signedIn(request, set);
    if (typeof session === "string") return session;
    if (request.method === "POST") {
      const refused = csrfRefused(session, body, set);
      if (refused !== null) return refused;
    }
    return session;
  }

  return { signedIn, csrfRefused, open };
}

/**
 * A service's 4xx AppError as a page with that status (not_found → 404, the
 * message shaped by `notFound`); anything else is not the user's doing and is
 * rethrown to the one error handler.
 */
export function errorAsPage(
  err: unknown,
  set: ResponseState,
  session: DashboardSession,
  title: string,
  notFound: (message: string) => string = (m) => m,
): string {
  if (!(err instanceof AppError) || err.status < 400 || err.status >= 500) throw err;
  if (err.code === "not_found") return page(set, views.errorPage("Not found", notFound(err.message), session), 404);
  return page(set, views.errorPage(title, err.message, session), err.status);
}

/** A validation AppError's field-naming messages (its details), or its message alone. */
export function errorDetails(err: AppError): string[] {
  const d = err.extra.details;
  return Array.isArray(d) && d.length ? d.map(String) : [err.message];
}

/** A posted form as plain strings (csrf and anything not a string dropped), to re-show what the user typed. */
export function formValues(body: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (body && typeof body === "object") {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (k !== "csrf" && typeof v === "string") out[k] = v;
  }
  return out;
}

/** A number when the text is one; the text itself otherwise, so the API schema check names the field. */
export function numberOrText(text: string): number | string {
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : text;
}

/** True for a request htmx made from a page (progressive enhancement): answer with the fragment, not a redirect. */
export function isHtmx(request: Request): boolean {
  return request.headers.get("hx-request") === "true";
}

/** An HTML fragment for htmx to swap in, with the same headers as a page. */
export function fragment(set: ResponseState, body: Html, status = 200): string {
  return page(set, body, status);
}

/**
 * The API's schema check of a body a form was turned into, as field-named messages (empty when it passes):
 * the API route (not the service) enforces its schema, so the dashboard checks it before calling the service.
 */
export function schemaErrors(schema: TSchema, body: unknown): string[] {
  if (Value.Check(schema, body)) return [];
  return validationDetails([...Value.Errors(schema, body)], "body");
}
