import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { listHeld, reviewHeld } from "../applications/review";
import { freelancerChoices } from "./freelancers";
import { dashboardGuard, field, HIDDEN, page, parseOffset, badOffsetPage, redirect } from "./http";
import { REVIEW_NOTICES, REVIEW_PAGE_SIZE, REVIEW_PATH, reviewPage } from "./review-views";
import { sessionAuth } from "./service";

/**
 * The dashboard's Review page: held applications approved (with the letter as edited) or discarded through
 * applications/review.ts, as the API does. An application already handled meanwhile is a notice on the list,
 * not an error page: two tabs, or Telegram and the dashboard, may answer the same one.
 */
export function dashboardReviewRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);

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

  return new Elysia({ name: "dashboard-review" })
    .get(
      REVIEW_PATH,
      async ({ request, set }) => {
        const session = await signedIn(request, set);
        if (!session) return "";
        const q = new URL(request.url).searchParams;
        const offset = parseOffset(q.get("offset") ?? undefined);
        if (offset === undefined) return badOffsetPage(set, session);
        const held = await listHeld(deps, await sessionAuth(deps, session), { limit: REVIEW_PAGE_SIZE, offset });
        const data = { ...held, offset, freelancers: await freelancerChoices(deps, session), heldCount: held.total };
        return page(set, reviewPage(session, data, REVIEW_NOTICES[q.get("done") ?? ""]));
      },
      HIDDEN,
    )
    .post(`${REVIEW_PATH}/:queueId/approve`, decide("approve"), HIDDEN)
    .post(`${REVIEW_PATH}/:queueId/discard`, decide("discard"), HIDDEN);
}
