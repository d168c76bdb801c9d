import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { FunnelQuery, FunnelResponse, LedgerQuery, SpeedQuery, SpeedResponse } from "./model";
import { funnelAnalytics, ledgerCsv, speedToLead } from "./service";

const encoder = new TextEncoder();

/** The ledger's chunks as a response body: pulled one page at a time, as the client reads. */
function csvStream(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** What the account's own data says about how it works the market (extension). */
export function analyticsRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get("/api/v1/analytics/speed", ({ auth, query }) => speedToLead(deps, auth, query), {
      policy: { rateLimit: "default" },
      query: SpeedQuery,
      response: { 200: SpeedResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags: ["Analytics"],
        operationId: "getSpeedToLead",
        summary: "Speed to lead: publish → first seen, scored, alerted, drafted, submitted",
        description:
          "Extension. For each job this account was alerted about (a delivered alert) or applied to: the time from the job's publish time to when jobpilot first archived it, scored it into a feed, first delivered its alert (per target, and the first of all), when the account first generated a letter for it, and when its application was submitted. Each stage gives p50/p90/p99 in ms (nearest rank) and the count of jobs it is computed over; a job in several feeds counts its earliest. feedId narrows to one of the caller's feeds (404 otherwise), source to jobs archived from that source, from/to (unix ms) bound the publish time. Only the caller's own data.",
      },
    })
    .get("/api/v1/analytics/funnel", ({ auth, query }) => funnelAnalytics(deps, auth, query), {
      policy: { rateLimit: "default" },
      query: FunnelQuery,
      response: { 200: FunnelResponse, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags: ["Analytics"],
        operationId: "getFunnelAnalytics",
        summary: "What wins: sent → viewed → replied → interview → hired, split by feed, score, post age, bid, …",
        description:
          "Extension. Counts over the caller's sent proposals (status applied), by send time: from inclusive, to exclusive (Unix ms). A later stage implies the earlier ones; a hire later lost still counts as a hire. Rates come with Wilson 95 % intervals, and only for groups with at least 10 sent (enough: false and null rates below that). groupBy splits by feed (the feed applied from, or the best-scoring match at apply time), freelancer, member (who drafted it, else who sent it; none: an API key of no member or automation; each group adds medianReplyMs, sent → first reply), source, scoreBand (0-2 … 9-10, unscored), postAge (sent − published: <15m, 15-60m, 1-6h, >6h, unknown), bidRatio (bid ÷ budget: <0.8, 0.8-1.0, 1.0-1.2, >1.2, unknown), boost (boosted / not boosted) or weekday (of the send time, UTC unless tz names an IANA zone). groupBy=scoreBand adds a minScore suggestion when the low bands are clearly worse (docs/analytics.md). feedId: only applications credited to that feed of the caller (404 otherwise). Costs use JOBPILOT_CONNECT_PRICE_USD.",
      },
    })
    .get(
      "/api/v1/analytics/ledger.csv",
      async ({ auth, query }) =>
        new Response(csvStream(await ledgerCsv(deps, auth, query)), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": 'attachment; filename="jobpilot-ledger.csv"',
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        }),
      {
        policy: { rateLimit: "default" },
        query: LedgerQuery,
        response: errorResponses(400, 401, 404, 429, 500),
        detail: {
          tags: ["Analytics"],
          operationId: "getOutcomeLedgerCsv",
          summary: "The outcome ledger as CSV: one row per sent proposal",
          description:
            "Extension. RFC 4180 CSV (CRLF line ends, a header row), oldest proposal first, streamed. Columns: queueId, sentAt, jobTitle, jobUrl, source, feed, freelancer, score, postAgeMinutes, bidRatio, boosted, viewedAt, repliedAt, interviewAt, hiredAt, outcome, outcomeAt, valueUsd, connectsRequired, boostConnects, connectsCostUsd (times ISO 8601 UTC). A text cell starting with = + - @ gets a leading ' so a spreadsheet does not run it. from/to/feedId as for the funnel.",
          responses: {
            200: {
              description: "The ledger",
              headers: { "content-disposition": { schema: { type: "string" }, description: 'attachment; filename="jobpilot-ledger.csv"' } },
              content: { "text/csv": { schema: { type: "string" } } },
            },
          },
        },
      },
    );
}
