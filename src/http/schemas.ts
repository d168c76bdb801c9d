import type { SchemaOptions, TLiteral, TUnion } from "@sinclair/typebox";
import { t } from "elysia";
import { describeSchema } from "../errors";

/** A union of the string literals of one `as const` array: a closed set's schema, derived from the set written once. */
export function literalUnion<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<LiteralSchemas<T>> {
  // map() over a generic tuple types each element as plain string; the cast puts the tuple's literals back.
  return t.Union(
    values.map((v) => t.Literal(v)),
    options,
  ) as unknown as TUnion<LiteralSchemas<T>>;
}

/** One TLiteral per element, as a tuple: what t.Union([t.Literal("a"), t.Literal("b")]) is typed with. */
type LiteralSchemas<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** The one error body: `{ error }`, plus the extra fields some statuses carry. */
export const ErrorBody = t.Object(
  {
    error: t.String({ description: "Human-readable message" }),
    details: t.Optional(t.Array(t.String(), { description: "One entry per failing field (validation errors)" })),
  },
  { title: "Error" },
);

/** Standard error responses, merged into each route's response map for the OpenAPI page. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>;

/**
 * An integer query parameter. Elysia coerces query numbers in a way that loses
 * the parameter's name on failure, so the message travels with the schema.
 */
export function queryInt(name: string, opts: { minimum?: number; maximum?: number; default?: number; description?: string }) {
  const schema = { type: "integer", ...opts };
  return t.Integer({ ...opts, error: `${name} must be ${describeSchema(schema as never)}` });
}

/** The most rows a list can skip: deeper is a 400, never a number SQLite cannot bind (a 500). */
export const MAX_OFFSET = 1_000_000;

/**
 * `limit` and `offset` of every paged list, each with a maximum: limit 1–200
 * (default 50, the spec's applied-jobs numbers), offset 0–MAX_OFFSET.
 */
export function pageQuery() {
  return {
    limit: t.Optional(queryInt("limit", { minimum: 1, maximum: 200, default: 50, description: "Rows to return, 1 to 200" })),
    offset: t.Optional(queryInt("offset", { minimum: 0, maximum: MAX_OFFSET, default: 0, description: `Rows to skip, 0 to ${MAX_OFFSET}` })),
  };
}
