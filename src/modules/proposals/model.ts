import { t } from "elysia";
import { AssignedArm } from "../experiments/model";

const Question = t.Object({ position: t.Integer({ minimum: 0 }), question: t.String({ maxLength: 5000 }) });

export const GenerateProposalBody = t.Object(
  {
    jobId: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "Ciphertext, URL or processed job UUID of an archived job." })),
    jobTitle: t.Optional(t.String({ maxLength: 500 })),
    jobDescription: t.Optional(t.String({ maxLength: 100_000, description: "With jobTitle, skips the lookup." })),
    feedId: t.Optional(t.String({ maxLength: 100 })),
    reasoningEffort: t.Optional(t.Union([t.Literal("low"), t.Literal("medium"), t.Literal("high")], { default: "low" })),
    questions: t.Optional(t.Array(Question, { maxItems: 50 })),
    experimentId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 100,
        description:
          "Extension: draft under this experiment's arm for the job (needs jobId). Without it, a job already assigned in a running experiment, or drafted from a feed (feedId) with a running experiment, is drafted under its arm. The response's experiment names the arm.",
      }),
    ),
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
    experiment: t.Optional(t.Object(AssignedArm.properties, { description: "Extension: the experiment arm the letter was drafted under." })),
  },
  { title: "GenerateProposalResponse" },
);
