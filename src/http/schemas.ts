import { t } from "elysia";
import { describeSchema } from "../errors";

/** The one error body: `{ error }`, plus the extra fields some statuses carry. */
export const ErrorBody = t.Object(
  {
    error: t.String({ description: "Human-readable message" }),
    details: t.Optional(t.Array(t.String(), { description: "One entry per failing field (validation errors)" })),
  },
  { title: "Error" },
);

/** Standard error responses, merged into each route's response map for the OpenAPI page. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<number, typeof ErrorBody>;

/** The statuses every authenticated route can answer, whatever it does. */
export const AUTHED_ERRORS = [400, 401, 404, 429, 500] as const;

/**
 * An integer query parameter. Elysia coerces query numbers in a way that loses
 * the parameter's name on failure, so the message travels with the schema.
 */
export function queryInt(name: string, opts: { minimum?: number; maximum?: number; default?: number; description?: string }) {
  const schema = { type: "integer", ...opts };
  return t.Integer({ ...opts, error: `${name} must be ${describeSchema(schema as never)}` });
}
