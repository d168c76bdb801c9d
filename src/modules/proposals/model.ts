import { t } from "elysia";
import { AssignedArm } from "../experiments/model";

export const ClaimSchema = t.Object(
  {
    kind: t.Union([t.Literal("years"), t.Literal("number"), t.Literal("client"), t.Literal("technology"), t.Literal("experience")]),
    text: t.String({ description: "The words flagged, as they appear in the letter" }),
    start: t.Integer({ description: "Where they start in the letter (UTF-16 offset)" }),
    reason: t.String(),
  },
  { title: "Claim" },
);

/** The longest regeneration instruction generate-proposal takes; the dashboard and Telegram refuse longer ones in their own words. */
export const INSTRUCTION_MAX_LENGTH = 500;

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
    instruction: t.Optional(
      t.String({
        maxLength: INSTRUCTION_MAX_LENGTH,
        description:
          'Extension: regenerate with this instruction ("shorter", "mention the Shopify app", "less formal"); every letter for an archived job is kept as a version (GET /api/v1/jobs/{ciphertext}/proposal-versions).',
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
    claims: t.Optional(
      t.Array(ClaimSchema, {
        description:
          "Extension: claims in the letter that nothing in the profile or portfolio backs (the claim check); auto mode does not send a letter with any.",
      }),
    ),
    version: t.Optional(t.Object({ id: t.String(), number: t.Integer() }, { description: "Extension: the stored version of this letter (archived jobs)." })),
  },
  { title: "GenerateProposalResponse" },
);

// ---------------------------------------------------------------- portfolios (issue 44)

const Line = (max: number, description: string) => t.String({ maxLength: max, description });

export const CaseStudySchema = t.Object(
  {
    title: t.String({ minLength: 1, maxLength: 120, description: "What the project was, in a few words" }),
    built: t.Optional(Line(1000, "What was built, in your words")),
    client: t.Optional(Line(120, 'For whom, or what kind of client ("a fintech start-up")')),
    skills: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 60 }), { maxItems: 20, description: "Skills the project used" })),
    outcome: t.Optional(Line(300, "The result, in numbers if you have them")),
    link: t.Optional(t.Union([t.Literal(""), t.String({ maxLength: 500, pattern: "^https?://\\S+$", description: "A link to the work (http or https)" })])),
  },
  { additionalProperties: false, title: "CaseStudy" },
);

export const PortfolioSchema = t.Object(
  {
    caseStudies: t.Optional(t.Array(CaseStudySchema, { maxItems: 30 })),
    pastClients: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 120 }), { maxItems: 50, description: "Clients you may name in a letter" })),
    skillYears: t.Optional(
      t.Array(t.Object({ skill: t.String({ minLength: 1, maxLength: 60 }), years: t.Number({ minimum: 0, maximum: 60 }) }, { additionalProperties: false }), {
        maxItems: 50,
        description: "Years of experience per skill",
      }),
    ),
  },
  { additionalProperties: false, title: "Portfolio" },
);

export const PortfolioResponse = t.Object(
  {
    profileId: t.String(),
    portfolio: t.Object({
      caseStudies: t.Array(
        t.Object({ title: t.String(), built: t.String(), client: t.String(), skills: t.Array(t.String()), outcome: t.String(), link: t.String() }),
      ),
      pastClients: t.Array(t.String()),
      skillYears: t.Array(t.Object({ skill: t.String(), years: t.Number() })),
    }),
    markdown: t.String({ description: "The portfolio in the import format (docs/proposals-and-auto-apply.md)" }),
    updatedAt: t.Nullable(t.String({ format: "date-time" })),
  },
  { title: "PortfolioResponse" },
);

export const PortfolioImportBody = t.Object(
  {
    format: t.Union([t.Literal("markdown"), t.Literal("json")], { description: "markdown: the documented import format; json: a Portfolio document" }),
    text: t.String({ minLength: 1, maxLength: 200_000 }),
  },
  { additionalProperties: false, title: "PortfolioImport" },
);

export const ProfileIdParams = t.Object({ profileId: t.String({ minLength: 1, maxLength: 200 }) });

export const JobRefParams = t.Object({ ciphertext: t.String({ minLength: 1, maxLength: 2048, description: "Ciphertext, URL or processed job UUID" }) });

export const ProposalVersionsResponse = t.Object(
  {
    versions: t.Array(
      t.Object({
        id: t.String(),
        number: t.Integer({ description: "1 for the first letter, then one more per regeneration" }),
        letter: t.String(),
        instruction: t.Nullable(t.String({ description: "The regeneration's instruction" })),
        writer: t.String({ description: "model, local or template (an experiment arm's)" }),
        claims: t.Array(ClaimSchema),
        memberId: t.Nullable(t.String()),
        createdAt: t.String({ format: "date-time" }),
        sentApplicationId: t.Nullable(t.String({ description: "The application that sent this version (at most one version per job is sent)" })),
      }),
    ),
  },
  { title: "ProposalVersions" },
);
