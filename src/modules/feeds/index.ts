import { Elysia } from "elysia";
import { authContext } from "../../http/auth";
import { errorResponses } from "../../http/schemas";
import { notImplemented } from "../../errors";
import { CreateFeedBody, FeedDeleted, FeedEnvelope, FeedList, FeedParams, PatchFeedBody } from "./model";

const tags = ["Feeds"];

/** Feeds: saved searches plus an AI scoring profile. Implementation: issue "Feeds and the job pipeline". */
export function feedsRoutes() {
  return new Elysia({ prefix: "/api/v1/feeds" })
    .use(authContext)
    .get(
      "",
      () => {
        throw notImplemented();
      },
      { response: { 200: FeedList, ...errorResponses(401, 429, 500, 501) }, detail: { tags, summary: "List every feed on the account" } },
    )
    .post(
      "",
      () => {
        throw notImplemented();
      },
      {
        body: CreateFeedBody,
        response: { 201: FeedEnvelope, ...errorResponses(400, 401, 413, 415, 429, 500, 501) },
        detail: { tags, summary: "Create a feed", description: "title and minScore are required. Feeds match only jobs first seen after creation." },
      },
    )
    .get(
      "/:feedId",
      () => {
        throw notImplemented();
      },
      { params: FeedParams, response: { 200: FeedEnvelope, ...errorResponses(401, 404, 429, 500, 501) }, detail: { tags, summary: "Get a feed" } },
    )
    .patch(
      "/:feedId",
      () => {
        throw notImplemented();
      },
      {
        params: FeedParams,
        body: PatchFeedBody,
        response: { 200: FeedEnvelope, ...errorResponses(400, 401, 404, 413, 415, 429, 500, 501) },
        detail: { tags, summary: "Update a feed", description: "Only the provided fields change; null clears the nullable numeric filters." },
      },
    )
    .delete(
      "/:feedId",
      () => {
        throw notImplemented();
      },
      {
        params: FeedParams,
        response: { 200: FeedDeleted, ...errorResponses(401, 404, 429, 500, 501) },
        detail: { tags, summary: "Delete a feed and every job matched into it" },
      },
    );
}
