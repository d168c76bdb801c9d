import type { OpenAPIV3_1 } from "openapi-types";
import { permissionOf } from "./auth";
import { MAX_REQUEST_HEAD_BYTES } from "./request-context";
import type { RoutePolicy } from "./route-policy";

/**
 * The OpenAPI document as the wire is: what @elysiajs/openapi generates from the routes' TypeBox
 * schemas, made valid OpenAPI 3.1 (JSON Schema 2020-12) and completed with what the request-wide
 * plugins do to every route (statuses, headers), which the generator cannot see.
 *
 * A transform of the generated document, not options of the generator: the plugin has no setting
 * for any of this (its only schema hook, mapJsonSchema, is for other validation libraries), and
 * our routes stay declared the one Elysia way. Everything here is derived from the same facts the
 * plugins act on (path prefix, route policy, method, schemas), so a route added tomorrow is
 * documented truly without a line about it here.
 */

type Json = Record<string, any>;
type Document = OpenAPIV3_1.Document;

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

/** JSON Schema keywords whose value is a map of schemas, one schema, or a list of schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/**
 * Keys Elysia leaves on schemas that are not JSON Schema: `error` (the validation message a
 * route gives a field) and `nullable` (OpenAPI 3.0's; t.Nullable adds it beside the union that
 * already says null).
 */
const NOT_JSON_SCHEMA = new Set(["error", "nullable"]);

/**
 * One schema as JSON Schema 2020-12, children first:
 * - Elysia's t.Integer / t.Numeric are `integer | a string of digits` so that query strings and
 *   path segments can be coerced; the value on the wire (a JSON number, or a query parameter as
 *   OpenAPI describes it) is the number, so the union becomes the number schema with its bounds.
 * - A union of constants becomes an `enum` (what client generators turn into enum types).
 * - `X or null` becomes `type: [X, "null"]` when X is a plain typed schema.
 */
export function toJsonSchema2020(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (NOT_JSON_SCHEMA.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, toJsonSchema2020(child)]));
    else if (SCHEMA_VALUES.has(key) && isObject(value)) out[key] = toJsonSchema2020(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(toJsonSchema2020);
    else out[key] = value;
  }
  return simplifyUnion(out);
}

const isCoercedString = (m: Json) => m.type === "string" && (m.format === "integer" || m.format === "numeric");
const isNull = (m: unknown) => isObject(m) && m.type === "null" && Object.keys(m).length === 1;

function simplifyUnion(node: Json): Json {
  const members = node.anyOf;
  if (!Array.isArray(members) || !members.every(isObject)) return node;
  const { anyOf: _, ...outer } = node;
  const number = members.find((m) => m.type === "integer" || m.type === "number");
  if (members.length === 2 && number && members.some(isCoercedString)) return { ...outer, ...number };
  const nonNull = members.filter((m) => !isNull(m));
  const orNull = nonNull.length < members.length;
  const first = nonNull[0];
  if (!first) return node;
  const type = first.type;
  if (
    typeof type === "string" &&
    nonNull.every((m) => m.const !== undefined && m.type === type && Object.keys(m).every((k) => k === "const" || k === "type"))
  ) {
    const values = nonNull.map((m) => m.const);
    return { ...outer, type: orNull ? [type, "null"] : type, enum: orNull ? [...values, null] : values };
  }
  if (orNull && nonNull.length === 1 && typeof type === "string") {
    return { ...outer, ...first, type: [type, "null"], ...(Array.isArray(first.enum) ? { enum: [...first.enum, null] } : {}) };
  }
  return node;
}

/** What the document reads of a route: Elysia's route entries (`app.routes`). */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks?: {
    body?: unknown;
    query?: unknown;
    params?: unknown;
    policy?: RoutePolicy;
    /** `responses` in a route's detail describe its statuses in its own words (merged over the generated ones). */
    detail?: { hide?: boolean; operationId?: string; security?: unknown; responses?: Record<string, { description?: string; content?: unknown }> };
  };
}

/** The part of the document written by hand (app.ts): everything but the paths. */
export type Documentation = Omit<Document, "paths" | "openapi"> & { components?: OpenAPIV3_1.ComponentsObject };

/** Names of the response headers the request-wide plugins set, described once in components.headers. */
const HEADERS = {
  "X-Request-Id": {
    description:
      "The request's id, on every response: the caller's own `x-request-id` when it is 1 to 100 of `A-Z a-z 0-9 . _ : -`, else a new one. Every log line about the request carries it.",
    schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,100}$" },
  },
  "X-RateLimit-Limit": {
    description: "Requests allowed in the tightest window of the route's rate-limit bucket for this key.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": { description: "When that window rolls over, in Unix seconds.", schema: { type: "integer", minimum: 0 } },
  "Retry-After": { description: "Seconds to wait before the next request counts again.", schema: { type: "integer", minimum: 0 } },
  "Access-Control-Allow-Origin": { description: "Any origin may read the response (the API key, not the origin, is the credential).", schema: { const: "*" } },
  Deprecation: { description: "This endpoint is deprecated (see the Link header for its successor).", schema: { const: "true" } },
  Link: { description: 'The successor endpoint: `<path>; rel="successor-version"`.', schema: { type: "string" } },
} as const satisfies Record<string, { description: string; schema: Json }>;
type HeaderName = keyof typeof HEADERS;

/**
 * The Standard Webhooks headers (lib/standard-webhooks.ts) as header parameters, described once:
 * feed webhooks send them, the bridge callback takes them. Refer to them with `signatureHeaders`.
 */
const SIGNATURE_PARAMETERS = {
  WebhookId: {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The message id, the same on every retry of one message: drop a message whose id was seen before.",
    schema: { type: "string", minLength: 1 },
  },
  WebhookTimestamp: {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "When the message was signed, in Unix seconds; refuse one more than 5 minutes away from your clock (replays).",
    schema: { type: "integer", minimum: 0 },
  },
  WebhookSignature: {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "Space-separated `v1,<base64>` signatures: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the shared `whsec_…` secret (base64 after the prefix). Accept the message when any one matches; during a secret rotation there are two.",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
  },
} as const;

/** The three signature headers, as an operation's `parameters`. */
export const signatureHeaders = Object.keys(SIGNATURE_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }));

/** The description of each standard status, unless the route's schema describes it. */
const STATUS_TEXT: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted: queued, the work happens in the background",
  "204": "No content",
  "400": "Invalid request: a parameter or the body fails validation (`error` names the field), or the body is not valid JSON",
  "401": "Not authenticated",
  "402": "Payment required",
  "403": "Your role does not have the permission this action needs: `error` names it (docs/members.md)",
  "404": "Not found (another account's resource is not found either)",
  "409": "Conflict with the current state",
  "413": "The body (or its declared Content-Length) is over JOBPILOT_MAX_BODY_BYTES",
  "414": "The URL (path and query string) is over 8,192 bytes",
  "415": "The body's Content-Type is not application/json (UTF-8)",
  "431": `The request line and headers together are over ${MAX_REQUEST_HEAD_BYTES.toLocaleString("en-US")} bytes`,
  "429": "Rate limit exceeded: retry after Retry-After seconds",
  "500": "Internal server error: the log has the cause under the response's X-Request-Id",
  "503": "A service this request needs is unavailable; retry later",
  "507": "The server's storage is full: nothing was saved; retry after Retry-After seconds, once the operator has freed space",
};
const UNAUTHORIZED_TEXT = {
  api: "Missing, unknown or revoked API key (x-api-key)",
  admin: "Missing or wrong admin token (Authorization: Bearer JOBPILOT_ADMIN_TOKEN)",
};

/**
 * Who authenticates a route before routing (auth.ts): an API key under /api and where the policy
 * asks for one (`apiKey`), the admin token under /admin, nobody elsewhere.
 */
function gateOf(route: DocumentedRoute): "api" | "admin" | "none" {
  if (route.hooks?.policy?.public) return "none";
  if (route.path.startsWith("/api/") || route.hooks?.policy?.apiKey) return "api";
  if (route.path.startsWith("/admin/")) return "admin";
  return "none";
}

/**
 * The statuses the request-wide plugins can answer on this route, whatever its handler does:
 * request-context (413 by declared length, 414, 431) and the error handler (500, and 507 when the database's
 * storage is full) on every route; the
 * body parser (400 bad JSON, 413, 415) on every method that may carry a body; validation (400)
 * where there is a schema; auth (401) and the rate limit (429) where they apply.
 */
function pluginStatuses(route: DocumentedRoute, gate: ReturnType<typeof gateOf>): string[] {
  const statuses = ["413", "414", "431", "500", "507"];
  const method = route.method.toUpperCase();
  const takesBody = method !== "GET" && method !== "HEAD";
  if (takesBody) statuses.push("400", "415");
  if (route.hooks?.params || route.hooks?.query || route.hooks?.body) statuses.push("400");
  if (gate !== "none") statuses.push("401");
  if (gate === "api") statuses.push("429");
  // The role check answers 403 on every keyed route that needs more than `read`, which every role has.
  if (gate === "api" && permissionOf(method, route.hooks?.policy) !== "read") statuses.push("403");
  return statuses;
}

/**
 * The headers every response of the route carries with this status. 413 (by declared length),
 * 414 and 431 are answered before the route is known, so they carry only the request id; 401 comes
 * before the rate limit, and a 500 may (the key could not be checked), so neither is sure to
 * have rate-limit headers; nor is a 403, which the role check (http/auth.ts) answers before it too.
 */
function headersOf(route: DocumentedRoute, gate: ReturnType<typeof gateOf>, status: string): HeaderName[] {
  const names: HeaderName[] = ["X-Request-Id"];
  if (status === "413" || status === "414" || status === "431") return names;
  const policy = route.hooks?.policy;
  if (gate === "api" && status !== "401" && status !== "403" && status !== "500" && status !== "507")
    names.push("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
  if (status === "507") names.push("Retry-After");
  if (gate === "api" && status === "429") names.push("Retry-After");
  if (policy?.anyOrigin) names.push("Access-Control-Allow-Origin");
  if (policy?.successor) names.push("Deprecation", "Link");
  return names;
}

/** `postApiAuto-apply-v2Apply` (the generator's) → `postApiAutoApplyV2Apply`: a name every client generator accepts. */
const identifier = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join("");

const ref = (kind: "schemas" | "headers" | "parameters", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * The served document: `generated` (toOpenAPISchema's output for `routes`) made 3.1-valid and
 * completed, with the hand-written parts from `documentation`. `errorSchema` is the one `{ error }`
 * body: every error response whose schema is it points at components.schemas.Error instead.
 */
export function buildDocument(opts: {
  openapi: string;
  generated: { paths: Json; components: { schemas: Json } };
  routes: readonly DocumentedRoute[];
  documentation: Documentation;
  errorSchema: unknown;
}): Document {
  const { routes, documentation } = opts;
  // A copy as plain JSON: the generator shares objects with the routes' own options, which must not change.
  const generated = JSON.parse(JSON.stringify(opts.generated)) as typeof opts.generated;
  const errorSchema = toJsonSchema2020(opts.errorSchema) as Json;
  const errorKey = JSON.stringify(errorSchema);
  const paths = generated.paths as Record<string, Record<string, Json>>;

  const schemaOf = (schema: unknown) => {
    const normalized = toJsonSchema2020(schema);
    return JSON.stringify(normalized) === errorKey ? ref("schemas", "Error") : normalized;
  };
  const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ref("schemas", "Error") } } });

  for (const route of routes) {
    const method = route.method.toLowerCase();
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const operation = paths[path]?.[method];
    if (!operation) continue;
    const gate = gateOf(route);

    operation.operationId = route.hooks?.detail?.operationId ?? identifier(operation.operationId ?? `${method} ${path}`);
    // Outside /api and /admin no plugin asks for credentials: the document-wide apiKey does not apply. A route
    // whose policy asks for a key outside /api takes it as a bearer token too.
    if (gate === "none" && route.hooks?.detail?.security === undefined) operation.security = [];
    if (route.hooks?.policy?.apiKey && route.hooks.detail?.security === undefined) operation.security = [{ apiKey: [] }, { apiKeyBearer: [] }];
    for (const parameter of operation.parameters ?? []) {
      if (parameter.schema) parameter.schema = toJsonSchema2020(parameter.schema);
      // A parameter's schema description is the parameter's: generators and the reference page read it there.
      if (parameter.schema?.description && !parameter.description) parameter.description = parameter.schema.description;
    }
    for (const media of Object.values<Json>(operation.requestBody?.content ?? {})) media.schema = schemaOf(media.schema);

    const responses: Record<string, Json> = (operation.responses ??= {});
    for (const [status, described] of Object.entries(route.hooks?.detail?.responses ?? {})) {
      responses[status] = { ...responses[status], ...JSON.parse(JSON.stringify(described)) };
    }
    for (const status of pluginStatuses(route, gate)) {
      responses[status] ??= errorResponse(STATUS_TEXT[status]!);
    }
    for (const [status, response] of Object.entries(responses)) {
      if (!response.description || /^Response for status \d+$/.test(response.description)) {
        response.description = status === "401" && gate !== "none" ? UNAUTHORIZED_TEXT[gate] : (STATUS_TEXT[status] ?? `Status ${status}`);
      }
      // Every error is the one JSON `{ error }` body (errors.ts), also where a route describes only its meaning.
      if (Number(status) >= 400 && !response.content) response.content = errorResponse("").content;
      for (const media of Object.values<Json>(response.content ?? {})) media.schema = schemaOf(media.schema);
      const headers = (response.headers ??= {});
      for (const name of headersOf(route, gate, status)) headers[name] ??= ref("headers", name);
    }
    operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }

  const components: OpenAPIV3_1.ComponentsObject = {
    ...documentation.components,
    schemas: {
      ...Object.fromEntries(Object.entries(generated.components.schemas).map(([name, schema]) => [name, toJsonSchema2020(schema)])),
      ...Object.fromEntries(Object.entries(documentation.components?.schemas ?? {}).map(([name, schema]) => [name, toJsonSchema2020(schema)])),
      Error: errorSchema,
    } as Record<string, OpenAPIV3_1.SchemaObject>,
    headers: Object.fromEntries(
      Object.entries(HEADERS).map(([name, header]) => [name, { ...header, required: true }]),
    ) as OpenAPIV3_1.ComponentsObject["headers"],
    parameters: { ...SIGNATURE_PARAMETERS, ...documentation.components?.parameters } as OpenAPIV3_1.ComponentsObject["parameters"],
  };
  const document: Document = {
    openapi: opts.openapi,
    ...documentation,
    components,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))) as OpenAPIV3_1.PathsObject,
  };
  return withoutUnusedComponents(document);
}

/** Drops the schemas, headers and parameters nothing refers to (transitively), so the document lists only what it uses. */
export function withoutUnusedComponents(document: Document): Document {
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  const kinds = ["schemas", "headers", "parameters", "responses", "requestBodies"];
  const used = new Set<string>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      if (typeof value.$ref === "string" && !used.has(value.$ref)) {
        used.add(value.$ref);
        const [, , kind, name] = value.$ref.split("/");
        visit(components[kind!]?.[name!]);
      }
      for (const child of Object.values(value)) visit(child);
    }
  };
  const { components: _, ...rest } = document;
  visit(rest);
  const kept: Json = { ...components };
  for (const kind of kinds) {
    if (!components[kind]) continue;
    kept[kind] = Object.fromEntries(Object.entries(components[kind]!).filter(([name]) => used.has(`#/components/${kind}/${name}`)));
    if (Object.keys(kept[kind]).length === 0) delete kept[kind];
  }
  return { ...document, components: kept };
}
