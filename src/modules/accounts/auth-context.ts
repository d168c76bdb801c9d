import { Elysia } from "elysia";
import { AppError } from "../../errors";
import { UNAUTHORIZED_MESSAGE } from "../../http/auth";
import { getRequestState } from "../../http/context";
import type { AuthContext } from "./service";

/**
 * Gives handlers `auth`, the caller the auth plugin resolved. Use it in every /api module.
 * The cast holds because app.ts hands the auth plugin this module's `authenticate`.
 */
export const authContext = new Elysia({ name: "auth-context" }).derive({ as: "scoped" }, ({ request }): { auth: AuthContext } => {
  const found = getRequestState(request)?.auth as AuthContext | undefined;
  // Unreachable for /api routes (the auth plugin refused the request); a guard against mounting a module elsewhere.
  if (!found) throw new AppError("unauthorized", UNAUTHORIZED_MESSAGE);
  return { auth: found };
});
