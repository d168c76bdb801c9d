import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { getRequestState } from "./context";
import { readCapped, TooLargeError } from "../lib/read-capped";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
const CHARSET = /charset\s*=\s*"?([\w-]+)"?/i;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

const MAX_JSON_DEPTH = 64;

/**
 * Deepest nesting of arrays/objects, counted outside strings. Deeper documents
 * are refused before JSON.parse and validation, which recurse and would
 * otherwise overflow the stack on a hostile 10,000-level body.
 */
function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * The only body parser: JSON objects and arrays in UTF-8 (and urlencoded
 * forms where the route's policy allows them), under the size limit.
 * Everything else gets a 4xx that says what was wrong, never a 5xx.
 */
export function jsonBody(deps: Deps) {
  return new Elysia({ name: "json-body" }).onParse({ as: "global" }, async ({ request }) => {
    const contentType = request.headers.get("content-type");
    const length = request.headers.get("content-length");
    const hasBody = (length !== null && length !== "0") || request.headers.has("transfer-encoding");
    const state = getRequestState(request);
    if (state) state.bodyKind = "none";
    if (!contentType && !hasBody) return undefined; // no body: the route's schema says whether one was needed
    // HTML forms post urlencoded bodies; only routes whose policy says `formBody` (the dashboard's) accept them,
    // so the API still answers 415 to anything but JSON. Read here (not by Elysia's default parser) to keep the size limit.
    const isForm = !!contentType && !!state?.policy?.formBody && FORM_TYPE.test(contentType);
    if (!isForm && (!contentType || !JSON_TYPE.test(contentType))) {
      throw new AppError("unsupported_media_type", "Content-Type must be application/json");
    }
    const charset = CHARSET.exec(contentType!)?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) throw new AppError("unsupported_media_type", isForm ? "Form bodies must be UTF-8" : "JSON bodies must be UTF-8");
    let bytes: Uint8Array;
    try {
      bytes = await readCapped(request.body, deps.config.maxBodyBytes);
    } catch (err) {
      if (err instanceof TooLargeError) throw new AppError("payload_too_large", `Request body is larger than ${deps.config.maxBodyBytes} bytes`);
      throw err;
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new AppError("bad_request", "Request body is not valid UTF-8");
    }
    if (isForm) return Object.fromEntries(new URLSearchParams(text));
    if (!text.trim()) throw new AppError("bad_request", "Request body is empty; expected a JSON object");
    if (jsonDepth(text) > MAX_JSON_DEPTH) throw new AppError("bad_request", `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new AppError("bad_request", "Malformed JSON body");
    }
    // Elysia turns non-object bodies into {} before validating; remember what really came so errors can say so.
    if (state) state.bodyKind = Array.isArray(value) ? "array" : value !== null && typeof value === "object" ? "object" : "other";
    return value;
  });
}
