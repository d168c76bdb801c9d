import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { listHeld, requestApprovalAgain, reviewHeld, sendBack } from "../applications/review";
import { freelancerChoices } from "./freelancers";
import { dashboardGuard, field, HIDDEN, needs, page, parseOffset, badOffsetPage, redirect } from "./http";
import { REVIEW_NOTICES, REVIEW_PAGE_SIZE, REVIEW_PATH, type ReviewFormError, reviewPage } from "./review-views";
import type { DashboardSession } from "./model";
import { sessionAuth } from "./service";
import { errorPage } from "./views";

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
    error?: { form: ReviewFormError; typed?: string },
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

  const decide =
    (decision: "approve" | "discard") =>
    async ({ request, set, body, params }: { request: Request; set: Parameters<typeof page>[0]; body: unknown; params: { queueId: string } }) => {
      const session = await open(request, set, body);
      if (typeof session === "string") return session;
      const letter = field(body, "coverLetter");
      if (decision === "approve" && letter !== undefined && letter.trim() === "") return redirect(set, `${REVIEW_PATH}?done=empty`);
      try {
        await reviewHeld(deps, await sessionAuth(deps, session), params.queueId, decision, letter === undefined ? {} : { coverLetter: letter });
      } catch (err) {
        if (err instanceof AppError && err.code === "conflict") return redirect(set, `${REVIEW_PATH}?done=gone`);
        if (err instanceof AppError && err.code === "not_found") return redirect(set, `${REVIEW_PATH}?done=missing`);
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
            const form: ReviewFormError = { queueId: params.queueId, field: "comment", message: "Comment: say what should change before sending it back." };
            return listPage(set, session, 0, undefined, { form, typed: comment });
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
