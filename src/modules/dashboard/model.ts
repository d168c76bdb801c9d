import type { MemberRole } from "../../db/enums";

/** Dashboard sessions end after this long without a request… */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** …and this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a `jobpilot dashboard link` URL can be used (once). */
export const SIGN_IN_LINK_MS = 15 * 60 * 1000;
/** lastSeenAtTs is written at most this often, so browsing is not a write per page. */
export const SESSION_TOUCH_MS = 60 * 1000;

export const SESSION_COOKIE = "jp_session";
/** The pre-session token a sign-in form is checked against (login CSRF); it opens nothing by itself. */
export const SIGN_IN_COOKIE = "jp_signin";
export const DASHBOARD_PATH = "/dashboard";

/** The signed-in browser, as handlers see it (never the token itself). */
export interface DashboardSession {
  id: string;
  accountId: string;
  keyId: string | null;
  csrfToken: string;
  /** The member signed in (or behind the key signed in with); null: a key or link of no member, acting as the owner. */
  memberId: string | null;
  memberName: string | null;
  /** The role every page and form acts with: the member's current one (a key's never above its member's). */
  role: MemberRole;
  biddersMaySend: boolean;
}
