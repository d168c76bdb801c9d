import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { pathOf } from "../../http/context";
import { corsPreflights } from "../../http/cors";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import {
  AuditQuery,
  AuditSchema,
  AutomationPatch,
  AutomationQuery,
  AutomationSchema,
  ConnectsBody,
  FeedAutomationBody,
  FeedAutomationSchema,
  FeedParams,
} from "./model";
import * as automation from "./service";

const tags = ["Automation"];
const policy: RoutePolicy = { rateLimit: "default" };
/** The browser companion reads the working hours from its own origin (chrome-extension://…): GET only, as the companion routes answer it. */
const AUTOMATION_PATH = "/api/v1/automation";
const extensionReadable: RoutePolicy = { ...policy, anyOrigin: true };
/** The governor's limits, budgets and balances. */
const governs: RoutePolicy = { ...policy, permission: "automation" };
/** A feed's apply mode (and who its jobs go to) is part of the feed: the `feeds` permission, as the feed routes. */
const feedMode: RoutePolicy = { ...policy, permission: "feeds" };
/** The audit log names who did what: owners and admins only. */
const auditLog: RoutePolicy = { ...policy, permission: "audit" };

const PREFLIGHT = { methods: ["GET"], headers: ["x-api-key"] } as const;

/**
 * The GET's CORS preflight, as the companion routes answer theirs (http/cors.ts), but before routing: app.ts mounts
 * these routes inside the freelancers module, whose auth context every route there inherits, and a preflight never
 * carries a key. The route stays registered so the policy resolver knows the preflight is public.
 */
function automationPreflight() {
  return new Elysia().use(corsPreflights([AUTOMATION_PATH], PREFLIGHT)).onRequest(({ request, set }) => {
    if (request.method !== "OPTIONS" || pathOf(request.url) !== AUTOMATION_PATH) return;
    const headers: Record<string, string> = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": PREFLIGHT.methods.join(", "),
      "access-control-allow-headers": PREFLIGHT.headers.join(", "),
      "access-control-max-age": "86400",
    };
    // Chrome asks before a page talks to a server on a private address (a jobpilot at home or on a LAN).
    if (request.headers.get("access-control-request-private-network") === "true") headers["access-control-allow-private-network"] = "true";
    Object.assign(set.headers, headers);
    return new Response(null, { status: 204, headers });
  });
}

/** The account-safety governor's limits and usage, feeds' apply modes, and the audit log (extension; docs/automation.md). */
export function automationRoutes(deps: Deps) {
  return new Elysia()
    .use(automationPreflight())
    .use(authContext)
    .use(routePolicy)
    .get(AUTOMATION_PATH, ({ auth, query }) => automation.getAutomation(deps, auth, query.freelancerId), {
      policy: extensionReadable,
      query: AutomationQuery,
      response: { 200: AutomationSchema, ...errorResponses(400, 401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getAutomation",
        summary: "Limits and today's, this week's and this month's usage",
        description:
          "The effective limits (defaults, then the account's, then the freelancer's with freelancerId) and the submissions and Connects counted against them. The browser companion reads workingHours here, from its own origin: CORS for any origin (GET only; the preflight needs no key).",
      },
    })
    .patch("/api/v1/automation", ({ auth, body }) => automation.patchAutomation(deps, auth, body), {
      policy: governs,
      body: AutomationPatch,
      response: { 200: AutomationSchema, ...errorResponses(400, 401, 404, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "patchAutomation",
        summary: "Change limits (the account's, or one freelancer's)",
        description:
          "Only the fields sent change; null clears a budget or an alert, or the working hours. A bad value is a 400 naming the field, and nothing changes.",
      },
    })
    .put("/api/v1/automation/connects", ({ auth, body }) => automation.setBalance(deps, auth, body), {
      policy: governs,
      body: ConnectsBody,
      response: { 200: AutomationSchema, ...errorResponses(400, 401, 404, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "setConnectsBalance",
        summary: "Set a freelancer's available Connects by hand",
        description: "Drivers that read the balance off the apply page (the companion, the sandbox) keep it up to date themselves.",
      },
    })
    .get("/api/v1/automation/feeds/:feedId", ({ auth, params }) => automation.getFeedAutomation(deps, auth, params.feedId), {
      policy,
      params: FeedParams,
      response: { 200: FeedAutomationSchema, ...errorResponses(401, 404, 429, 500) },
      detail: {
        tags,
        operationId: "getFeedAutomation",
        summary: "A feed's apply mode",
        description: "alert (notify only), draft or auto, with its thresholds.",
      },
    })
    .put("/api/v1/automation/feeds/:feedId", ({ auth, params, body }) => automation.putFeedAutomation(deps, auth, params.feedId, body), {
      policy: feedMode,
      params: FeedParams,
      body: FeedAutomationBody,
      response: { 200: FeedAutomationSchema, ...errorResponses(400, 401, 404, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "putFeedAutomation",
        summary: "Set a feed's apply mode",
        description:
          "draft writes the letter for each new match above the thresholds and waits for one-click approval; auto sends it within the budget and the governor's limits, and needs working hours and a Connects budget set first (400 otherwise). The spec's feed endpoints never change these.",
      },
    })
    .get(
      "/api/v1/audit",
      ({ auth, query }) =>
        automation.listAudit(deps, auth, {
          limit: query.limit ?? 50,
          offset: query.offset ?? 0,
          freelancerId: query.freelancerId,
          memberId: query.memberId,
        }),
      {
        policy: auditLog,
        query: AuditQuery,
        response: { 200: AuditSchema, ...errorResponses(400, 401, 429, 500) },
        detail: {
          tags,
          operationId: "listAudit",
          summary: "What automation did, newest first",
          description:
            "Every automated action — submitted, put off, held, refused, drafted, skipped — and every change a person made (sign-ins, members, keys, approvals), with who did it, the freelancer, the application and the rule that decided it. Kept 90 days.",
        },
      },
    );
}
