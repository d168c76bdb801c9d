import { Elysia } from "elysia";
import { AppError } from "../errors";
import { sameSecret } from "../lib/same-secret";
import { getRequestState, type Caller } from "./context";

/** One message for missing, malformed, unknown and revoked keys, so they cannot be told apart. */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid API key (send it in the x-api-key header)";

export interface AuthOptions {
  /** The caller a presented API key belongs to, or null for a missing, unknown or revoked key. */
  authenticate: (presented: string | null) => Promise<Caller | null>;
  /** JOBPILOT_ADMIN_TOKEN; without it /admin routes are not mounted and nothing is checked here. */
  adminToken?: string;
}

/**
 * Authenticates before routing and body parsing, so a caller without a valid
 * key learns nothing else (not even whether its body was valid or the path
 * exists): /api/* takes `x-api-key`, /admin/* takes
 * `Authorization: Bearer $JOBPILOT_ADMIN_TOKEN`. Routes whose policy is
 * `public` are let through (see route-policy.ts).
 */
export function auth({ authenticate, adminToken }: AuthOptions) {
  return new Elysia({ name: "auth" }).onRequest(async ({ request }) => {
    const state = getRequestState(request);
    if (!state || state.policy?.public) return;
    if (state.path.startsWith("/api/")) {
      const found = await authenticate(request.headers.get("x-api-key"));
      if (!found) throw new AppError("unauthorized", UNAUTHORIZED_MESSAGE);
      state.auth = found;
    } else if (state.path.startsWith("/admin/") && adminToken) {
      const header = request.headers.get("authorization") ?? "";
      const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
      if (!token || !sameSecret(token, adminToken)) {
        throw new AppError("unauthorized", "Missing or invalid admin token (send Authorization: Bearer <JOBPILOT_ADMIN_TOKEN>)");
      }
    }
  });
}
