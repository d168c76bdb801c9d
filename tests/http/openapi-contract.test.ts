import { afterEach, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { Contract, ContractViolation, enforceContract } from "../helpers/openapi-contract";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** The served document and a response to GET /api/v1/account that keeps it, for the cases below to break one part each. */
async function setup() {
  t = await createTestApp();
  const { apiKey } = await t.account();
  const document = (await t.request("GET", "/docs/json")).body;
  const res = await t.request("GET", "/api/v1/account", { key: apiKey });
  expect(res.status).toBe(200);
  return { contract: new Contract(document), document, res };
}

describe("the response contract helper", () => {
  test("a response that keeps the document has no problem", async () => {
    const { contract, res } = await setup();
    expect(contract.problems("GET", "http://localhost/api/v1/account", res.status, res.headers, res.text)).toEqual([]);
  });

  test("catches a body that does not match the operation's schema", async () => {
    const { contract, res } = await setup();
    const wrong = JSON.stringify({ ...res.body, account: { ...res.body.account, credits: "ten" } });
    const problems = contract.problems("GET", "http://localhost/api/v1/account", 200, res.headers, wrong);
    expect(problems.join("\n")).toContain("body/account/credits must be integer");
    const missing = contract.problems("GET", "http://localhost/api/v1/account", 200, res.headers, JSON.stringify({ key: res.body.key }));
    expect(missing.join("\n")).toContain("must have required property 'account'");
  });

  test("catches a status the operation does not document, and a 405 without Allow", async () => {
    const { contract, res } = await setup();
    expect(contract.problems("GET", "http://localhost/api/v1/account", 418, res.headers, res.text)).toEqual([
      "status 418 is not documented for GET /api/v1/account (documented: 200, 401, 413, 414, 429, 431, 500, 507)",
    ]);
    const noAllow = new Headers({ "x-request-id": "abc", "content-type": "application/json" });
    expect(contract.problems("PUT", "http://localhost/api/v1/account", 405, noAllow, '{"error":"no"}').join("\n")).toContain("405 without an Allow header");
    expect(contract.problems("PUT", "http://localhost/api/v1/account", 200, noAllow, '{"error":"no"}').join("\n")).toContain("not 405");
  });

  test("catches a missing declared header, a header with a bad value and an undocumented content type", async () => {
    const { contract, res } = await setup();
    const headers = new Headers(res.headers);
    headers.delete("x-ratelimit-remaining");
    expect(contract.problems("GET", "http://localhost/api/v1/account", 200, headers, res.text)).toEqual(["header X-RateLimit-Remaining missing"]);
    headers.set("x-ratelimit-remaining", "lots");
    expect(contract.problems("GET", "http://localhost/api/v1/account", 200, headers, res.text).join("\n")).toContain("header X-RateLimit-Remaining");
    const text = new Headers(res.headers);
    text.set("content-type", "text/plain");
    expect(contract.problems("GET", "http://localhost/api/v1/account", 200, text, res.text).join("\n")).toContain("content type text/plain is not documented");
  });

  test("paths the document does not describe are left alone", async () => {
    const { contract } = await setup();
    expect(contract.problems("GET", "http://localhost/dashboard", 200, new Headers(), "<html>")).toEqual([]);
    expect(contract.problems("GET", "http://localhost/nowhere", 404, new Headers(), "{}")).toEqual([]);
  });

  test("an app whose route drifts from its document fails the request that meets it", async () => {
    const { document, res } = await setup();
    // An app answering GET /api/v1/account with a body that breaks its schema, as a drifted route would.
    const app = {
      routes: [{ method: "GET", path: "/api/v1/account" }],
      handle: async (request: Request) =>
        new URL(request.url).pathname === "/docs/json"
          ? Response.json(document)
          : Response.json({ account: null }, { headers: Object.fromEntries(res.headers) }),
    };
    enforceContract(app);
    const sent = app.handle(new Request("http://localhost/api/v1/account"));
    expect(sent).rejects.toThrow(ContractViolation);
    await expect(sent).rejects.toThrow("body/account must be object");
  });
});
