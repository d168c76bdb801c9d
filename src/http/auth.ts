import { Elysia } from "elysia";
import { AppError } from "../errors";
import { sameSecret } from "../lib/same-secret";
import { getRequestState, type Caller } from "./context";
import type { RoutePolicy } from "./route-policy";

/** One message for missing, malformed, unknown and revoked keys, so they cannot be told apart. */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid API key (send it in the x-api-key header)";
const UNAUTHORIZED_BEARER_MESSAGE = "Missing or invalid API key (send it in the x-api-key header or as Authorization: Bearer <key>)";

export interface AuthOptions {
  /** The caller a presented API key belongs to, or null for a missing, unknown or revoked key. */
  authenticate: (presented: string | null) => Promise<Caller | null>;
  /** The same answer when it is known without waiting (a key seen a moment ago), else undefined. */
  authenticateNow?: (presented: string | null) => Caller | null | undefined;
  /** Throws the 403 when the caller's role lacks the permission the route needs (see `permissionOf`). */
  authorize?: (caller: Caller, permission: string) => void;
  /** JOBPILOT_ADMIN_TOKEN; without it /admin routes are not mounted and nothing is checked here. */
  adminToken?: string;
}

/** The token of an `Authorization: Bearer <token>` header, or "" when there is none. */
export function bearerToken(headers: Headers): string {
  const header = headers.get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice(7).trim() : "";
}

/** The API key a request presents: `x-api-key`, else (on routes whose policy allows it) a bearer token. */
export function presentedApiKey(headers: Headers, allowBearer: boolean): string | null {
  return headers.get("x-api-key") ?? (allowBearer ? bearerToken(headers) || null : null);
}

/**
 * Authenticates before routing and body parsing, so a caller without a valid
 * key learns nothing else (not even whether its body was valid or the path
 * exists): /api/* takes `x-api-key` (and so do routes whose policy says
 * `apiKey`, which also take it as a bearer token), /admin/* takes
 * `Authorization: Bearer $JOBPILOT_ADMIN_TOKEN`. Routes whose policy is
 * `public` are let through (see route-policy.ts).
 */
/** The permission a route needs: the one its policy declares, else `read` for GET and HEAD and `members` otherwise. */
export function permissionOf(method: string, policy: RoutePolicy | undefined): string {
  return policy?.permission ?? (method === "GET" || method === "HEAD" ? "read" : "members");
}

export function auth({ authenticate, authenticateNow, authorize, adminToken }: AuthOptions) {
  return new Elysia({ name: "auth" }).onRequest(async ({ request }) => {
    const state = getRequestState(request);
    if (!state || state.policy?.public) return;
    const isBearerAllowed = state.policy?.apiKey === true;
    if (isBearerAllowed || state.path.startsWith("/api/")) {
      const presented = presentedApiKey(request.headers, isBearerAllowed);
      const known = authenticateNow?.(presented);
      const found = known !== undefined ? known : await authenticate(presented);
      if (!found) throw new AppError("unauthorized", isBearerAllowed ? UNAUTHORIZED_BEARER_MESSAGE : UNAUTHORIZED_MESSAGE);
      state.auth = found;
      // A path no route serves stays a 404 whatever the role.
      if (state.route !== undefined) authorize?.(found, permissionOf(request.method, state.policy));
    } else if (state.path.startsWith("/admin/") && adminToken) {
      const token = bearerToken(request.headers);
      if (!token || !sameSecret(token, adminToken)) {
        throw new AppError("unauthorized", "Missing or invalid admin token (send Authorization: Bearer <JOBPILOT_ADMIN_TOKEN>)");
      }
    }
  });
}
