import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { authenticate, type AuthContext } from "../modules/accounts/service";
import { CAPTURE_PATH } from "../modules/capture/model";
import { OAUTH_CALLBACK_PATH } from "../modules/intake/callback";
import { sameSecret } from "../lib/same-secret";
import { getRequestState } from "./context";

/** One message for missing, malformed, unknown and revoked keys, so they cannot be told apart. */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid API key (send it in the x-api-key header)";

/**
 * Authenticates before routing and body parsing, so a caller without a valid
 * key learns nothing else (not even whether its body was valid): /api/* takes
 * `x-api-key`, /admin/* takes `Authorization: Bearer $JOBPILOT_ADMIN_TOKEN`
 * (and does not exist when no token is configured).
 */
export function auth(deps: Deps) {
  return new Elysia({ name: "auth" }).onRequest(({ request, set }) => {
    const state = getRequestState(request);
    if (!state) return;
    if (state.path === CAPTURE_PATH) {
      // The bookmarklet calls this route from the job site's origin: the CORS preflight carries no key,
      // and a 401 or 429 must carry the CORS header for the page to read it.
      if (request.method === "OPTIONS") return;
      set.headers["access-control-allow-origin"] = "*";
    }
    if (state.path.startsWith("/api/")) {
      const found = authenticate(deps, request.headers.get("x-api-key"));
      if (!found) throw new AppError("unauthorized", UNAUTHORIZED_MESSAGE);
      state.auth = found;
      deps.keyUsage.touch(found.keyId, deps.clock.now());
    } else if (state.path.startsWith("/admin/") && deps.config.adminToken && state.path !== OAUTH_CALLBACK_PATH) {
      const header = request.headers.get("authorization") ?? "";
      const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
      if (!token || !sameSecret(token, deps.config.adminToken)) {
        throw new AppError("unauthorized", "Missing or invalid admin token (send Authorization: Bearer <JOBPILOT_ADMIN_TOKEN>)");
      }
    }
  });
}

/** Gives handlers `auth`, the caller resolved by the auth plugin. Use it in every /api module. */
export const authContext = new Elysia({ name: "auth-context" }).derive({ as: "scoped" }, ({ request }): { auth: AuthContext } => {
  const found = getRequestState(request)?.auth;
  // Unreachable for /api routes (the auth plugin refused the request); a guard against mounting a module elsewhere.
  if (!found) throw new AppError("unauthorized", UNAUTHORIZED_MESSAGE);
  return { auth: found };
});
