import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** The closed set of errors a service may throw, and the status each maps to. */
const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra body fields the spec names (e.g. creditsRemaining on 402, details on validation). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    /** For a 5xx: the message was written for the client and is sent as is (see userFacingServerError). */
    readonly userFacing = false,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/**
 * A 5xx whose message is for the client: a fixed text that says what failed and
 * what to do, with nothing internal in it (no ids, paths, upstream answers).
 * Every other 5xx answers only its status in words.
 */
export const userFacingServerError = (code: "internal" | "unavailable", message: string) => new AppError(code, message, {}, {}, true);

const SERVER_ERROR_MESSAGES: Record<number, string> = { 500: "Internal server error", 503: "Service unavailable" };

/** What a client is told of a server error: its status in words, never the cause (which is logged). */
const serverErrorMessage = (status: number) => SERVER_ERROR_MESSAGES[status] ?? SERVER_ERROR_MESSAGES[500]!;

/** The message a client may see: a 4xx's own, a 5xx's only when it was written for the client. */
export const clientMessage = (error: AppError) => (error.status < 500 || error.userFacing ? error.message : serverErrorMessage(error.status));

export const notFound = (what = "Not found") => new AppError("not_found", what);

/** '/proposal/hourlyRate' → 'proposal.hourlyRate', '/questionAnswers/0/position' → 'questionAnswers[0].position'. */
function fieldName(path: string): string {
  return path
    .split("/")
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

/** Plain words for what a schema wants, for validation messages that a person can act on. */
export function describeSchema(schema: TSchema | undefined): string {
  if (!schema) return "valid";
  const s = schema as Record<string, any>;
  if (Array.isArray(s.anyOf)) {
    const members = s.anyOf as Record<string, any>[];
    if (members.every((m) => m.const !== undefined)) return "one of " + members.map((m) => String(m.const)).join(", ");
    // Elysia turns numeric query params into number | numeric-string unions: describe the number.
    const numeric = members.find((m) => m.type === "integer" || m.type === "number");
    if (numeric) return describeSchema(numeric as TSchema);
    const nonNull = members.filter((m) => m.type !== "null");
    const orNull = nonNull.length < members.length ? " or null" : "";
    return nonNull.map((m) => describeSchema(m as TSchema)).join(" or ") + orNull;
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  switch (s.type) {
    case "integer":
    case "number": {
      const noun = s.type === "integer" ? "an integer" : "a number";
      if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} between ${s.minimum} and ${s.maximum}`;
      if (s.minimum !== undefined) return s.minimum === 0 ? `a non-negative ${noun.replace(/^an? /, "")}` : `${noun} >= ${s.minimum}`;
      if (s.maximum !== undefined) return `${noun} <= ${s.maximum}`;
      return noun;
    }
    case "string":
      if (s.minLength && s.maxLength) return `a string of ${s.minLength} to ${s.maxLength} characters`;
      if (s.maxLength) return `a string of at most ${s.maxLength} characters`;
      if (s.minLength) return "a non-empty string";
      return "a string";
    case "boolean":
      return "true or false";
    case "array":
      return s.minItems ? "a non-empty array" : "an array";
    case "object":
      return "an object";
    case "null":
      return "null";
  }
  return "valid";
}

interface ValueErrorLike {
  path: string;
  value: unknown;
  schema: TSchema;
  message: string;
}

/**
 * An object sent where an object-or-null union is wanted (working hours, say) failed inside the object: its own
 * errors, with their paths under the field, name what is wrong better than "must be an object or null".
 */
function insideObjectVariant(e: ValueErrorLike): ValueErrorLike[] | null {
  const variants = (e.schema as { anyOf?: TSchema[] }).anyOf;
  if (!variants || typeof e.value !== "object" || e.value === null || Array.isArray(e.value)) return null;
  const objects = variants.filter((v) => (v as { type?: string }).type === "object");
  if (objects.length !== 1) return null;
  const inner = [...Value.Errors(objects[0]!, e.value)].map((x) => ({ path: `${e.path}${x.path}`, value: x.value, schema: x.schema, message: x.message }));
  return inner.length > 0 ? inner : null;
}

/** One message per failing field, naming it; a field that fails several checks is named once. */
export function validationDetails(errors: ValueErrorLike[], on: string): string[] {
  const seen = new Set<string>();
  const details: string[] = [];
  for (const e of errors.flatMap((x) => insideObjectVariant(x) ?? [x])) {
    const field = fieldName(e.path);
    if (seen.has(field)) continue;
    seen.add(field);
    if (!field) {
      details.push(on === "body" ? "Request body must be a JSON object" : `Invalid ${on}`);
    } else if (e.value === undefined) {
      details.push(`${field} is required`);
    } else {
      details.push(`${field} must be ${describeSchema(e.schema)}`);
    }
  }
  return details;
}
