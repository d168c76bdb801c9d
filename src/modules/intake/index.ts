import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { ingestDocuments } from "./ingest";
import { errorResponses } from "../../http/schemas";
import { AppError } from "../../errors";

const IngestResultSchema = t.Object(
  {
    received: t.Integer(),
    inserted: t.Integer(),
    updated: t.Integer(),
    rejected: t.Integer(),
    matched: t.Integer({ description: "Jobs that entered feeds without a profilePrompt right away" }),
    scoring: t.Integer({ description: "Feed matches queued for scoring" }),
    errors: t.Array(t.Object({ at: t.Integer({ description: "0-based index in the posted array" }), error: t.String() })),
    notes: t.Array(t.Object({ at: t.Integer({ description: "0-based index in the posted array" }), note: t.String() }), {
      description: "Documents that went in with a value left out, and why (a url that is not http or https is archived as null)",
    }),
  },
  { title: "IngestResult" },
);

/** POST /admin/jobs: push ingestion of archived job documents (one, or an array). */
export function jobsAdminRoutes(deps: Deps) {
  return new Elysia().post(
    "/admin/jobs",
    ({ body }) => {
      const isObject = body !== null && typeof body === "object";
      if (!isObject) throw new AppError("bad_request", "Request body must be a JSON object (one job document) or an array of them");
      const docs = Array.isArray(body) ? body : [body];
      if (docs.length > 10_000) throw new AppError("bad_request", "At most 10000 documents per request");
      return ingestDocuments(deps, docs, { source: "push" });
    },
    {
      // Unknown on purpose: an object schema would let Elysia coerce a non-object body into {}.
      body: t.Unknown({ description: "One archived job document (RawMarketplaceJob shape) or an array of at most 10,000" }),
      response: { 200: IngestResultSchema, ...errorResponses(400, 401, 413, 415) },
      detail: {
        tags: ["Admin"],
        security: [{ adminToken: [] }],
        operationId: "ingestJobs",
        summary: "Ingest job documents",
        description:
          "New jobs are archived and matched against every feed; known ciphertexts only refresh the archived document. Each bad document is rejected with its index and reason; the rest still go in.",
      },
    },
  );
}
