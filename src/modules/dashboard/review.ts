import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { listHeld, requestApprovalAgain, reviewHeld, sendBack } from "../applications/review";
import { freelancerChoices } from "./freelancers";
import { dashboardGuard, field, HIDDEN, needs, page, parseOffset, badOffsetPage, redirect } from "./http";
import { findAccountApplication } from "../applications/repo";
import { type Answer, blankAnswer, slotsLeft } from "../applications/fill-in";
import { jobOfApplication } from "../applications/service";
import { answerField, answerLabel, LETTER_LABEL, REVIEW_NOTICES, REVIEW_PAGE_SIZE, REVIEW_PATH, type ReviewFormError, reviewPage } from "./review-views";
import type { DashboardSession } from "./model";
import { sessionAuth } from "./service";
import { errorPage } from "./views";

/** The screening answers an approve form posted (`answer_<position>`), in position order. */
function postedAnswers(body: unknown): Answer[] {
  const out: Answer[] = [];
  if (body === null || typeof body !== "object") return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const m = /^answer_(\d{1,6})$/.exec(k);
    if (m && typeof v === "string") out.push({ position: Number(m[1]), answer: v });
  }
  return out.sort((a, b) => a.position - b.position);
}

/**
 * The dashboard's Review page: held applications approved (with the letter as edited), sent back to their drafter
 * with a comment, or discarded, and a bidder's returned draft asked for again, through applications/review.ts as the
 * API does. An application already handled meanwhile is a notice on the list, not an error page: two tabs, or
 * Telegram and the dashboard, may answer the same one.
 */
export function dashboardReviewRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

  /** The list (a page of it), with a notice, or with one form's error next to its field (status 400). */
  async function listPage(
    set: Parameters<typeof page>[0],
    session: DashboardSession & { heldCount?: number },
    offset: number,
    notice?: string,
    error?: ReviewFormError,
  ): Promise<string> {
    const held = await listHeld(deps, await sessionAuth(deps, session), { limit: REVIEW_PAGE_SIZE, offset });
    const data = { ...held, offset, freelancers: await freelancerChoices(deps, session), heldCount: session.heldCount ?? held.total };
    return page(set, reviewPage(session, data, notice, error), error ? 400 : 200);
  }

  /** A conflict (handled meanwhile) or not found (another account's) as the list's notice; anything else is thrown on. */
  function handledMeanwhile(set: Parameters<typeof page>[0], err: unknown): string {
    if (err instanceof AppError && err.code === "conflict") return redirect(set, `${REVIEW_PATH}?done=gone`);
    if (err instanceof AppError && err.code === "not_found") return redirect(set, `${REVIEW_PATH}?done=missing`);
    throw err;
  }

  /**
   * An approval whose letter or answers still have a "[your …]" slot, or an answer emptied, refused before anything changes: each message
   * next to its field, in its label's words (the answer's question), with what was typed shown again.
   */
  async function slotRefusal(session: DashboardSession, queueId: string, letter: string | undefined, answers: Answer[]): Promise<ReviewFormError | null> {
    const slots = slotsLeft(letter ?? "", answers);
    const blank = blankAnswer(answers);
    if (slots.length === 0 && blank === null) return null;
    const app = await findAccountApplication(deps.db, session.accountId, queueId);
    if (!app) return null; // another account's: reviewHeld says not found
    const questions = new Map((await jobOfApplication(deps.db, app)).job.screeningQuestions.map((q) => [q.position, q.question]));
    const labelOf = (position: number) => answerLabel({ question: questions.get(position) ?? null, position });
    const fields: Record<string, string> = {};
    for (const { slot, answer } of slots) {
      const label = answer === null ? LETTER_LABEL : labelOf(answer.position);
      fields[answer === null ? "coverLetter" : answerField(answer.position)] = `${label}: replace “${slot}” with what is true before approving.`;
    }
    if (blank) fields[answerField(blank.position)] = `${labelOf(blank.position)}: write the answer before approving; it cannot be left blank.`;
    const typed = Object.fromEntries([...(letter === undefined ? [] : [["coverLetter", letter]]), ...answers.map((a) => [answerField(a.position), a.answer])]);
    return { queueId, fields, typed };
  }

  const decide =
    (decision: "approve" | "discard") =>
    async ({ request, set, body, params }: { request: Request; set: Parameters<typeof page>[0]; body: unknown; params: { queueId: string } }) => {
      const session = await open(request, set, body);
      if (typeof session === "string") return session;
      const letter = field(body, "coverLetter");
      if (decision === "approve" && letter !== undefined && letter.trim() === "") return redirect(set, `${REVIEW_PATH}?done=empty`);
      const answers = decision === "approve" ? postedAnswers(body) : [];
      const refused = decision === "approve" ? await slotRefusal(session, params.queueId, letter, answers) : null;
      if (refused) return listPage(set, session, 0, undefined, refused);
      const edit = { ...(letter === undefined ? {} : { coverLetter: letter }), ...(answers.length > 0 ? { questionAnswers: answers } : {}) };
      try {
        await reviewHeld(deps, await sessionAuth(deps, session), params.queueId, decision, edit);
      } catch (err) {
        if (err instanceof AppError && err.code === "conflict") return redirect(set, `${REVIEW_PATH}?done=gone`);
        if (err instanceof AppError && err.code === "not_found") return redirect(set, `${REVIEW_PATH}?done=missing`);
        // Anything else refused (an answer not posted that still has a slot): said above the list, nothing changed.
        if (err instanceof AppError && err.code === "bad_request")
          return listPage(set, session, 0, undefined, { queueId: params.queueId, fields: { form: err.message }, typed: {} });
        throw err;
      }
      return redirect(set, `${REVIEW_PATH}?done=${decision === "approve" ? "approved" : "discarded"}`);
    };

  return (
    new Elysia({ name: "dashboard-review" })
      .get(
        REVIEW_PATH,
        async ({ request, set }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          const q = new URL(request.url).searchParams;
          const offset = parseOffset(q.get("offset") ?? undefined);
          if (offset === undefined) return badOffsetPage(set, session);
          return listPage(set, session, offset, REVIEW_NOTICES[q.get("done") ?? ""]);
        },
        HIDDEN,
      )
      // Send back with a comment (required: its error is shown next to the field, with the list around it).
      .post(
        `${REVIEW_PATH}/:queueId/send-back`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          const comment = field(body, "comment") ?? "";
          if (comment.trim() === "") {
            const fields = { comment: "Comment: say what should change before sending it back." };
            return listPage(set, session, 0, undefined, { queueId: params.queueId, fields, typed: { comment } });
          }
          try {
            await sendBack(deps, await sessionAuth(deps, session), params.queueId, comment);
          } catch (err) {
            return handledMeanwhile(set, err);
          }
          return redirect(set, `${REVIEW_PATH}?done=returned`);
        },
        needs("approve"),
      )
      // The drafter asks again, with the letter as they edited it.
      .post(
        `${REVIEW_PATH}/:queueId/request-approval`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          const letter = field(body, "coverLetter");
          if (letter !== undefined && letter.trim() === "") return redirect(set, `${REVIEW_PATH}?done=empty`);
          try {
            await requestApprovalAgain(deps, await sessionAuth(deps, session), params.queueId, letter === undefined ? {} : { coverLetter: letter });
          } catch (err) {
            if (err instanceof AppError && err.code === "forbidden") return page(set, errorPage("Not allowed", err.message, session), 403);
            return handledMeanwhile(set, err);
          }
          return redirect(set, `${REVIEW_PATH}?done=requested`);
        },
        needs("draft"),
      )
      .post(`${REVIEW_PATH}/:queueId/approve`, decide("approve"), needs("approve"))
      .post(`${REVIEW_PATH}/:queueId/discard`, decide("discard"), needs("approve"))
  );
}
