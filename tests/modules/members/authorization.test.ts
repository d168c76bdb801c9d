/**
 * Authorization as one table: every route that takes an API key, every dashboard form and every MCP tool, for
 * every role, with the account's "bidders may send" setting off and on, and another account's resources. The
 * routes come from `app.routes`, so a route added later is in the table without anyone listing it here; what a
 * route needs is what it declares (http/auth.ts permissionOf), and whether a role has it is `can` (the issue's
 * table, checked by hand in members.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MEMBER_ROLES, type MemberRole } from "../../../src/db/enums";
import { AppError } from "../../../src/errors";
import { permissionOf } from "../../../src/http/auth";
import type { RoutePolicy } from "../../../src/http/route-policy";
import { newId } from "../../../src/lib/ids";
import { COMPANION_KEY_LABEL } from "../../../src/marketplace/driver";
import * as accounts from "../../../src/modules/accounts/service";
import * as dashboard from "../../../src/modules/dashboard/service";
import { callTool } from "../../../src/modules/mcp/server";
import { TOOLS } from "../../../src/modules/mcp/tools";
import { authorizeCaller } from "../../../src/modules/members/caller";
import { type AccountPolicy, authorize, can, type Permission, PERMISSIONS } from "../../../src/modules/members/permissions";
import * as members from "../../../src/modules/members/service";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp, type TestResponse } from "../../helpers/app";
import { insertSentApplication } from "../../helpers/applications";
import { FORM, form } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";
import { call, callError, httpClient, ingestReactJob } from "../../helpers/mcp";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { sandboxApplyLatencyMs: 0 } });
});
afterAll(async () => {
  await t.close();
});

interface Person {
  memberId: string;
  /** A key the member made, carrying their role. */
  key: string;
  /** The same, labelled as the paired browser companion's (the only key the companion's task routes take). */
  companionKey: string;
}

let emails = 0;
/** One member of each role in the account, each with a key of that role (made as accounts.createKey is asked to). */
async function team(accountId: string): Promise<Record<MemberRole, Person>> {
  const out = {} as Record<MemberRole, Person>;
  for (const role of MEMBER_ROLES) {
    const { member } = await members.createMember(t.deps, { accountId, email: `${role}.${++emails}@example.com`, role, by: null });
    const by = { memberId: member.id, role };
    const key = (await accounts.createKey(t.deps, accountId, `${role} key`, by)).apiKey;
    const companionKey = (await accounts.createKey(t.deps, accountId, COMPANION_KEY_LABEL, by)).apiKey;
    out[role] = { memberId: member.id, key, companionKey };
  }
  return out;
}

/** The message the one authorization function gives a role without the permission (null when it has it). */
function refusal(role: MemberRole, permission: string, policy?: AccountPolicy): string | null {
  try {
    authorize(role, permission as Permission, policy);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).message;
  }
}

const policyOf = (route: { hooks?: unknown }): RoutePolicy => (route.hooks as { policy?: RoutePolicy } | undefined)?.policy ?? {};

/** Routes that authenticate with an API key: under /api, or outside it with `apiKey`; not public (preflights, pairing). */
function keyedRoutes() {
  return t.app.routes.filter((r) => {
    const policy = policyOf(r);
    return !policy.public && (r.path.startsWith("/api/") || policy.apiKey === true);
  });
}

/** Dashboard routes that sign a person in (or use up a link): they open no session, so no role is asked. */
const SIGN_IN_ROUTES = new Set(["POST /dashboard/sign-in", "POST /dashboard/sign-in/password", "POST /dashboard/set-password", "POST /dashboard/link/:token"]);

function dashboardPosts() {
  const posts = t.app.routes.filter((r) => r.method === "POST" && r.path.startsWith("/dashboard") && !SIGN_IN_ROUTES.has(`POST ${r.path}`));
  // Signing out ends the session the rest of the table uses: last.
  return posts.sort((a, b) => Number(a.path.endsWith("/sign-out")) - Number(b.path.endsWith("/sign-out")));
}

/** Placeholder path parameters: well-formed ids of nothing (a job's ciphertext has its own shape). */
function fill(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => (name === "ciphertext" ? "~01aaaaaaaaaaaaaaaa" : "00000000-0000-4000-8000-000000000000"));
}

/** The long poll would hold the request open: ask it not to wait. */
const QUERY: Record<string, string> = { "GET /api/v1/companion/tasks": "?waitMs=0" };

async function minimal(method: string, path: string, key: string): Promise<TestResponse> {
  const url = fill(path) + (QUERY[`${method} ${path}`] ?? "");
  return t.request(method, url, { key, json: method === "GET" || method === "HEAD" ? undefined : {} });
}

describe("every route that takes a key: each role, with bidders allowed to send and not", () => {
  let a: { accountId: string; apiKey: string };
  let people: Record<MemberRole, Person>;
  beforeAll(async () => {
    a = await t.account({ name: "table", kind: "agency", credits: 5 });
    people = await team(a.accountId);
    // The companion's long poll marks it connected, which would switch a driverless account to the companion
    // driver (whose reads wait for an extension that never answers): the table stays on the sandbox.
    await accounts.setMarketplaceDriver(t.deps, a.accountId, "sandbox");
  });

  for (const biddersMaySend of [false, true]) {
    test(`biddersMaySend ${biddersMaySend}: a 403 naming the permission exactly when the role lacks it; otherwise no 403 and no 5xx`, async () => {
      await accounts.setBiddersMaySend(t.deps, a.accountId, biddersMaySend);
      const routes = keyedRoutes();
      expect(routes.length).toBeGreaterThan(40);
      const wrong: string[] = [];
      for (const route of routes) {
        const permission = permissionOf(route.method, policyOf(route));
        for (const role of MEMBER_ROLES) {
          const person = people[role];
          const key = route.path.startsWith("/api/v1/companion/tasks") ? person.companionKey : person.key;
          const res = await minimal(route.method, route.path, key);
          const where = `${role} ${route.method} ${route.path} (needs ${permission}) → ${show(res).slice(0, 300)}`;
          if (!can(role, permission as Permission, { biddersMaySend })) {
            if (res.status !== 403 || res.body?.error !== refusal(role, permission, { biddersMaySend })) wrong.push(`refused wrongly: ${where}`);
          } else if (res.status === 403 || res.status >= 500) {
            wrong.push(`not let through: ${where}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    }, 60_000);
  }

  test("a bidder may send only when the account allows it; approving stays an owner's and admin's", async () => {
    const apply = (key: string) => t.request("POST", "/api/auto-apply-v2/apply", { key, json: {} });
    await accounts.setBiddersMaySend(t.deps, a.accountId, false);
    const refused = await apply(people.bidder.key);
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.error).toStartWith('Your role (bidder) does not have the permission "send"');
    await accounts.setBiddersMaySend(t.deps, a.accountId, true);
    // Let through to validation: the body is empty.
    expect((await apply(people.bidder.key)).status).toBe(400);
    expect((await apply(people.viewer.key)).status).toBe(403);
    const approve = await t.request("POST", `/api/v1/applications/${newId()}/approve`, { key: people.bidder.key, json: {} });
    expect(approve.body.error).toStartWith('Your role (bidder) does not have the permission "approve"');
  });
});

/** The actions of the issue and the permission each needs: the API's, and the dashboard's forms doing the same. */
const ACTIONS: Record<string, Permission> = {
  "POST /api/auto-apply-v2/apply": "send",
  "POST /api/auto-apply/external": "send",
  "POST /api/auto-apply-v2/generate-proposal": "draft",
  "POST /api/v1/applications/:queueId/outcome": "outcomes",
  "POST /api/v1/applications/:queueId/approve": "approve",
  "POST /api/v1/applications/:queueId/discard": "approve",
  "POST /api/v1/feeds": "feeds",
  "PATCH /api/v1/feeds/:feedId": "feeds",
  "DELETE /api/v1/feeds/:feedId": "feeds",
  "POST /api/v1/feeds/:feedId/webhook/rotate-secret": "feeds",
  "POST /api/v1/feeds/:feedId/webhook/test": "feeds",
  "PATCH /api/v1/feeds/:feedId/jobs/:processedJobId": "draft",
  "PUT /api/v1/automation/feeds/:feedId": "feeds",
  "POST /api/v1/experiments": "feeds",
  "POST /api/v1/experiments/:id/stop": "feeds",
  "POST /api/v1/channels": "channels",
  "PATCH /api/v1/channels/:channelId": "channels",
  "DELETE /api/v1/channels/:channelId": "channels",
  "POST /api/v1/channels/:channelId/test": "channels",
  "POST /api/v1/channels/:channelId/binding-code": "channels",
  "DELETE /api/v1/channels/:channelId/chats/:chatId": "channels",
  "POST /api/v1/feeds/:feedId/deliveries/:eventId/retry": "channels",
  "PATCH /api/v1/automation": "automation",
  "PUT /api/v1/automation/connects": "automation",
  "PUT /api/v1/companion/mode": "automation",
  "POST /api/v1/capture": "draft",
  "POST /api/v1/capture/jobs": "draft",
  "POST /api/v1/capture/status": "draft",
  "POST /api/v1/companion/tasks/:taskId/outcome": "send",
  "POST /api/v1/companion/tasks/:taskId/review": "send",
  "GET /api/v1/audit": "audit",
  "POST /mcp": "read",
  // The job page's form sends for a role that may, and asks for approval for one that may not (modules/applications).
  "POST /dashboard/jobs/:ciphertext/apply": "draft",
  "POST /dashboard/jobs/:ciphertext/proposal": "draft",
  "POST /dashboard/applications/:queueId/outcome": "outcomes",
  "POST /dashboard/review/:queueId/approve": "approve",
  "POST /dashboard/review/:queueId/discard": "approve",
  "POST /dashboard/inbox/:id": "draft",
  "GET /dashboard/feeds/new": "feeds",
  "POST /dashboard/feeds": "feeds",
  "POST /dashboard/feeds/:id": "feeds",
  "POST /dashboard/feeds/:id/mute": "feeds",
  "POST /dashboard/feeds/:id/rotate-secret": "feeds",
  "POST /dashboard/feeds/:id/delete": "feeds",
  "POST /dashboard/auto-apply/feeds/:feedId": "feeds",
  "POST /dashboard/experiments": "feeds",
  "POST /dashboard/experiments/:id/stop": "feeds",
  "POST /dashboard/experiments/:id/promote": "feeds",
  "GET /dashboard/channels/new": "channels",
  "POST /dashboard/channels": "channels",
  "POST /dashboard/channels/:id": "channels",
  "POST /dashboard/channels/:id/test": "channels",
  "POST /dashboard/channels/:id/binding-code": "channels",
  "POST /dashboard/channels/:id/chats/:chatId/unbind": "channels",
  "POST /dashboard/channels/:id/delete": "channels",
  "POST /dashboard/feeds/:id/deliveries/:eventId/resend": "channels",
  "POST /dashboard/auto-apply/limits": "automation",
  "POST /dashboard/auto-apply/connects": "automation",
  "POST /dashboard/auto-apply/driver": "automation",
  "POST /dashboard/auto-apply/mode": "automation",
  "GET /dashboard/keys": "keys",
  "POST /dashboard/keys": "keys",
  "POST /dashboard/keys/:keyId/revoke": "keys",
  "POST /dashboard/companion/pair": "keys",
  "POST /dashboard/companion/unpair": "keys",
  "GET /dashboard/audit": "audit",
  "POST /dashboard/sign-out": "read",
};

describe("what routes, tools and forms declare", () => {
  test("every authenticated route that is not a GET says which permission it needs", () => {
    const undeclared = keyedRoutes()
      .filter((r) => r.method !== "GET" && r.method !== "HEAD" && policyOf(r).permission === undefined)
      .map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
    const undeclaredForms = dashboardPosts()
      .filter((r) => policyOf(r).permission === undefined)
      .map((r) => `${r.method} ${r.path}`);
    expect(undeclaredForms).toEqual([]);
  });

  test("every permission declared (routes, dashboard, MCP tools) is one of PERMISSIONS", () => {
    const declared = [
      ...t.app.routes.flatMap((r) => (policyOf(r).permission === undefined ? [] : [`${r.method} ${r.path}: ${policyOf(r).permission}`])),
      ...TOOLS.map((tool) => `tool ${tool.name}: ${tool.permission}`),
    ];
    expect(declared.length).toBeGreaterThan(TOOLS.length + 40);
    expect(declared.filter((d) => !Object.hasOwn(PERMISSIONS, d.slice(d.lastIndexOf(": ") + 2)))).toEqual([]);
  });

  test("each MCP tool asks for the permission of the route behind it", () => {
    const mismatched: string[] = [];
    for (const tool of TOOLS) {
      const route = t.app.routes.find((r) => r.method === tool.method && r.path === tool.path);
      if (!route) mismatched.push(`${tool.name}: no route ${tool.method} ${tool.path}`);
      else if (permissionOf(route.method, policyOf(route)) !== tool.permission) {
        mismatched.push(`${tool.name}: ${tool.permission}, its route ${permissionOf(route.method, policyOf(route))}`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  test("what each action needs, written out once more by hand (the table above only checks routes do as they declare)", () => {
    const needed = Object.fromEntries(
      Object.keys(ACTIONS).map((action) => {
        const [method, path] = action.split(" ") as [string, string];
        const route = t.app.routes.find((r) => r.method === method && r.path === path);
        return [action, route ? permissionOf(method, policyOf(route)) : "no such route"];
      }),
    );
    expect(needed).toEqual(ACTIONS);
  });
});

describe("own account and another's", () => {
  let a: { accountId: string; apiKey: string };
  let aTeam: Record<MemberRole, Person>;
  let bTeam: Record<MemberRole, Person>;
  beforeAll(async () => {
    a = await t.account({ name: "A", kind: "agency" });
    const b = await t.account({ name: "B", kind: "agency" });
    aTeam = await team(a.accountId);
    bTeam = await team(b.accountId);
  });

  /**
   * One resource of account A and an action on it: a role of B allowed the action gets 404 (B never learns it
   * exists); a role without it gets the 403 before any lookup, in B as in A; an allowed role of A gets a 2xx.
   */
  async function check(
    resource: string,
    action: { method: string; path: string; pathPattern: string; json?: unknown },
    allowed: MemberRole,
    denied: MemberRole,
  ) {
    const route = t.app.routes.find((r) => r.method === action.method && r.path === action.pathPattern);
    expect(route, `${action.method} ${action.pathPattern}`).toBeDefined();
    const permission = permissionOf(action.method, policyOf(route!));
    expect(can(allowed, permission as Permission)).toBe(true);
    expect(can(denied, permission as Permission)).toBe(false);
    const send = (key: string) => t.request(action.method, action.path, { key, json: action.json });

    const otherAllowed = await send(bTeam[allowed].key);
    expect(otherAllowed.status, `${resource}: ${allowed} of B ${show(otherAllowed)}`).toBe(404);
    const otherDenied = await send(bTeam[denied].key);
    expect(otherDenied.status, `${resource}: ${denied} of B ${show(otherDenied)}`).toBe(403);
    expect(otherDenied.body.error).toBe(refusal(denied, permission)!);
    const ownDenied = await send(aTeam[denied].key);
    expect(ownDenied.status, `${resource}: ${denied} of A ${show(ownDenied)}`).toBe(403);
    expect(ownDenied.body.error).toBe(otherDenied.body.error);
    const own = await send(aTeam[allowed].key);
    expect(own.status, `${resource}: ${allowed} of A ${show(own)}`).toBeGreaterThanOrEqual(200);
    expect(own.status, `${resource}: ${allowed} of A ${show(own)}`).toBeLessThan(300);
  }

  /** A read anyone of A may make: a 404 for every role of B. */
  async function readable(resource: string, path: string) {
    for (const role of MEMBER_ROLES) {
      const other = await t.request("GET", path, { key: bTeam[role].key });
      expect(other.status, `${resource}: ${role} of B reads ${show(other)}`).toBe(404);
      const own = await t.request("GET", path, { key: aTeam[role].key });
      expect(own.status, `${resource}: ${role} of A reads ${show(own)}`).toBe(200);
    }
  }

  test("a feed", async () => {
    const created = await t.request("POST", "/api/v1/feeds", { key: a.apiKey, json: { title: "A's feed", minScore: 5 } });
    expect(created.status, show(created)).toBe(201);
    const path = `/api/v1/feeds/${created.body.feed.id}`;
    await readable("feed", path);
    await check("feed", { method: "PATCH", path, pathPattern: "/api/v1/feeds/:feedId", json: { title: "Renamed" } }, "admin", "bidder");
  });

  test("a channel", async () => {
    const created = await t.request("POST", "/api/v1/channels", { key: a.apiKey, json: { type: "ntfy", name: "A's ntfy", config: { topic: "jobpilot-a" } } });
    expect(created.status, show(created)).toBe(201);
    const path = `/api/v1/channels/${created.body.channel.id}`;
    await readable("channel", path);
    await check("channel", { method: "PATCH", path, pathPattern: "/api/v1/channels/:channelId", json: { name: "Renamed" } }, "admin", "viewer");
  });

  /** An archived job (applications name one); its ciphertext. */
  async function archivedJob(): Promise<string> {
    const doc = makeDoc();
    await ingestDocuments(t.deps, [doc], { source: "test" });
    return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  }

  test("an application", async () => {
    const id = newId();
    await insertSentApplication(t, a.accountId, await archivedJob(), { id });
    await readable("application", `/api/v1/applications/${id}/funnel`);
    await check(
      "application",
      { method: "POST", path: `/api/v1/applications/${id}/outcome`, pathPattern: "/api/v1/applications/:queueId/outcome", json: { outcome: "replied" } },
      "bidder",
      "viewer",
    );
  });

  test("a held application", async () => {
    const id = newId();
    await insertSentApplication(t, a.accountId, await archivedJob(), {
      id,
      status: "processing",
      phase: "queued",
      heldReason: "draft",
      processedAtTs: null,
    });
    await check(
      "held application",
      { method: "POST", path: `/api/v1/applications/${id}/discard`, pathPattern: "/api/v1/applications/:queueId/discard" },
      "admin",
      "bidder",
    );
  });

  test("an experiment", async () => {
    const created = await t.request("POST", "/api/v1/experiments", {
      key: a.apiKey,
      json: {
        name: "short vs long",
        arms: [
          { name: "short", prompt: "Three sentences." },
          { name: "long", prompt: "Five paragraphs." },
        ],
      },
    });
    expect(created.status, show(created)).toBe(201);
    const id = created.body.experiment.id;
    await readable("experiment", `/api/v1/experiments/${id}`);
    await check("experiment", { method: "POST", path: `/api/v1/experiments/${id}/stop`, pathPattern: "/api/v1/experiments/:id/stop" }, "admin", "bidder");
  });
});

/** The message of a dashboard error page, as text. */
function pageMessage(html: string): string | undefined {
  const m = /<p class="error" role="alert">([^<]*)<\/p>/.exec(html);
  if (!m) return undefined;
  return m[1]!
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

describe("dashboard forms: each role signed in as themselves", () => {
  test("every form posted with a valid CSRF token: the 403 page naming the permission exactly when the role lacks it", async () => {
    const { accountId } = await t.account({ name: "dashboard", kind: "agency" });
    const wrong: string[] = [];
    const routes = dashboardPosts();
    expect(routes.length).toBeGreaterThan(20);
    for (const role of MEMBER_ROLES) {
      const invited = await members.createMember(t.deps, { accountId, email: `dash.${role}.${++emails}@example.com`, role, by: null });
      const signed = await dashboard.setPasswordAndSignIn(t.deps, invited.token, "correct horse battery");
      const headers = { ...FORM, cookie: `jp_session=${signed.token}` };
      for (const route of routes) {
        const permission = permissionOf("POST", policyOf(route));
        const res = await t.request("POST", fill(route.path), { headers, body: form({ csrf: signed.session.csrfToken }) });
        const where = `${role} POST ${route.path} (needs ${permission}) → ${res.status} ${pageMessage(res.text) ?? res.text.slice(0, 120)}`;
        if (!can(role, permission as Permission)) {
          if (res.status !== 403 || pageMessage(res.text) !== refusal(role, permission)) wrong.push(`refused wrongly: ${where}`);
        } else if (res.status === 403 || res.status >= 500) {
          wrong.push(`not let through: ${where}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});

describe("MCP tools", () => {
  test("a viewer's key calling apply gets the permission's message; the owner's applies", async () => {
    const { accountId, apiKey } = await t.account({ name: "mcp", kind: "agency", credits: 3 });
    const people = await team(accountId);
    const job = await ingestReactJob(t);
    const args = { jobId: job, coverLetter: "Hello, I have built dashboards like this one." };

    const viewer = await httpClient(t, people.viewer.key);
    expect(await callError(viewer, "apply", args)).toBe(`HTTP 403: ${refusal("viewer", "send")}`);
    // Reading is a viewer's: the session itself and read tools work.
    expect((await call(viewer, "list_feeds")).feeds).toEqual([]);
    await viewer.close();

    const owner = await httpClient(t, apiKey);
    expect((await call(owner, "apply", args)).queueId).toBeString();
    await owner.close();
  });

  test("the dispatcher refuses before the tool's request is sent", async () => {
    const sent: string[] = [];
    const conn = {
      baseUrl: "http://jobpilot.internal",
      apiKey: "unused",
      send: async (request: Request) => {
        sent.push(`${request.method} ${new URL(request.url).pathname}`);
        return Response.json({ feeds: [] });
      },
      authorize: (permission: string) => authorizeCaller({ role: "bidder", biddersMaySend: false }, permission),
    };
    const refused = (await callTool(conn, "create_feed", { title: "x", minScore: 5 })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toBe(`HTTP 403: ${refusal("bidder", "feeds")}`);
    expect(sent).toEqual([]);
    const allowed = (await callTool(conn, "list_feeds", {})) as CallToolResult;
    expect(allowed.isError ?? false).toBe(false);
    expect(sent).toEqual(["GET /api/v1/feeds"]);
  });
});
