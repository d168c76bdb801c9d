import { Elysia, ElysiaCustomStatusResponse } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { requestId } from "../lib/ids";
import { redactPath } from "../lib/redact";
import { UNMATCHED_ROUTE } from "../metrics";
import { getRequestState, pathOf, type RequestState, setRequestState } from "./context";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Longest path + query string accepted: a longer URL gets our JSON 414 (before the head limit below,
 * which a long URL also passes, as it says more).
 */
const MAX_URL_BYTES = 8192;
/**
 * Longest request head (request line + headers) accepted: a longer one gets our JSON 431. Bun answers a
 * head over its own limit with an empty 431 before any of our code runs, so its limit must sit above this
 * one: see SERVER_HEAD_LIMIT_BYTES.
 */
export const MAX_REQUEST_HEAD_BYTES = 65_536;
/**
 * What the start scripts (package.json) and the compiled binary (scripts/build.ts) raise Bun's request-head
 * limit to with `--max-http-header-size` (its default, 16 KiB, would answer heads of 16–64 KiB itself, empty).
 * Only a head over this, far past anything a client sends by mistake, meets Bun's empty 431. It is what
 * one connection may make the server hold before answering, as the default body limit is. A test keeps
 * the three in step.
 */
export const SERVER_HEAD_LIMIT_BYTES = 1_048_576;

/**
 * Gives every request an id (the caller's x-request-id when it is sane, else a
 * new one), echoes it on every response (with nosniff), refuses URLs over MAX_URL_BYTES and
 * bodies whose declared size is over the limit before reading them, times
 * it for the request metrics, and writes one access-log line.
 */
export function requestContext(deps: Deps) {
  const plugin = new Elysia({ name: "request-context" }).onRequest(({ request, set }) => {
    const id = requestIdOf(request);
    // Read once: each read of request.url makes a new string.
    const url = request.url;
    setRequestState(request, { id, startedAt: performance.now(), path: pathOf(url) });
    writeAnswerHeaders(set.headers, id);
    if (targetLength(url) > MAX_URL_BYTES) throw new AppError("uri_too_long", `URL is longer than ${MAX_URL_BYTES} bytes`);
    if (headLength(request, url) > MAX_REQUEST_HEAD_BYTES) {
      throw new AppError("headers_too_large", `Request headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes (request line and headers together)`);
    }
    const declared = request.headers.get("content-length");
    if (declared && Number(declared) > deps.config.maxBodyBytes) {
      throw new AppError("payload_too_large", `Request body is larger than ${deps.config.maxBodyBytes} bytes`);
    }
  });
  const metrics = deps.metrics.isEnabled ? deps.metrics : null;
  // Requests are observed for the metrics in a mapResponse hook: it runs in line (on error answers too),
  // where an after-response hook costs a scheduled callback per request. Labelled by the route's pattern,
  // never the raw path, so the series stay few whatever clients ask for. The duration runs from arrival
  // to the answer being ready to send. It hands the value back unchanged: Elysia 1.4's error path replaces the answer with whatever a
  // mapResponse hook returns, undefined included (an empty body).
  if (metrics)
    plugin.mapResponse({ as: "global" }, ({ request, set, responseValue }) => {
      const state = getRequestState(request);
      if (state) {
        const status = responseValue instanceof ElysiaCustomStatusResponse ? responseValue.code : typeof set.status === "number" ? set.status : 200;
        metrics.observeRequest(request.method, state.route ?? UNMATCHED_ROUTE, status, (performance.now() - state.startedAt) / 1000);
      }
      return responseValue as never;
    });
  // Only hooked when access lines are wanted: an after-response hook costs a scheduled callback per request.
  if (!deps.log.isEnabled("info")) return plugin;
  return plugin.onAfterResponse({ as: "global" }, ({ request, set }) => {
    const state = getRequestState(request);
    accessLine(deps, request.method, state, typeof set.status === "number" ? set.status : 200);
  });
}

/**
 * The headers every answer carries, set by this plugin's hook before anything can fail: the request id, and
 * `nosniff`, so that no browser takes a JSON answer, or text a client had echoed back, for script or HTML.
 */
export function writeAnswerHeaders(headers: Record<string, string | number>, id: string): void {
  headers["x-request-id"] = id;
  headers["x-content-type-options"] = "nosniff";
}

/** The caller's x-request-id when it is sane, else a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && CLIENT_REQUEST_ID.test(given) ? given : requestId();
}

/** The length of the path and query string: request.url is absolute and percent-encoded (ASCII), so everything from the path's slash is what the client sent. */
export const targetLength = (url: string) => url.length - url.indexOf("/", url.indexOf("//") + 2);

/**
 * The size of the request head as sent, from what Bun parsed of it: `METHOD target HTTP/1.1`, a
 * `name: value` line per header and the blank line, each ending in CRLF. Exact for ASCII; whitespace
 * Bun trimmed around values is not counted.
 */
function headLength(request: Request, url: string): number {
  let length = request.method.length + 1 + targetLength(url) + " HTTP/1.1\r\n".length + 2;
  request.headers.forEach((value, name) => {
    length += name.length + value.length + 4;
  });
  return length;
}

/**
 * The access-log line of one request: at info, except a 304, which is at debug. The dashboard's inbox asks every
 * few seconds whether anything changed, and a line per "nothing changed" buried the start banner and its key.
 */
export function accessLine(deps: Pick<Deps, "log">, method: string, state: RequestState | undefined, status: number): void {
  deps.log[status === 304 ? "debug" : "info"]("request", {
    reqId: state?.id,
    method,
    path: state ? redactPath(state.path) : undefined,
    status,
    ms: state ? Math.round((performance.now() - state.startedAt) * 100) / 100 : undefined,
    accountId: state?.auth?.accountId,
  });
}
