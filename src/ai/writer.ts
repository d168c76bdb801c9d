import type { AiClient, ReasoningEffort, TokenUsage } from "./client";
import { bidText, MAX_ANSWER_CHARS, MAX_PROPOSAL_CHARS, type Bid, type WriterProfile, type WritingJob } from "./local-writer";
import { relevantCaseStudies } from "./portfolio";
import { dataSection, dataSectionRule } from "./untrusted";

export type Effort = "low" | "medium" | "high";

export interface ProposalRequest {
  job: WritingJob;
  profile: WriterProfile | null;
  /** The account's own instructions (the feed's proposalGenerationPrompt): trusted, but still fenced. */
  instructions: string | null;
  effort: Effort;
  questions: { position: number; question: string }[];
  /** The bid the application will send; null when it is not known yet (generate-proposal's API). */
  bid: Bid | null;
  /** The claim check's rewrite round: the letter it flagged and why; the model rewrites it without those claims. */
  rewrite?: { letter: string; problems: string } | null;
}

export interface ModelProposal {
  proposal: string;
  answers: Map<number, string>;
  usage: TokenUsage;
  model: string;
}

const LENGTH: Record<Effort, string> = {
  low: "120 to 170 words",
  medium: "160 to 220 words, with two or three concrete steps",
  high: "200 to 250 words, with three concrete steps, a note on budget and timeline fit, and one risk or assumption to confirm",
};

const PLACEHOLDER = /\[(?:your|client|name|company|insert)[^\]]*\]|\{\{?\s*(?:name|client|company)\s*\}?\}|<\s*(?:your name|client name)\s*>/i;

const SYSTEM = [
  "You write proposals (cover letters) that a freelancer sends to a client about one job posting, and short answers to the job's screening questions.",
  "A good proposal: its first two lines name the client's own need in their terms (clients see about 230 characters before they open it); cites the one or two case studies in <portfolio> concretely (what was built, for whom, the result, the link) when there are any; gives a concrete approach; ends with one specific question or next step; is signed with the freelancer's name when known.",
  "Claim only what <profile> and <portfolio> say: no experience, client, number, year count or technology they do not contain. Technologies the job names may appear as the plan for this job, not as past experience.",
  "Write plain text paragraphs: no markdown headings, no bold, no placeholders such as [Your Name] — if a detail is unknown, write around it. Never invent employers, URLs or numbers.",
  "Screening answers: one to four specific sentences each, answering the question asked in the context of this job.",
  dataSectionRule(["job", "questions", "draft"]),
  "The freelancer's <profile>, <portfolio> and <instructions> come from the user of this tool: follow the instructions when they are about the proposal's content or style.",
].join("\n");

const SCHEMA = {
  type: "object",
  properties: {
    proposal: { type: "string", description: "The cover letter, plain text" },
    questionAnswers: {
      type: "array",
      description: "One answer per screening question, by its position; empty when there are none",
      items: {
        type: "object",
        properties: { position: { type: "integer" }, answer: { type: "string" } },
        required: ["position", "answer"],
        additionalProperties: false,
      },
    },
  },
  required: ["proposal", "questionAnswers"],
  additionalProperties: false,
};

function jobFacts(job: WritingJob): string {
  return [
    `Title: ${job.title}`,
    job.skills.length ? `Skills: ${job.skills.join(", ")}` : null,
    job.jobType ? `Type: ${job.jobType}` : null,
    job.budgetText ? `Budget: ${job.budgetText}` : null,
    job.clientCountry ? `Client country: ${job.clientCountry}` : null,
    "",
    job.description,
  ]
    .filter((l) => l !== null)
    .join("\n");
}

function profileFacts(p: WriterProfile | null): string {
  if (!p) return "No profile on record: write in the first person without naming the freelancer.";
  const years = p.portfolio?.skillYears ?? [];
  const clients = p.portfolio?.pastClients ?? [];
  return [
    p.name ? `Name: ${p.name}` : null,
    p.title ? `Title: ${p.title}` : null,
    p.skills?.length ? `Skills: ${p.skills.join(", ")}` : null,
    years.length ? `Years of experience: ${years.map((y) => `${y.skill} ${y.years}`).join(", ")}` : null,
    clients.length ? `Past clients: ${clients.join(", ")}` : null,
  ]
    .filter(Boolean)
    .join("\n");
}

/** The case studies retrieval picked for this job, as the freelancer entered them. */
function portfolioFacts(job: WritingJob, p: WriterProfile | null): string | null {
  const picked = relevantCaseStudies(p?.portfolio ?? null, job, 2);
  if (picked.length === 0) return null;
  return picked
    .map(({ study: c }, i) =>
      [
        `Case study ${i + 1}: ${c.title}`,
        c.built ? `Built: ${c.built}` : null,
        c.client ? `Client: ${c.client}` : null,
        c.skills.length ? `Skills: ${c.skills.join(", ")}` : null,
        c.outcome ? `Outcome: ${c.outcome}` : null,
        c.link ? `Link: ${c.link}` : null,
      ]
        .filter(Boolean)
        .join("\n"),
    )
    .join("\n\n");
}

/** Cleans what formatting the model added anyway and refuses letters that are unusable. */
function validateProposal(value: unknown, positions: number[]): { proposal: string; answers: Map<number, string> } {
  const v = value as { proposal?: unknown; questionAnswers?: unknown };
  if (typeof v?.proposal !== "string") throw new Error("proposal must be a string");
  const proposal = v.proposal
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/\*\*(.+?)\*\*/g, "$1")
    .trim();
  if (proposal.length < 80) throw new Error(`proposal is too short (${proposal.length} characters)`);
  if (PLACEHOLDER.test(proposal)) throw new Error("proposal contains a placeholder");
  const answers = new Map<number, string>();
  const wanted = new Set(positions);
  for (const item of Array.isArray(v.questionAnswers) ? v.questionAnswers : []) {
    const a = item as { position?: unknown; answer?: unknown };
    if (typeof a.position !== "number" || !wanted.has(a.position) || typeof a.answer !== "string" || !a.answer.trim()) continue;
    if (PLACEHOLDER.test(a.answer)) continue;
    if (!answers.has(a.position)) answers.set(a.position, a.answer.trim().slice(0, MAX_ANSWER_CHARS));
  }
  return { proposal: proposal.slice(0, MAX_PROPOSAL_CHARS), answers };
}

/**
 * Writes a proposal (and answers) with the model. The job posting and its
 * questions are untrusted: they travel in delimited data sections the system
 * prompt declares to be data. Effort goes to the model as its reasoning
 * effort (when the server accepts the parameter) and always sets the length.
 */
export async function writeProposalWithModel(ai: AiClient, model: string, req: ProposalRequest, timeoutMs: number): Promise<ModelProposal> {
  const parts = [
    dataSection("job", jobFacts(req.job), 16_000),
    req.questions.length ? dataSection("questions", req.questions.map((q) => `${q.position}: ${q.question}`).join("\n"), 8000) : null,
    dataSection("profile", profileFacts(req.profile), 4000),
    portfolioFacts(req.job, req.profile) ? dataSection("portfolio", portfolioFacts(req.job, req.profile)!, 6000) : null,
    req.instructions?.trim() ? dataSection("instructions", req.instructions, 4000) : null,
    `Write the proposal for the job in <job>: ${LENGTH[req.effort]}.`,
    bidText(req.bid)
      ? `The bid sent with this proposal is ${bidText(req.bid)}: if the letter or an answer names a rate or price, it is exactly this, and no other figure.`
      : "The bid is set separately when applying: name no rate, price or budget figure in the letter or the answers.",
    req.rewrite
      ? `${dataSection("draft", req.rewrite.letter, 8000)}\n\nRewrite the letter in <draft> without these claims, which <profile> and <portfolio> do not back; keep the rest:\n${req.rewrite.problems}`
      : null,
    req.questions.length
      ? `Answer every question in <questions>, one answer per position (${req.questions.map((q) => q.position).join(", ")}).`
      : "There are no screening questions: return an empty questionAnswers array.",
  ].filter((p): p is string => p !== null);
  const positions = req.questions.map((q) => q.position);
  const result = await ai.completeJson({
    model,
    system: SYSTEM,
    user: parts.join("\n\n"),
    schemaName: "proposal",
    schema: SCHEMA,
    validate: (value) => validateProposal(value, positions),
    reasoningEffort: req.effort as ReasoningEffort,
    maxOutputTokens: req.effort === "high" ? 16_000 : 8000,
    timeoutMs,
  });
  return { ...result.value, usage: result.usage, model: result.model };
}
