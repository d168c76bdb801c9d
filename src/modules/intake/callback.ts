import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { AppError, userFacingServerError } from "../../errors";
import { routePolicy } from "../../http/route-policy";
import { escapeHtml } from "../../lib/html";
import { SourceError } from "../../sources/source";
import { finishMarketplaceConnect } from "./connect";

const OAUTH_CALLBACK_PATH = "/admin/oauth/callback";

function page(title: string, text: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><title>jobpilot: ${escapeHtml(title)}</title><body style="font-family:system-ui;max-width:40em;margin:4em auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}

/**
 * GET /admin/oauth/callback: where the marketplace sends the browser after the
 * user approves `jobpilot source connect marketplace`. A browser redirect cannot
 * carry the admin token, so the single-use, expiring `state` the CLI handed
 * out is what authenticates it (its policy is `public`: no admin token asked).
 */
export function oauthCallbackRoutes(deps: Deps) {
  return new Elysia().use(routePolicy).get(
    OAUTH_CALLBACK_PATH,
    async ({ query }) => {
      if (query.error) throw new AppError("bad_request", `The marketplace refused the authorisation: ${query.error_description ?? query.error}`);
      if (!query.code || !query.state) throw new AppError("bad_request", "code and state are required");
      try {
        await finishMarketplaceConnect(deps, { code: query.code, state: query.state });
      } catch (err) {
        // The token endpoint refused (bad code, bad client): the user's to fix. Anything else is the marketplace being unreachable.
        if (err instanceof AppError) throw err;
        if (err instanceof SourceError) throw new AppError("bad_request", err.message);
        deps.log.warn("oauth code exchange failed", { err: err as Error });
        throw userFacingServerError("unavailable", "Could not reach the marketplace to finish connecting; try `jobpilot source connect marketplace` again");
      }
      deps.log.info("marketplace API connected");
      return page("Connected", "jobpilot can now read the marketplace's API. You can close this tab.");
    },
    {
      policy: { public: true },
      query: t.Object({
        code: t.Optional(t.String({ maxLength: 4096 })),
        state: t.Optional(t.String({ maxLength: 256 })),
        error: t.Optional(t.String({ maxLength: 256 })),
        error_description: t.Optional(t.String({ maxLength: 2048 })),
      }),
      detail: {
        tags: ["Admin"],
        operationId: "finishMarketplaceConnect",
        summary: "OAuth2 callback of the marketplace API connection",
        description:
          "The marketplace redirects the browser here after `jobpilot source connect marketplace`; the single-use state authenticates it. Exists when JOBPILOT_MARKETPLACE_CLIENT_ID is set.",
        security: [],
        responses: {
          200: { description: "Connected: a page saying so", content: { "text/html": { schema: { type: "string" } } } },
          400: { description: "The marketplace refused, code or state is missing, or the state is unknown, used or expired" },
          503: { description: "The marketplace could not be reached to finish connecting" },
        },
      },
    },
  );
}
