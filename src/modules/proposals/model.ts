import { t } from "elysia";

const Question = t.Object({ position: t.Integer({ minimum: 0 }), question: t.String({ maxLength: 5000 }) });

export const GenerateProposalBody = t.Object(
  {
    jobId: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "Ciphertext, URL or processed job UUID of an archived job." })),
    jobTitle: t.Optional(t.String({ maxLength: 500 })),
    jobDescription: t.Optional(t.String({ maxLength: 100_000, description: "With jobTitle, skips the lookup." })),
    feedId: t.Optional(t.String({ maxLength: 100 })),
    reasoningEffort: t.Optional(t.Union([t.Literal("low"), t.Literal("medium"), t.Literal("high")], { default: "low" })),
    questions: t.Optional(t.Array(Question, { maxItems: 50 })),
    profileId: t.Optional(
      t.String({
        maxLength: 200,
        description:
          "Extension: the profile (a freelancer's specialization, as in GET /api/auto-apply-v2/freelancers) the letter introduces; send the same profileId to apply. Default: the primary profile.",
      }),
    ),
  },
  { title: "GenerateProposalRequest" },
);

export const GenerateProposalResponse = t.Object(
  {
    success: t.Boolean(),
    proposal: t.String(),
    questionAnswers: t.Optional(t.Array(t.Object({ position: t.Integer(), answer: t.String() }))),
  },
  { title: "GenerateProposalResponse" },
);
