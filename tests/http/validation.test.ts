import { afterEach, describe, expect, test } from "bun:test";
import { rawMany } from "../../src/db/query";
import { COMPANION_KEY_LABEL } from "../../src/marketplace/driver";
import { createKey } from "../../src/modules/accounts/service";
import { createTestApp, show, type TestApp } from "../helpers/app";

let t: TestApp;
afterEach(() => t?.close());

const ADMIN = "admin-token-0123456789";
// Values that pass each path parameter's own check, so the body is what gets judged.
const PARAM_VALUES: Record<string, string> = {
  ciphertext: "~021000000000000000001",
  freelancerId: "~01abcdef0123456789",
};

interface RouteInfo {
  method: string;
  path: string;
  hooks: { body?: any };
}

/** Every JSON route with a body schema (the dashboard's HTML forms have their own pages). */
function bodyRoutes(app: TestApp["app"]): RouteInfo[] {
  return (app.routes as unknown as RouteInfo[]).filter(
    (r) => r.hooks?.body?.type === "object" && !r.path.startsWith("/dashboard") && !r.path.startsWith("/bridge"),
  );
}

function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => PARAM_VALUES[name] ?? "01a21343-5e5e-772c-8e41-cd03aa62df35");
}

/** A value of the wrong kind for a schema position: a string for containers, an object for scalars. */
function wrongKind(schema: any): unknown {
  const members: any[] = Array.isArray(schema.anyOf) ? schema.anyOf : [schema];
  if (members.some((m) => m.type === "object" || m.type === "array")) return "react";
  return { not: "a scalar" };
}

describe("validation on every route", () => {
  test("a container of the wrong kind is refused naming the field, and a non-object body says so", async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    const { apiKey: accountKey, accountId } = await t.account({ credits: 5 });
    // The companion's task routes take only the key pairing issues (any other key is a 403 before validation).
    const companionKey = (await createKey(t.deps, accountId, COMPANION_KEY_LABEL)).apiKey;
    const routes = bodyRoutes(t.app);
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const headers: Record<string, string> = route.path.startsWith("/admin") ? { authorization: `Bearer ${ADMIN}` } : {};
      const apiKey = route.path.startsWith("/api/v1/companion/tasks") ? companionKey : accountKey;
      const props: Record<string, any> = route.hooks.body.properties ?? {};
      for (const [name, schema] of Object.entries(props)) {
        // A minute between requests: the routes' fields outnumber one key's default minute (rate limits are tested elsewhere).
        t.clock.advance(60_000);
        const res = await t.request(route.method, concrete(route.path), { key: apiKey, headers, json: { [name]: wrongKind(schema) } });
        expect(res.status, `${route.method} ${route.path} ${name}: ${show(res)}`).toBe(400);
        expect(
          res.body.details.some((d: string) => d.startsWith(`${name} must be`)),
          `${route.method} ${route.path} ${name}: ${show(res)}`,
        ).toBe(true);
      }
      for (const body of ['"x"', "5", "[]", "null"]) {
        const res = await t.request(route.method, concrete(route.path), { key: apiKey, headers: { ...headers, "content-type": "application/json" }, body });
        expect(res.status, `${route.method} ${route.path} ${body}`).toBe(400);
        expect(res.body.details, `${route.method} ${route.path} ${body}: ${show(res)}`).toEqual(["Request body must be a JSON object"]);
      }
    }
  });
});

describe("apply bodies", () => {
  const APPLY = "/api/auto-apply-v2/apply";
  async function setup() {
    t = await createTestApp({ config: { adminToken: ADMIN, sandboxApplyLatencyMs: 0 } });
    const a = await t.account({ credits: 5 });
    return a;
  }
  const held = async (accountId: string) => {
    const sql = "SELECT credits_balance AS credits, credits_held AS held FROM accounts WHERE id = ?";
    const [row] = await rawMany<{ credits: number | string; held: number | string }>(t.deps.db, sql, sql, [accountId]);
    return { credits: Number(row!.credits), held: Number(row!.held) };
  };
  const queued = async () => {
    const sql = "SELECT count(*) AS n FROM applications";
    const [row] = await rawMany<{ n: number | string }>(t.deps.db, sql, sql, []);
    return Number(row!.n);
  };

  test("a proposal (or legacy applicationOptions) that is not an object is a 400 naming it; nothing queued, no credit held", async () => {
    const a = await setup();
    const before = await held(a.accountId);
    for (const bad of ["x", 5, [], null, true]) {
      const v2 = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: "~021000000000000000001", coverLetter: "Hi", proposal: bad } });
      expect(v2.status, show(v2)).toBe(400);
      expect(v2.body.details).toEqual(["proposal must be an object"]);
      const v1 = await t.request("POST", "/api/auto-apply/external", {
        key: a.apiKey,
        json: { jobId: "~021000000000000000001", coverLetter: "Hi", applicationOptions: bad },
      });
      expect(v1.status, show(v1)).toBe(400);
      expect(v1.body.error).toContain("applicationOptions must be an object");
    }
    expect(await queued()).toBe(0);
    expect(await held(a.accountId)).toEqual(before);
  });

  test("every failing field is named at once", async () => {
    const a = await setup();
    const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: 5, coverLetter: "Hi", proposal: "x", questionAnswers: "a" } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.details).toEqual(["jobId must be a string of 1 to 2048 characters", "questionAnswers must be an array", "proposal must be an object"]);
  });

  test("bids outside the marketplace's bounds are refused with the bound", async () => {
    const a = await setup();
    const cases: [Record<string, number>, string][] = [
      [{ hourlyRate: 1e308 }, "proposal.hourlyRate must be a number between 3 and 999"],
      [{ hourlyRate: 2.5 }, "proposal.hourlyRate must be a number between 3 and 999"],
      [{ fixedBid: 4 }, "proposal.fixedBid must be a number between 5 and 1000000"],
      [{ fixedBid: 1_000_001 }, "proposal.fixedBid must be a number between 5 and 1000000"],
      [{ boostBids: 1e19 }, "proposal.boostBids must be an integer between 0 and 1000"],
      [{ boostBids: -1 }, "proposal.boostBids must be an integer between 0 and 1000"],
    ];
    for (const [proposal, message] of cases) {
      const res = await t.request("POST", APPLY, { key: a.apiKey, json: { jobId: "~021000000000000000001", coverLetter: "Hi", proposal } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.details).toEqual([message]);
    }
    expect(await queued()).toBe(0);
  });
});

describe("admin sandbox ids", () => {
  test("a ciphertext that is not one is a 400 before any lookup", async () => {
    t = await createTestApp({ config: { adminToken: ADMIN } });
    const headers = { authorization: `Bearer ${ADMIN}` };
    for (const bad of ["%00", "..%2Fetc%2Fpasswd", "abc", "~a%20b", "~a.b"]) {
      const res = await t.request("POST", `/admin/sandbox/jobs/${bad}/close`, { headers });
      expect(res.status, `${bad}: ${show(res)}`).toBe(400);
      expect(res.body.error).toContain("ciphertext must be a job ciphertext");
      const f = await t.request("POST", `/admin/sandbox/freelancers/${bad}/connects`, { headers, json: { connects: 5 } });
      expect(f.status, `${bad}: ${show(f)}`).toBe(400);
    }
    const ok = await t.request("POST", "/admin/sandbox/jobs/%7E021000000000000000001/close", { headers });
    expect(ok.status, show(ok)).toBe(200);
  });
});
