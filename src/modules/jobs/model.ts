import { t } from "elysia";
import { literalUnion } from "../../http/schemas";
import { SIGNAL_IDS } from "./signals";

export const CipherQuery = t.Object({
  cipher: t.String({ minLength: 1, maxLength: 200, description: "Job ciphertext starting with ~ (URL-encoded as %7E)." }),
});
export const CiphertextParams = t.Object({ ciphertext: t.String({ minLength: 1, maxLength: 200 }) });

/** A signal as the API shows it (signals.ts): the archived job, a feed's jobs, the webhook payload. */
export const JobSignalSchema = t.Object(
  {
    id: literalUnion(SIGNAL_IDS, { description: "repost, ghost, scam or low-budget" }),
    rule: t.Optional(
      t.String({
        description: "For scam: which rule tripped (off-platform, email-phone, pay-to-start, personal-data, crypto-or-cheque, new-client-outsized …)",
      }),
    ),
    say: t.String({ description: "The flag in words, e.g. 'Reposted: near-identical to a job of 12 Nov (no hire)'" }),
    earlier: t.Optional(
      t.Object({
        ciphertext: t.String(),
        url: t.String(),
        hired: t.Nullable(t.Boolean({ description: "Whether anyone was hired on it, as the archive last saw it; null: not known" })),
      }),
    ),
  },
  { title: "JobSignal" },
);

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
    signals: t.Optional(
      t.Array(JobSignalSchema, {
        description: "(extension) The signals computed when the job was first archived (docs: Signals); their words are also in clientScore.flags.",
      }),
    ),
    matches: t.Array(t.Object({}, { additionalProperties: true })),
  },
  { title: "RawMarketplaceJob", additionalProperties: true },
);
