import { isStorageFull } from "../db/client";
import type { Deps } from "../deps";
import { AppError, clientMessage, validationDetails } from "../errors";
import { BodyShapeError } from "./body-shape";
import { redactPath } from "../lib/redact";
import { getRequestState, pathOf } from "./context";

interface ErrorContext {
  code: unknown;
  error: unknown;
  request: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

export const STORAGE_FULL =
  "The server's disk is full, so nothing was saved. Free space on the server (or raise the database's quota); saving works again on its own.";

/** Lists the methods a path is served with, for 405 and its Allow header. */
export type AllowedMethods = (path: string) => string[];

/**
 * The one error handler: every failure becomes `{ error }` (plus the spec's
 * extra fields) with the right status. Server errors (5xx, bugs included)
 * answer their status in words, unless written for the client (see
 * userFacingServerError), and leave a log line carrying the request id; never
 * a stack trace or an internal message to the client.
 */
export function createErrorHandler(deps: Deps, allowedMethods: AllowedMethods) {
  return ({ code, error, request, set }: ErrorContext) => {
    const state = getRequestState(request);
    const path = state?.path ?? pathOf(request.url);
    const reply = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      set.status = status;
      for (const [k, v] of Object.entries(headers)) set.headers[k] = v;
      return body;
    };

    // Elysia wraps whatever the body parser throws in its ParseError; ours are AppErrors with the right status.
    const cause = (error as { cause?: unknown })?.cause;
    if (code === "PARSE" && cause instanceof AppError) error = cause;
    if (error instanceof AppError && error.status >= 500) {
      // A server error's message is for the log: it may name ids, paths or what an upstream answered.
      deps.log.error("server error", { reqId: state?.id, method: request.method, path: redactPath(path), status: error.status, code: error.code, err: error });
      return reply(error.status, { error: clientMessage(error) }, error.headers);
    }
    if (error instanceof AppError) {
      return reply(error.status, { error: error.message, ...error.extra }, error.headers);
    }
    const err = error as { type?: string; all?: unknown[]; message?: string; customError?: unknown };
    if ((code === "VALIDATION" && err.type !== "response") || error instanceof BodyShapeError) {
      const on = error instanceof BodyShapeError ? "body" : err.type === "property" ? "query" : (err.type ?? "body");
      // Schemas whose errors Elysia cannot attribute to a field (coerced query numbers) carry their own message.
      const details =
        error instanceof BodyShapeError
          ? error.details
          : on === "body" && state?.bodyKind !== undefined && state.bodyKind !== "object"
            ? ["Request body must be a JSON object"]
            : typeof err.customError === "string"
              ? [err.customError]
              : validationDetails((err.all ?? []) as Parameters<typeof validationDetails>[0], on);
      // Routes whose policy asks for it get the spec's feed shape exactly; elsewhere the message itself
      // names the failing fields, since those endpoints document only `{ error }`.
      const specShape = state?.policy?.validationErrors === "details";
      return reply(400, { error: specShape ? "Validation failed" : `Invalid ${on}: ${details.join("; ")}`, details });
    }
    if (code === "PARSE") return reply(400, { error: "Malformed JSON body" });
    if (code === "NOT_FOUND") {
      const allowed = allowedMethods(path);
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        return reply(405, { error: `Method ${request.method} is not allowed on ${path}; use ${allowed.join(", ")}` }, { allow: allowed.join(", ") });
      }
      return reply(404, { error: `No route for ${request.method} ${path}` });
    }
    if (isStorageFull(error)) {
      // Not a bug: the operator must free space. Nothing was written (the transaction rolled back), and writes
      // resume on their own once there is room; /readyz says not ready meanwhile.
      deps.storage.reportFull(deps.clock.now());
      deps.log.error("the database's storage is full: a write was refused", { reqId: state?.id, method: request.method, path: redactPath(path) });
      return reply(507, { error: STORAGE_FULL }, { "retry-after": "60" });
    }
    deps.log.error("unhandled error", {
      reqId: state?.id,
      method: request.method,
      path: redactPath(path),
      code: String(code),
      err: error instanceof Error ? error : new Error(String(err?.message ?? error)),
    });
    return reply(500, { error: "Internal server error" });
  };
}

/** Builds AllowedMethods from the app's route list (patterns with :params and *). */
export function allowedMethodsFrom(routes: () => { method: string; path: string }[]): AllowedMethods {
  let compiled: { method: string; re: RegExp }[] | null = null;
  return (path) => {
    compiled ??= routes().map((r) => ({
      method: r.method,
      re: new RegExp(
        "^" +
          r.path
            .split("/")
            .map((seg) => (seg === "*" ? ".*" : seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
            .join("/") +
          "$",
      ),
    }));
    return [...new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))];
  };
}
