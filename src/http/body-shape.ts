import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import { validationDetails } from "../errors";

/**
 * Elysia's exact-mirror normalisation runs before validation and turns a value
 * that is not an object into `{}` wherever the schema has an object
 * (`"proposal": "x"` became a proposal with default bids) and splits a string into
 * an array of its characters where the schema has an array. This hook looks at
 * the body as the client sent it, before that, and refuses containers of the
 * wrong kind with every failing field named, the way validation would.
 */
export class BodyShapeError extends Error {
  constructor(readonly details: string[]) {
    super(details.join("; "));
  }
}

type Schema = Record<string, any>;

const isPlainObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);

/** True when every container in `value` has the kind its schema position asks for. */
function containersMatch(schema: Schema | undefined, value: unknown): boolean {
  if (!schema || value === undefined) return true;
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf as Schema[];
    if (value === null && members.some((m) => m.type === "null")) return true;
    const containers = members.filter((m) => m.type === "object" || m.type === "array");
    const others = members.filter((m) => m.type !== "object" && m.type !== "array" && m.type !== "null");
    if (containers.length > 0 && others.length === 0) return containers.some((m) => containersMatch(m, value));
    return true;
  }
  if (schema.type === "object") {
    if (!isPlainObject(value)) return false;
    const props = schema.properties as Schema | undefined;
    if (!props) return true;
    for (const key of Object.keys(value as object)) {
      // Own keys only: "constructor" or "__proto__" in a body must never reach Object.prototype.
      if (Object.hasOwn(props, key) && !containersMatch(props[key], (value as Record<string, unknown>)[key])) return false;
    }
    return true;
  }
  if (schema.type === "array") {
    // Elysia would split a string into an array of its characters ("react" → r, e, a, c, t).
    if (!Array.isArray(value)) return false;
    return !schema.items || value.every((item) => containersMatch(schema.items, item));
  }
  return true;
}

/** Every failing field of `body`; unknown fields are not failures (they are dropped later). */
function bodyFailures(schema: TSchema, body: unknown): string[] {
  const errors = [...Value.Errors(schema, body)].filter((e) => e.type !== ValueErrorType.ObjectAdditionalProperties);
  return validationDetails(errors, "body");
}

/** The transform hook; `routes` is read once, on first use, when the app is complete. */
export function bodyShape(routes: () => { method: string; path: string; hooks?: { body?: unknown } }[]) {
  let bodies: Map<string, TSchema> | null = null;
  return new Elysia({ name: "body-shape" }).onTransform({ as: "global" }, ({ request, route, body }) => {
    if (body === undefined) return;
    bodies ??= new Map(
      routes().flatMap((r) => (r.hooks?.body && typeof r.hooks.body === "object" ? [[`${r.method} ${r.path}`, r.hooks.body as TSchema]] : [])),
    );
    const schema = bodies.get(`${request.method} ${route}`);
    if (!schema || containersMatch(schema, body)) return;
    throw new BodyShapeError(bodyFailures(schema, body));
  });
}
