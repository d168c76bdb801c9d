import { afterEach, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { t as types } from "elysia";
import { loadConfig } from "../../src/config";
import { toJsonSchema2020, withoutUnusedComponents } from "../../src/http/openapi-document";
import { authenticate, setRateLimits } from "../../src/modules/accounts/service";
import * as feeds from "../../src/modules/feeds/service";
import { ingestDocuments } from "../../src/modules/intake/ingest";
import { createDeliverer } from "../../src/cli/serve";
import type { WebhookDeliverer } from "../../src/modules/delivery/deliverer";
import { BUCKETS } from "../../src/http/rate-limit-table";
import { MAX_REQUEST_HEAD_BYTES } from "../../src/http/request-context";
import { createTestApp, show, type TestApp } from "../helpers/app";
import { makeDoc } from "../helpers/factories";
import { Contract } from "../helpers/openapi-contract";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

let t: TestApp;
let receiver: WebhookReceiver | undefined;
let deliverer: WebhookDeliverer | undefined;
afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await receiver?.close();
  receiver = undefined;
  await t?.close();
});

const ADMIN_TOKEN = "admin-token-0123456789";
/** Every optional route mounted: the admin routes, the OAuth callback, a configured bridge. */
const FULL = { adminToken: ADMIN_TOKEN, marketplaceClientId: "client-id", bridgeSecret: "bridge-secret-0123456789abcdef" };

type Json = Record<string, any>;
interface Operation {
  path: string;
  method: string;
  op: Json;
}
const operationsOf = (doc: Json): Operation[] =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) => Object.entries<Json>(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

/** Every schema position of the document (components, parameters, bodies, responses, headers, webhooks). */
function schemasOf(doc: Json): [string, unknown][] {
  const found: [string, unknown][] = Object.entries<unknown>(doc.components?.schemas ?? {}).map(([name, s]) => [`components.schemas.${name}`, s]);
  const visit = (where: string, value: unknown) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(`${where}[${i}]`, v);
    } else if (value && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        if (key === "schema") found.push([`${where}.schema`, child]);
        else visit(`${where}.${key}`, child);
      }
    }
  };
  visit("paths", doc.paths);
  visit("webhooks", doc.webhooks);
  visit("components.headers", doc.components?.headers);
  visit("components.parameters", doc.components?.parameters);
  return found;
}

async function servedDocument(config: Json = FULL): Promise<Json> {
  t = await createTestApp({ config });
  const res = await t.request("GET", "/docs/json");
  expect(res.status).toBe(200);
  return res.body;
}

describe("the OpenAPI document", () => {
  test("is OpenAPI 3.1 with servers, license and contact; every operation has a unique operationId, a summary, a description and a declared tag; every response a description", async () => {
    const doc = await servedDocument();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect(doc.info.license.name).toBeTruthy();
    // OpenAPI 3.1 takes an SPDX expression or a URL (not both); swagger-parser, orval and Redocly want one of them.
    expect(doc.info.license.url, "license: identifier or url, not both").toBeUndefined();
    expect(doc.info.license.identifier).toMatch(/^(LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9.+-]+)$/);
    expect(doc.info.contact.url).toMatch(/^https:\/\//);
    const tags = new Set(doc.tags.map((tag: Json) => tag.name));
    const ids = new Set<string>();
    const operations = [
      ...operationsOf(doc),
      ...Object.entries<Json>(doc.webhooks).map(([name, item]) => ({ path: `webhook ${name}`, method: "POST", op: item.post })),
    ];
    expect(operations.length).toBeGreaterThan(40);
    for (const { path, method, op } of operations) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} used twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, where).toBeTruthy();
      expect(op.description, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.has(tag), `${where}: tag ${tag} is not declared`).toBe(true);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(response.description, `${where} ${status}`).toBeTruthy();
        expect(response.description, `${where} ${status}`).not.toMatch(/^Response for status/);
      }
    }
  });

  test("servers names JOBPILOT_PUBLIC_URL when it is set (without a trailing slash), else /", async () => {
    const doc = await servedDocument({ publicUrl: loadConfig({ JOBPILOT_PUBLIC_URL: "https://jobs.example.com/jobpilot/" }).publicUrl });
    expect(doc.servers).toEqual([{ url: "https://jobs.example.com/jobpilot", description: "This server (JOBPILOT_PUBLIC_URL)" }]);
    await t.close();
    expect((await servedDocument({ publicUrl: loadConfig({}).publicUrl })).servers).toEqual([
      { url: "/", description: "The server that served this document" },
    ]);
  });

  test("its schemas are JSON Schema 2020-12 with nothing of OpenAPI 3.0 or Elysia left, and each compiles in strict mode", async () => {
    const doc = await servedDocument();
    const leftovers: string[] = [];
    const visit = (where: string, value: unknown, isSchema: boolean) => {
      if (Array.isArray(value)) {
        for (const [i, v] of value.entries()) visit(`${where}[${i}]`, v, isSchema);
        return;
      }
      if (!value || typeof value !== "object") return;
      const node = value as Json;
      if (isSchema) {
        if ("nullable" in node) leftovers.push(`${where}: nullable`);
        if ("error" in node && typeof node.error === "string") leftovers.push(`${where}: error`);
        if (node.format === "integer" || node.format === "numeric") leftovers.push(`${where}: format ${node.format}`);
        if (Array.isArray(node.anyOf) && node.anyOf.some((m: Json) => m.type === "string" && m.format)) leftovers.push(`${where}: coercion union`);
      }
      for (const [key, child] of Object.entries(node)) {
        // Inside `properties` the keys are field names (a field may be called `error`), each value a schema.
        if (key === "properties") for (const [name, s] of Object.entries<unknown>(child as Json)) visit(`${where}.properties.${name}`, s, true);
        else visit(`${where}.${key}`, child, isSchema || key === "schema" || key === "schemas");
      }
    };
    visit("", doc, false);
    expect(leftovers).toEqual([]);

    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    ajv.addVocabulary(["discriminator", "xml", "externalDocs", "example"]);
    const rebase = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"openapi:components#/$defs/'));
    ajv.addSchema({ $id: "openapi:components", $defs: rebase(doc.components.schemas) as Json });
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(200);
    // Each distinct schema once (the same error and header schemas stand in hundreds of places).
    const distinct = new Map(schemas.map(([where, schema]) => [JSON.stringify(schema), where]));
    for (const [text, where] of distinct) {
      expect(() => ajv.compile(rebase(JSON.parse(text)) as Json), where).not.toThrow();
    }
  }, 30_000);

  test("integer query parameters are integers with their bounds: every limit and offset has its maximum", async () => {
    const doc = await servedDocument();
    let paged = 0;
    for (const { path, method, op } of operationsOf(doc)) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== "query" || !["limit", "offset"].includes(parameter.name)) continue;
        paged++;
        expect(parameter.schema, `${method} ${path} ${parameter.name}`).toMatchObject({
          type: "integer",
          minimum: expect.any(Number),
          maximum: expect.any(Number),
        });
      }
    }
    expect(paged).toBeGreaterThanOrEqual(6);
    const jobs = doc.paths["/api/v1/feeds/{feedId}/jobs"].get.parameters;
    expect(jobs.find((p: Json) => p.name === "limit")).toMatchObject({ schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } });
  });

  test("GET /metrics: the token is optional, as a loopback request without one is answered", async () => {
    const doc = await servedDocument({ ...FULL, metricsToken: undefined });
    const op = doc.paths["/metrics"].get;
    expect(op.security).toEqual([{ metricsToken: [] }, {}]);
    expect(doc.components.securitySchemes.metricsToken).toMatchObject({ type: "http", scheme: "bearer" });
    // Each answer of the two ways in is listed: the wrong token (401) and a caller that is not local without one (403).
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "401", "403"]));
    t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const anonymous = await fetch(`http://127.0.0.1:${t.app.server!.port}/metrics`);
      expect(anonymous.status).toBe(200);
    } finally {
      await t.app.stop(true);
    }
  });

  test("lists no component it does not use", async () => {
    const doc = await servedDocument();
    expect(withoutUnusedComponents(doc as never)).toEqual(doc as never);
    const withSpare = { ...doc, components: { ...doc.components, schemas: { ...doc.components.schemas, Spare: { type: "string" } } } };
    expect((withoutUnusedComponents(withSpare as never).components as Json).schemas.Spare).toBeUndefined();
  });

  test("the bridge callback documents its body and its signature headers; the legacy apply route its Deprecation and Link on every response", async () => {
    const doc = await servedDocument();
    const callback = doc.paths["/bridge/callback"].post;
    expect(callback.requestBody.content["application/json"].schema).toMatchObject({ required: ["applicationId", "status"] });
    expect(callback.parameters).toEqual([
      { $ref: "#/components/parameters/WebhookId" },
      { $ref: "#/components/parameters/WebhookTimestamp" },
      { $ref: "#/components/parameters/WebhookSignature" },
    ]);
    expect(doc.components.parameters.WebhookSignature).toMatchObject({ name: "webhook-signature", in: "header", required: true });
    const legacy = doc.paths["/api/auto-apply/external"].post;
    for (const status of ["200", "400", "401", "402", "409", "429"]) {
      expect(Object.keys(legacy.responses[status].headers), status).toEqual(expect.arrayContaining(["Deprecation", "Link"]));
    }
    // The wire agrees, a refused key included.
    for (const key of [null, "jp_live_wrong"]) {
      const res = await t.request("POST", "/api/auto-apply/external", { key, json: {} });
      expect(res.status).toBe(401);
      expect(res.headers.get("deprecation")).toBe("true");
      expect(res.headers.get("link")).toBe('</api/auto-apply-v2/apply>; rel="successor-version"');
    }
  });
});

describe("the webhooks it describes", () => {
  test("what a feed's webhook receives, job.matched and webhook.test, matches the document, headers and body", async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 300 } });
    const contract = new Contract((await t.request("GET", "/docs/json")).body);
    const { apiKey } = await t.account();
    deliverer = createDeliverer(t.deps);
    t.deps.work.subscribe(() => deliverer?.notify());
    deliverer.start();
    const auth = (await authenticate(t.deps, apiKey))!;
    await feeds.createFeed(t.deps, auth, { title: "hooks", minScore: 0, webhookUrl: receiver.url });
    await receiver.waitFor(1);
    t.clock.advance(1000);
    await ingestDocuments(t.deps, [makeDoc({ title: "Go service", questions: ["Have you used Go?"], companyId: "1777000000000000001" })], { source: "test" });
    await receiver.waitFor(2);
    const [test, matched] = receiver.received;
    expect(test!.json.type).toBe("webhook.test");
    expect(contract.webhookProblems("webhookTest", test!.headers, test!.body)).toEqual([]);
    expect(matched!.json.type).toBe("job.matched");
    expect(contract.webhookProblems("jobMatched", matched!.headers, matched!.body)).toEqual([]);
    // The event types are not interchangeable, and a payload missing a field is caught.
    expect(contract.webhookProblems("webhookTest", matched!.headers, matched!.body).join("\n")).toContain("body/type must be equal to constant");
    const { client: _, ...partial } = matched!.json;
    expect(contract.webhookProblems("jobMatched", matched!.headers, JSON.stringify(partial)).join("\n")).toContain("required property 'client'");
  });
});

describe("every operation answers only statuses its document lists", () => {
  // Each request below goes through the contract helper (createTestApp), which fails the test on any answer the document
  // does not describe: status, content type, declared headers (rate limits, Retry-After, Allow, x-request-id) and body.
  test("without credentials, with a non-JSON body, an oversized body, an overlong URL or head, unknown ids, over the rate limit, and with a method the path does not serve", async () => {
    const doc = await servedDocument();
    const { apiKey, accountId } = await t.account();
    const operations = operationsOf(doc);
    const fill = (path: string) => path.replace(/\{[^}]+\}/g, "x");
    const schemes = (o: Operation): Json[] => o.op.security ?? doc.security;
    const isApi = (o: Operation) => schemes(o).some((s) => "apiKey" in s);
    const isAdmin = (o: Operation) => schemes(o).some((s) => "adminToken" in s);
    const credentials = (o: Operation) => (isApi(o) ? { key: apiKey } : isAdmin(o) ? { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } : {});

    for (const o of operations) {
      const where = `${o.method} ${o.path}`;
      if (isApi(o)) expect((await t.request(o.method, fill(o.path), { key: "jp_live_unknown" })).status, where).toBe(401);
      if (isAdmin(o)) expect((await t.request(o.method, fill(o.path), { headers: { authorization: "Bearer wrong" } })).status, where).toBe(401);
      // Unknown ids, an empty object for a body: whatever the answer, the document must list it.
      const base = credentials(o);
      const plain = await t.request(o.method, fill(o.path), { ...base, ...(o.method === "GET" ? {} : { json: {} }) });
      expect(plain.status, `${where}: ${show(plain)}`).not.toBe(500);
      if (o.method !== "GET") {
        const text = await t.request(o.method, fill(o.path), { ...base, body: "x", headers: { ...(base as Json).headers, "content-type": "text/plain" } });
        expect(text.status, `${where}: ${show(text)}`).toBe(415);
      }
      const big = await t.request(o.method, fill(o.path), {
        ...base,
        headers: { ...(base as Json).headers, "content-length": String(t.deps.config.maxBodyBytes + 1) },
      });
      expect(big.status, where).toBe(413);
      expect((await t.request(o.method, `${fill(o.path)}?pad=${"a".repeat(9000)}`, base)).status, where).toBe(414);
      const padded = await t.request(o.method, fill(o.path), { ...base, headers: { ...(base as Json).headers, "x-pad": "a".repeat(MAX_REQUEST_HEAD_BYTES) } });
      expect(padded.status, `${where}: ${show(padded)}`).toBe(431);
    }

    // A method each path does not serve: 405 with Allow (the helper checks it names the documented methods). No route
    // serves it, so no route's policy applies: the credentials of the path's prefix are asked first (the OAuth callback's too).
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const method = ["PUT", "PATCH", "DELETE", "POST", "GET"].find((m) => !item[m.toLowerCase()])!;
      const prefix = path.startsWith("/api/") ? { key: apiKey } : path.startsWith("/admin/") ? { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } : {};
      // A minute between paths: there are more of them than one key's default minute allows (over the limit is tested below).
      t.clock.advance(60_000);
      const res = await t.request(method, fill(path), prefix);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(405);
    }

    // Over the rate limit: every bucket allows one request a minute, so each route's second request is a 429.
    await setRateLimits(t.deps, accountId, { overrides: Object.fromEntries(BUCKETS.map((b) => [`${b}.minute`, 1])) });
    const { apiKey: limitedKey, accountId: limitedId } = await t.account();
    await setRateLimits(t.deps, limitedId, { overrides: Object.fromEntries(BUCKETS.map((b) => [`${b}.minute`, 1])) });
    let limited = 0;
    for (const o of operations.filter(isApi)) {
      for (let i = 0; i < 2; i++) {
        const res = await t.request(o.method, fill(o.path), { key: limitedKey, ...(o.method === "GET" ? {} : { json: {} }) });
        if (res.status === 429) {
          limited++;
          expect(Number(res.headers.get("retry-after")), `${o.method} ${o.path}`).toBeGreaterThan(0);
        }
      }
    }
    expect(limited).toBeGreaterThan(operations.filter(isApi).length / 2);
  }, 60_000);
});

describe("toJsonSchema2020", () => {
  const json = (schema: unknown) => JSON.parse(JSON.stringify(schema));

  test("Elysia's coercible integers and numbers become the number schema with its bounds; nothing else of the union stays", () => {
    expect(toJsonSchema2020(json(types.Integer({ minimum: 1, maximum: 200, default: 50, error: "limit must be an integer" })))).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(toJsonSchema2020(json(types.Numeric({ minimum: 0 })))).toEqual({ type: "number", minimum: 0 });
    expect(toJsonSchema2020(json(types.Nullable(types.Integer({ minimum: 0, description: "count" }))))).toEqual({
      type: ["integer", "null"],
      minimum: 0,
      description: "count",
    });
  });

  test("unions of constants become enums (with null when nullable); X or null becomes a type list; a $ref or null stays a union", () => {
    expect(toJsonSchema2020(json(types.Union([types.Literal("a"), types.Literal("b")], { description: "d" })))).toEqual({
      type: "string",
      enum: ["a", "b"],
      description: "d",
    });
    expect(toJsonSchema2020(json(types.Nullable(types.Union([types.Literal("HOURLY"), types.Literal("FIXED")]))))).toEqual({
      type: ["string", "null"],
      enum: ["HOURLY", "FIXED", null],
    });
    expect(toJsonSchema2020(json(types.Nullable(types.Object({ a: types.String() }))))).toMatchObject({
      type: ["object", "null"],
      properties: { a: { type: "string" } },
    });
    const refOrNull = { anyOf: [{ $ref: "#/components/schemas/X" }, { type: "null" }] };
    expect(toJsonSchema2020(refOrNull)).toEqual(refOrNull);
    // What the generator already made `type: [..., "null"]` only loses its 3.0 `nullable`.
    expect(toJsonSchema2020({ nullable: true, type: ["number", "null"], minimum: 0 })).toEqual({ type: ["number", "null"], minimum: 0 });
  });

  test("walks every schema position, and leaves field names and values alone", () => {
    const schema = json(
      types.Object({
        error: types.String({ error: "error must be a string" }),
        list: types.Array(types.Integer({ minimum: 0 })),
        map: types.Record(types.String(), types.Nullable(types.Integer())),
        either: types.Union([types.Integer(), types.String()]),
        fixed: types.Literal("x", { default: "x", examples: [{ nullable: true }] }),
      }),
    );
    const out = toJsonSchema2020(schema) as Json;
    expect(Object.keys(out.properties)).toEqual(["error", "list", "map", "either", "fixed"]);
    expect(out.properties.error).toEqual({ type: "string" });
    expect(out.properties.list.items).toEqual({ type: "integer", minimum: 0 });
    expect(Object.values<Json>(out.properties.map.patternProperties)[0]).toEqual({ type: ["integer", "null"] });
    expect(out.properties.either.anyOf).toEqual([{ type: "integer" }, { type: "string" }]);
    expect(out.properties.fixed.examples).toEqual([{ nullable: true }]);
  });
});
