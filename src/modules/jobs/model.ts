import { t } from "elysia";

export const CipherQuery = t.Object({
  cipher: t.String({ minLength: 1, maxLength: 200, description: "Job ciphertext starting with ~ (URL-encoded as %7E)." }),
});
export const CiphertextParams = t.Object({ ciphertext: t.String({ minLength: 1, maxLength: 200 }) });

/** The archived job document. Sections from the marketplace are kept as stored, so the schema is open. */
export const RawMarketplaceJob = t.Object(
  {
    id: t.String(),
    title: t.String(),
    description: t.String(),
    ontologySkills: t.Array(t.Object({ uid: t.String(), prefLabel: t.String() }, { additionalProperties: true })),
    jobTile: t.Object({ job: t.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
    exploredAt: t.Integer({ description: "Unix ms" }),
    screeningQuestions: t.Optional(t.Array(t.Object({ position: t.Integer(), question: t.String() }))),
    jobDetailsResponse: t.Optional(t.Unknown()),
    authJobDetailsResponse: t.Optional(t.Unknown()),
    proposalActivity: t.Nullable(t.Object({}, { additionalProperties: true })),
    clientScore: t.Object({}, { additionalProperties: true }),
    matches: t.Array(t.Object({}, { additionalProperties: true })),
  },
  { title: "RawMarketplaceJob", additionalProperties: true },
);
