import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { extensionZip } from "./extension-zip";
import { CompanionKeyState, PAIR_PATH, PAIR_STATE_PATH, PairBody, PairResult } from "./model";
import { companionKeyState, exchangePairingCode } from "./service";

/** The extension calls from its own origin (chrome-extension://…); the code in the body is the only credential. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "86400",
} as const;

/** Pairing a browser companion (POST /api/v1/companion/pair) and its download (GET /extension.zip). */
export function pairingRoutes(deps: Deps) {
  return new Elysia()
    .use(routePolicy)
    .options(
      PAIR_PATH,
      ({ set }) => {
        set.status = 204;
        Object.assign(set.headers, CORS);
        return "";
      },
      { policy: { public: true }, detail: { hide: true } },
    )
    .post(
      PAIR_PATH,
      async ({ body, set }) => {
        set.headers["access-control-allow-origin"] = "*";
        set.status = 201;
        return exchangePairingCode(deps, body.code);
      },
      {
        policy: { public: true, anyOrigin: true },
        body: PairBody,
        response: { 201: PairResult, ...errorResponses(400, 404, 409, 413, 415) },
        detail: {
          tags: ["Account"],
          operationId: "pairCompanion",
          summary: "(extension) Exchange a one-time pairing code for the browser companion's API key",
          description:
            'No API key: the code is the credential. It works once and for 10 minutes. The new key is labelled "browser companion". 404 for an unknown, used or expired code; 409 when the account has as many keys as it may.',
          security: [],
        },
      },
    )
    .options(
      PAIR_STATE_PATH,
      ({ set }) => {
        set.status = 204;
        Object.assign(set.headers, { ...CORS, "access-control-allow-methods": "GET", "access-control-allow-headers": "x-api-key" });
        return "";
      },
      { policy: { public: true }, detail: { hide: true } },
    )
    .get(
      PAIR_STATE_PATH,
      ({ request, set }) => {
        set.headers["access-control-allow-origin"] = "*";
        return companionKeyState(deps, request.headers.get("x-api-key"));
      },
      {
        // Public: a revoked key would get the auth plugin's 401; the route reads the key itself.
        policy: { public: true, anyOrigin: true },
        response: { 200: CompanionKeyState, ...errorResponses(404) },
        detail: {
          tags: ["Account"],
          operationId: "companionKeyState",
          summary: "(extension) Why a companion's key is refused: replaced by a newer pairing, or revoked",
          description:
            "Send the key in x-api-key, revoked or not. 404 for a key this server does not know. The extension asks after a 401, so its options page can say it was replaced.",
        },
      },
    )
    .get(
      "/extension.zip",
      async ({ set }) => {
        const zip = await extensionZip();
        if (!zip) {
          set.status = 404;
          return { error: "The browser companion was not built into this server: run `bun run build:extension` (the compiled binary always carries it)" };
        }
        return new Response(zip, {
          headers: { "content-type": "application/zip", "content-disposition": 'attachment; filename="jobpilot-companion.zip"', "cache-control": "no-cache" },
        });
      },
      { detail: { hide: true }, policy: { public: true } },
    );
}
