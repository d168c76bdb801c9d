/**
 * The contract between jobpilot and the browser companion extension: the tasks
 * it is handed on GET /api/v1/companion/tasks and the outcomes it POSTs back.
 * The extension (extension/) implements this side; the server turns what the
 * page showed into the spec's statuses (pageOutcome below), so the mapping
 * lives in one place and the extension only reports facts.
 *
 * Task bodies are the bridge driver's operations (remote/operations.ts), so
 * one code path builds them; a submit also says the account's mode.
 */
import { t, type Static } from "elysia";
import { COMPANION_MODES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import type { SubmitOutcome } from "../driver";
import {
  EngagementOperation,
  EngagementReply,
  FreelancersOperation,
  FreelancersReply,
  LookupOperation,
  ReconnectOperation,
  ReconnectReply,
  ReportedBalance,
  ReportedConnects,
  reportedConnects,
  SubmitOperation,
} from "../remote/operations";

export { COMPANION_KEY_LABEL } from "../driver";

export const CompanionModeSchema = literalUnion(COMPANION_MODES, {
  description: "review: the extension fills the form and waits for your click; auto: it clicks submit itself (opt-in)",
});

/** The warning auto mode is switched on under (the dashboard shows the same text beside its checkbox). */
export const AUTO_MODE_WARNING =
  "In auto mode the extension clicks submit in your browser without asking you. Automating the marketplace's website may break its terms of service; you act on your own account and at your own risk.";

const taskId = t.String({ description: "Send it back in the outcome URL" });

/** A proposal.submit task: the bridge's body plus the account's mode and how long a filled form may wait for review. */
export const SubmitTaskOperation = t.Composite([
  SubmitOperation,
  t.Object({
    mode: CompanionModeSchema,
    reviewTimeoutMs: t.Integer({ description: "Review mode: stop waiting for the click after this long and report page: not_reviewed" }),
  }),
]);

/** One task handed to the extension. `operation.type` says which of the five it is. */
export const CompanionTask = t.Union([
  t.Object({ taskId, operation: SubmitTaskOperation }),
  t.Object({ taskId, operation: LookupOperation }),
  t.Object({ taskId, operation: EngagementOperation }),
  t.Object({ taskId, operation: FreelancersOperation }),
  t.Object({ taskId, operation: ReconnectOperation }),
]);
export type CompanionTask = Static<typeof CompanionTask>;

const note = t.Optional(t.String({ maxLength: 2000, description: "What the page said, in its words" }));
const pageUrl = t.Optional(t.String({ maxLength: 2048, description: "The tab's address when the outcome was read" }));

/**
 * What the apply page showed at the end of a proposal.submit: facts, not statuses.
 * The server maps them (pageOutcome): submitted → applied (with the Connects it cost and those left, when the form showed them), login_redirect → logged_out,
 * job_unavailable → not_available, not_eligible → not_eligible, not_enough_connects → not_enough_connects,
 * not_reviewed → failed "not reviewed", unrecognised → failed with the message (the visible text is kept for diagnosis).
 */
export const PageOutcome = t.Union([
  // What the form said submitting costs ("Required Connects to submit") and the boost bid it sent, when the page showed them;
  // connectsAvailable: its "Available Connects" less what this proposal cost.
  t.Object({ page: t.Literal("submitted"), message: note, url: pageUrl, ...ReportedConnects, ...ReportedBalance }),
  t.Object({ page: t.Literal("login_redirect"), message: note, url: pageUrl }),
  t.Object({ page: t.Literal("job_unavailable"), message: note, url: pageUrl }),
  t.Object({ page: t.Literal("not_eligible"), message: note, url: pageUrl }),
  t.Object({
    page: t.Literal("not_enough_connects"),
    required: t.Integer({ minimum: 0, description: "Connects this proposal needs (job cost + boost)" }),
    available: t.Integer({ minimum: 0, description: "Connects the freelancer has" }),
    message: note,
    url: pageUrl,
  }),
  t.Object({ page: t.Literal("not_reviewed"), url: pageUrl }),
  t.Object({
    page: t.Literal("unrecognised"),
    message: t.String({ minLength: 1, maxLength: 2000, description: "The error text the page showed, or what the extension expected and did not find" }),
    visibleText: t.String({ maxLength: 65_536, description: "The page's visible text (document.body.innerText), kept for diagnosis" }),
    url: pageUrl,
  }),
]);
export type PageOutcome = Static<typeof PageOutcome>;

/**
 * proposal.lookup: did this application reach the marketplace? The extension checks its ledger of submitted
 * application ids and the "my proposals" page. found → applied; none → nothing was sent (safe to submit);
 * ended → the ledger holds what the page showed on an attempt that did not submit; unknown → cannot tell.
 */
export const LookupResult = t.Union([
  t.Object({ lookup: t.Literal("found"), message: note }),
  t.Object({ lookup: t.Literal("none") }),
  t.Object({ lookup: t.Literal("ended"), page: PageOutcome }),
  t.Object({ lookup: t.Literal("unknown"), message: note }),
]);
export type LookupResult = Static<typeof LookupResult>;

/** The body of POST /api/v1/companion/tasks/:taskId/outcome: the task's type and its result. */
export const CompanionOutcome = t.Union([
  t.Object({ type: t.Literal("proposal.submit"), result: PageOutcome }),
  t.Object({ type: t.Literal("proposal.lookup"), result: LookupResult }),
  t.Object({ type: t.Literal("proposal.engagement"), result: EngagementReply }),
  t.Object({ type: t.Literal("freelancers.list"), result: FreelancersReply }),
  t.Object({ type: t.Literal("session.reconnect"), result: ReconnectReply }),
]);
export type CompanionOutcome = Static<typeof CompanionOutcome>;

/** The body of POST /api/v1/companion/tasks/:taskId/review: the form is filled and waits for the user's click (review mode). */
export const CompanionReview = t.Object({
  reviewUrl: t.Optional(
    t.String({
      maxLength: 2048,
      pattern: "^(https?|chrome-extension|moz-extension)://",
      description: "A link the dashboard shows; opening it must bring the tab with the filled form to the front (the extension handles it)",
    }),
  ),
});

export const NOT_REVIEWED =
  "Not reviewed: the filled proposal form waited for your click longer than JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS; nothing was submitted";

const clip = (text: string | undefined) => text?.trim().slice(0, 1000) || undefined;

/** What the page showed, as the spec's status and a sentence for the user. `taskId` names where the visible text is kept. */
export function pageOutcome(page: PageOutcome, taskId: string): SubmitOutcome {
  switch (page.page) {
    case "submitted": {
      const connects = reportedConnects("applied", page);
      const balance = page.connectsAvailable === undefined ? {} : { connectsAvailable: page.connectsAvailable };
      return {
        status: "applied",
        message: clip(page.message) ?? "The proposal was submitted from your browser",
        ...(connects ? { connects } : {}),
        ...balance,
      };
    }
    case "login_redirect":
      return { status: "logged_out", message: `The marketplace asked your browser to log in${page.message ? `: ${clip(page.message)}` : ""}` };
    case "job_unavailable":
      return { status: "not_available", message: clip(page.message) ?? "The job is no longer available" };
    case "not_eligible":
      return { status: "not_eligible", message: clip(page.message) ?? "The freelancer is not eligible for this job" };
    case "not_enough_connects":
      return {
        status: "not_enough_connects",
        message: `Not enough Connects: this proposal needs ${page.required}, ${page.available} available${page.message ? ` (${clip(page.message)})` : ""}`,
        // Nothing was spent: what the page said is available is the balance.
        connectsAvailable: page.available,
      };
    case "not_reviewed":
      return { status: "failed", message: NOT_REVIEWED };
    case "unrecognised":
      return {
        status: "failed",
        // A person reads this on the dashboard: it names the task (where the page's text is kept), not an API path.
        message: `The apply page showed something the companion did not recognise: ${clip(page.message)} (the page's text is kept with companion task ${taskId})`,
      };
  }
}
