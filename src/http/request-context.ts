import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { requestId } from "../lib/ids";
import { redactPath } from "../lib/redact";
import { UNMATCHED_ROUTE } from "../metrics";
import { getRequestState, pathOf, setRequestState } from "./context";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Longest path + query string accepted. Bun itself answers an empty 431 to a
 * request head (request line + headers) over 16 KiB, before the app sees it;
 * this limit sits well below, so a long URL gets our JSON 414 instead.
 */
const MAX_URL_BYTES = 8192;
/**
 * Bun answers a request head (request line + headers) over its own limit with an empty 431 before any
 * of our code runs; its default, 16 KiB, would hide our JSON 414 from URLs of 16–64 KiB. The start
 * scripts (package.json) and the compiled binary (scripts/build.ts) raise it to this with
 * `--max-http-header-size`; a test keeps the three in step.
 */
export const MAX_REQUEST_HEAD_BYTES = 65_536;

/**
 * Gives every request an id (the caller's x-request-id when it is sane, else a
 * new one), echoes it on every response, refuses URLs over MAX_URL_BYTES and
 * bodies whose declared size is over the limit before reading them, and
 * writes one access-log line.
 */
export function requestContext(deps: Deps) {
  const plugin = new Elysia({ name: "request-context" }).onRequest(({ request, set }) => {
    const given = request.headers.get("x-request-id");
    const id = given && CLIENT_REQUEST_ID.test(given) ? given : requestId();
    setRequestState(request, { id, startedAt: performance.now(), path: pathOf(request.url) });
    set.headers["x-request-id"] = id;
    // request.url is absolute and percent-encoded (ASCII): everything from the path's slash is what the client sent.
    const target = request.url.length - request.url.indexOf("/", request.url.indexOf("//") + 2);
    if (target > MAX_URL_BYTES) throw new AppError("uri_too_long", `URL is longer than ${MAX_URL_BYTES} bytes`);
    const declared = request.headers.get("content-length");
    if (declared && Number(declared) > deps.config.maxBodyBytes) {
      throw new AppError("payload_too_large", `Request body is larger than ${deps.config.maxBodyBytes} bytes`);
    }
  });
  // Only hooked when access lines or request metrics are wanted: an after-response hook costs a scheduled
  // callback per request. The duration (log and histogram alike) runs from arrival to just after the
  // response is handed to the server.
  const isLogging = deps.log.isEnabled("info");
  const metrics = deps.metrics.isEnabled ? deps.metrics : null;
  if (!isLogging && !metrics) return plugin;
  return plugin.onAfterResponse({ as: "global" }, ({ request, set }) => {
    const state = getRequestState(request);
    const status = typeof set.status === "number" ? set.status : 200;
    const ms = state ? performance.now() - state.startedAt : undefined;
    // Labelled by the route's pattern, never the raw path, so the series stay few whatever clients ask for.
    if (metrics && ms !== undefined) metrics.observeRequest(request.method, state!.route ?? UNMATCHED_ROUTE, status, ms / 1000);
    if (!isLogging) return;
    deps.log.info("request", {
      reqId: state?.id,
      method: request.method,
      path: state ? redactPath(state.path) : undefined,
      status,
      ms: ms === undefined ? undefined : Math.round(ms * 100) / 100,
      accountId: state?.auth?.accountId,
    });
  });
}
