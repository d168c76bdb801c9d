import { automationRoutes } from "./modules/automation";
import { oauthCallbackRoutes } from "./modules/intake/callback";
import { captureRoutes } from "./modules/capture/index";
import { pairingRoutes } from "./modules/companion/index";
import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Deps } from "./deps";
import { apiReference } from "./http/api-reference";
import { auth } from "./http/auth";
import { allowedMethodsFrom, createErrorHandler } from "./http/error-handler";
import { bodyShape } from "./http/body-shape";
import { jsonBody } from "./http/json-body";
import { rateLimit } from "./http/rate-limit";
import { requestContext } from "./http/request-context";
import { resolveRoutePolicy } from "./http/route-policy";
import { authenticate, authenticateNow } from "./modules/accounts/service";
import { authorizeCaller, withMember, withMemberNow } from "./modules/members/caller";
import { accountAdminRoutes, accountRoutes } from "./modules/accounts/index";
import { membersRoutes } from "./modules/members/index";
import { applicationsRoutes } from "./modules/applications/index";
import { clientsRoutes } from "./modules/clients/index";
import { dashboardRoutes } from "./modules/dashboard/index";
import { feedsRoutes } from "./modules/feeds/index";
import { channelsRoutes } from "./modules/channels/index";
import { channelTestRoutes, deliveriesRoutes } from "./modules/delivery/index";
import { telegramRoutes } from "./modules/telegram/index";
import { webhookReference } from "./modules/delivery/reference";
import { freelancersRoutes } from "./modules/freelancers/index";
import { jobsAdminRoutes } from "./modules/intake/index";
import { archiveRoutes } from "./modules/archive/index";
import { proposalsRoutes } from "./modules/proposals/index";
import { analyticsRoutes } from "./modules/analytics/index";
import { valueRoutes } from "./modules/value/index";
import { experimentsRoutes } from "./modules/experiments/index";
import { sandboxAdminRoutes } from "./marketplace/sandbox/admin";
import { sandboxSiteRoutes } from "./marketplace/sandbox/site/index";
import { configuredSourceNames } from "./modules/intake/registry";
import { bridgeCallbackRoutes } from "./marketplace/bridge/callback";
import { companionRoutes } from "./modules/companion/tasks";
import { healthRoutes, metricsRoutes, readinessRoutes } from "./modules/monitoring/index";
import { mcpRoutes } from "./modules/mcp/index";
import { sameSecret } from "./lib/same-secret";
import type { AuthContext } from "./modules/accounts/service";

/**
 * How `serve` listens. Bun answers a declared body over its own
 * maxRequestBodySize with an empty 413 before the app sees the request, so
 * Bun's cap is put out of reach and ours is the only one: the Content-Length
 * check before routing and the capped reader in the body parser (which also
 * stops chunked bodies) both answer the JSON 413.
 */
export function listenOptions(config: Pick<Config, "host" | "port">) {
  return { hostname: config.host, port: config.port, maxRequestBodySize: Number.MAX_SAFE_INTEGER };
}

/**
 * The sandbox marketplace is in use: it is the default driver (JOBPILOT_MARKETPLACE_DRIVER=sandbox, or unset,
 * where unpaired accounts use it), or JOBPILOT_SOURCES polls it.
 */
export function isSandboxOn(config: Config): boolean {
  return (config.marketplaceDriver ?? "sandbox") === "sandbox" || configuredSourceNames(config).includes("sandbox");
}

export interface AppOptions {
  /**
   * A caller this process vouches for itself: requests presenting `token` as their key act for `caller`.
   * For an app that never listens and only answers its own process (`jobpilot mcp --db --account`), which
   * acts for an account without holding one of its keys; the token is random and never leaves memory.
   */
  localCaller?: { token: string; caller: AuthContext };
}

/**
 * Builds the HTTP app. It never listens: main.ts does, and tests call
 * app.handle(new Request(...)). Order matters: the request id, the route's
 * policy (declared by each module with its routes), auth and rate limit run
 * before routing (onRequest), then the body parser, then routes.
 */
export function createApp(deps: Deps, options: AppOptions = {}) {
  // encodeSchema off: no response schema uses t.Transform, and encoding every response is a share of each request (docs/performance.md, 'Why the code is as it is').
  const app = new Elysia({ normalize: true, encodeSchema: false });
  const handleError = createErrorHandler(
    deps,
    allowedMethodsFrom(() => app.routes),
  );
  // The caller of an API key; each use is noted for `key list` (written behind, see KeyUsage).
  const { localCaller } = options;
  const isLocalCaller = (presented: string | null) => !!localCaller && presented !== null && sameSecret(presented, localCaller.token);
  const used = <T extends AuthContext | null | undefined>(found: T): T => {
    if (found) deps.keyUsage.touch(found.keyId, deps.clock.now());
    return found;
  };
  const callerOf = async (presented: string | null) =>
    isLocalCaller(presented) ? localCaller!.caller : used(await withMember(deps.db, await authenticate(deps, presented)));
  const callerNow = (presented: string | null) =>
    isLocalCaller(presented) ? localCaller!.caller : used(withMemberNow(deps.db, authenticateNow(deps, presented)));
  return (
    app
      // Destructured on purpose: Elysia reads which context fields a hook uses, and a hook taking the whole
      // context makes it parse cookies and query strings on every request.
      .onError({ as: "global" }, ({ code, error, request, set }) => handleError({ code, error, request, set: set as Parameters<typeof handleError>[0]["set"] }))
      .use(requestContext(deps))
      .use(resolveRoutePolicy(() => app.routes))
      .use(auth({ authenticate: callerOf, authenticateNow: callerNow, authorize: authorizeCaller, adminToken: deps.config.adminToken }))
      .use(rateLimit(deps))
      .use(jsonBody(deps))
      .use(bodyShape(() => app.routes))
      .use(
        apiReference({
          info: {
            title: "jobpilot — job auto-apply, feed and data service",
            version: "2.0.0",
            description:
              "Self-hosted implementation of the Job Auto-Apply, Feed and Data Service Interface 2.0.0. " +
              "Every /api route takes the `x-api-key` header. Errors are `{ error }` (validation errors on feeds add `details`). " +
              "Every authenticated /api response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds); " +
              "over the limit: 429 with Retry-After. Every response carries x-request-id. A method a path does not serve is answered 405 " +
              "with an `Allow` header naming the methods it does. Request bodies are JSON only (415 otherwise). " +
              "Routes marked (extension) are jobpilot additions to the spec.",
            // The project names no license yet: no rights are granted beyond using the API of your own installation.
            // No SPDX-listed licence says that, so the identifier is SPDX's form for terms outside the list
            // (client generators such as orval refuse a license with neither identifier nor url).
            license: { name: "UNLICENSED", identifier: "LicenseRef-UNLICENSED" },
            contact: { name: "jobpilot", url: "https://github.com/jobpilot" },
          },
          servers: [
            {
              url: deps.config.publicUrl ? deps.config.publicUrl.replace(/\/+$/, "") : "/",
              description: deps.config.publicUrl ? "This server (JOBPILOT_PUBLIC_URL)" : "The server that served this document",
            },
          ],
          tags: [
            { name: "Feeds", description: "Saved searches with an AI scoring profile" },
            { name: "Channels", description: "Telegram, Slack, Discord, ntfy and e-mail destinations for feed alerts (extension)" },
            { name: "Auto-apply", description: "Queue proposals, poll status, list applied jobs" },
            { name: "Proposals", description: "AI cover letters and screening answers" },
            { name: "Freelancers", description: "Freelancers and profiles linked to the account" },
            { name: "Jobs", description: "Archived job documents" },
            { name: "Analytics", description: "What the account's own data says: speed to lead (extension)" },
            { name: "Experiments", description: "Randomized tests of letters, bids, boosts and send delays on the account's proposals (extension)" },
            {
              name: "Automation",
              description: "The account-safety governor's limits and usage, Connects balances, feeds' apply modes and the audit log (extension)",
            },
            { name: "Clients", description: "Buyer records" },
            { name: "Account", description: "The calling key's account (extension)" },
            { name: "Members", description: "The account's members, their roles and API keys, and the team's settings (extension)" },
            { name: "Admin", description: "Operator routes; need JOBPILOT_ADMIN_TOKEN (extension)" },
            { name: "Bridge", description: "Callback for the bridge marketplace driver; signed, no API key (extension)" },
            { name: "Companion", description: "The browser companion extension's tasks, outcomes and settings (companion driver; extension)" },
            { name: "Health", description: "Liveness and database status" },
            { name: "Webhooks", description: "What jobpilot POSTs to a feed's webhookUrl (extension)" },
            { name: "MCP", description: "Model Context Protocol for AI assistants (extension)" },
          ],
          components: {
            // The payload jobpilot POSTs to feed webhook URLs (see `webhooks`).
            schemas: webhookReference.schemas,
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "Create keys with `jobpilot key create --account ID`." },
              adminToken: { type: "http", scheme: "bearer", description: "JOBPILOT_ADMIN_TOKEN" },
              metricsToken: { type: "http", scheme: "bearer", description: "JOBPILOT_METRICS_TOKEN (GET /metrics)" },
              apiKeyBearer: {
                type: "http",
                scheme: "bearer",
                description: "An API key as a bearer token, where a route takes it so (POST /mcp, as MCP clients send it).",
              },
            },
          },
          security: [{ apiKey: [] }],
          webhooks: webhookReference.webhooks,
        }),
      )
      .use(healthRoutes(deps))
      .use(readinessRoutes(deps))
      .use(deps.config.metricsEnabled ? metricsRoutes(deps, (request) => app.server?.requestIP(request)?.address) : new Elysia())
      .use(feedsRoutes(deps))
      .use(channelsRoutes(deps))
      .use(channelTestRoutes(deps))
      .use(telegramRoutes(deps))
      .use(deliveriesRoutes(deps))
      .use(applicationsRoutes(deps))
      // Nested rather than chained: one more link in this chain takes TypeScript past its instantiation depth.
      .use(proposalsRoutes(deps).use(analyticsRoutes(deps)).use(experimentsRoutes(deps)))
      .use(freelancersRoutes(deps).use(automationRoutes(deps)))
      // Nested for the same reason as proposals above.
      .use(archiveRoutes(deps).use(valueRoutes(deps)))
      .use(captureRoutes(deps))
      .use(pairingRoutes(deps))
      .use(clientsRoutes(deps))
      .use(accountRoutes(deps).use(membersRoutes(deps)))
      .use(dashboardRoutes(deps))
      .use(deps.config.adminToken ? accountAdminRoutes(deps) : new Elysia())
      .use(deps.config.adminToken ? jobsAdminRoutes(deps) : new Elysia())
      .use(deps.config.adminToken ? sandboxAdminRoutes(deps) : new Elysia())
      // The sandbox marketplace's website, while the sandbox is in use (as the default driver or a polled source).
      .use(isSandboxOn(deps.config) ? sandboxSiteRoutes({ ...deps, config: { ...deps.config, secretKey: deps.config.secretKey ?? null } }) : new Elysia())
      .use(bridgeCallbackRoutes(deps, deps.drivers.bridge))
      .use(companionRoutes(deps))
      .use(deps.config.marketplaceClientId ? oauthCallbackRoutes(deps) : new Elysia())
      .use(mcpRoutes(deps, (request) => app.handle(request)))
  );
}
