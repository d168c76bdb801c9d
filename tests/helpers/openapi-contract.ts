/**
 * Every response the tests receive through `app.handle` is checked against the OpenAPI document
 * the app serves at /docs/json (createTestApp hooks it in): its status is documented for the
 * operation, its content type is one the operation lists, the headers the document marks
 * required are there with valid values, and its body is valid against the schema. A route that
 * drifts from its document fails the test that called it.
 *
 * Schemas are compiled once per process (Ajv's JSON Schema 2020-12 dialect, the one OpenAPI 3.1
 * uses) and only when a response needs them. An app's document is a function of its routes (the
 * schemas are code, the same in every app of the process), so it is fetched once per set of routes.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = Record<string, any>;

export class ContractViolation extends Error {
  override name = "ContractViolation";
}

/** Methods a path template can have in an OpenAPI path item. */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface PathTemplate {
  template: string;
  re: RegExp;
  /** Literal segments outrank parameters, as in the router. */
  rank: number[];
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

/** The path without query string or one trailing slash (the router serves `/x/` as `/x`). */
function pathOf(url: string): string {
  const path = new URL(url).pathname;
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly templates: PathTemplate[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(this.ajv);
    // Keywords OpenAPI 3.1 adds to JSON Schema (annotations, nothing to check).
    this.ajv.addVocabulary(["discriminator", "xml", "externalDocs", "example"]);
    // The component schemas are one schema resource, so `#/components/schemas/X` references resolve inside it.
    this.ajv.addSchema({ $id: "openapi:components", $defs: this.rebased(document.components?.schemas ?? {}) } as Json);
    this.templates = Object.keys(document.paths ?? {})
      .map((template) => {
        const segments = template.split("/");
        const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/");
        return { template, re: new RegExp(`^${source}$`), rank: segments.map((s) => (s.startsWith("{") ? 1 : 0)) };
      })
      .sort((a, b) => {
        for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) if (a.rank[i] !== b.rank[i]) return a.rank[i]! - b.rank[i]!;
        return 0;
      });
  }

  /** `#/components/schemas/X` → `openapi:components#/$defs/X`: references from any schema into the components resource. */
  private rebased(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.rebased(v));
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] =
        key === "$ref" && typeof child === "string" && child.startsWith("#/components/schemas/")
          ? `openapi:components#/$defs/${child.slice(21)}`
          : this.rebased(child);
    }
    return out;
  }

  private resolve(value: Json | undefined): Json | undefined {
    let current = value;
    for (let i = 0; current?.$ref && i < 10; i++) {
      const [, , kind, name] = String(current.$ref).split("/");
      current = this.document.components?.[kind!]?.[name!];
    }
    return current;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.rebased(schema) as Json);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The documented path template a request path falls under, if any. */
  templateOf(path: string): string | undefined {
    return this.templates.find((t) => t.re.test(path))?.template;
  }

  /**
   * The contract's complaints about one response (empty when it holds). `body` is the response's
   * text; undefined when it was not read (not JSON, or a HEAD).
   */
  problems(method: string, url: string, status: number, headers: Headers, body: string | undefined): string[] {
    const template = this.templateOf(pathOf(url));
    // Undocumented paths (the dashboard, /docs, paths no route serves) and CORS preflights are not the document's.
    if (!template || method === "OPTIONS") return [];
    const item = this.document.paths[template] as Json;
    const operation = (method === "HEAD" ? item.get : item[method.toLowerCase()]) as Json | undefined;
    const problems: string[] = [];
    if (!operation) {
      // A method the path does not serve: 405 with Allow naming every method it does (or an answer given before routing).
      const documented = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
      if (status === 405) {
        const allow = (headers.get("allow") ?? "").split(/,\s*/);
        const missing = documented.filter((m) => !allow.includes(m));
        if (!headers.has("allow") || missing.length > 0)
          problems.push(`405 without an Allow header naming ${documented.join(", ")} (Allow: ${headers.get("allow")})`);
      } else if (![401, 413, 414, 429, 500].includes(status)) {
        problems.push(`${method} is not documented on ${template} (${documented.join(", ")}), and the answer is ${status}, not 405`);
      }
      if (!headers.has("x-request-id")) problems.push("header x-request-id missing");
      if (body !== undefined) problems.push(...this.bodyProblems(`error`, { $ref: "#/components/schemas/Error" }, body));
      return problems;
    }

    const response = this.resolve(operation.responses?.[String(status)] ?? operation.responses?.[`${String(status)[0]}XX`] ?? operation.responses?.default);
    if (!response) {
      return [`status ${status} is not documented for ${method} ${template} (documented: ${Object.keys(operation.responses ?? {}).join(", ")})`];
    }
    for (const [name, declared] of Object.entries<Json>(response.headers ?? {})) {
      const header = this.resolve(declared);
      if (!header?.required) continue;
      const value = headers.get(name);
      if (value === null) {
        problems.push(`header ${name} missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const numeric = schema.type === "integer" || schema.type === "number";
      const parsed = numeric && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      const validate = this.validator(`header ${template} ${method} ${status} ${name}`, schema);
      if (!validate(parsed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }

    const content = response.content as Json | undefined;
    if (method === "HEAD" || status === 204 || status === 304) return problems;
    const contentType = headers.get("content-type");
    if (!content) {
      if (body) problems.push(`a body is sent but the document lists none (${contentType})`);
      return problems;
    }
    const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
    const media = mediaType ? content[mediaType] : undefined;
    if (!media) {
      problems.push(`content type ${contentType} is not documented (documented: ${Object.keys(content).join(", ")})`);
      return problems;
    }
    if (body !== undefined && media.schema) problems.push(...this.bodyProblems(`${template} ${method} ${status} ${mediaType}`, media.schema, body, mediaType));
    return problems;
  }

  /** The contract's complaints about one request jobpilot sent to a webhook receiver, against the document's `webhooks[name]`. */
  webhookProblems(name: string, headers: Record<string, string>, body: string): string[] {
    const operation = this.document.webhooks?.[name]?.post as Json | undefined;
    if (!operation) return [`webhook ${name} is not documented`];
    const problems: string[] = [];
    for (const declared of operation.parameters ?? []) {
      const parameter = this.resolve(declared)!;
      if (parameter.in !== "header") continue;
      const value = headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required) problems.push(`header ${parameter.name} missing`);
        continue;
      }
      const numeric = parameter.schema?.type === "integer" || parameter.schema?.type === "number";
      const validate = this.validator(`webhook ${name} header ${parameter.name}`, parameter.schema ?? {});
      if (!validate(numeric && /^-?\d+$/.test(value) ? Number(value) : value))
        problems.push(`header ${parameter.name}: ${this.ajv.errorsText(validate.errors)}`);
    }
    const media = operation.requestBody?.content?.["application/json"];
    if (!media) return [...problems, `webhook ${name} documents no JSON body`];
    return [...problems, ...this.bodyProblems(`webhook ${name}`, media.schema, body)];
  }

  private bodyProblems(key: string, schema: unknown, body: string, mediaType = "application/json"): string[] {
    let value: unknown = body;
    if (/json$/.test(mediaType)) {
      try {
        value = JSON.parse(body);
      } catch {
        return [`body is not JSON: ${body.slice(0, 200)}`];
      }
    }
    const validate = this.validator(`body ${key}`, schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 10).map((e) => `body${e.instancePath || ""} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  }

  /** Throws a ContractViolation naming every problem of one response, with the body. */
  async check(request: Request, response: Response): Promise<void> {
    const contentType = response.headers.get("content-type") ?? "";
    // Only bodies that end are read: JSON and HTML answers; a stream is left to the test.
    const readable = request.method !== "HEAD" && /json|text\/html/i.test(contentType);
    const body = readable ? await response.clone().text() : undefined;
    const problems = this.problems(request.method, request.url, response.status, response.headers, body);
    if (problems.length === 0) return;
    throw new ContractViolation(
      `${request.method} ${new URL(request.url).pathname} → ${response.status} breaks the OpenAPI document:\n  ${problems.join("\n  ")}\n  body: ${(body ?? "").slice(0, 500)}`,
    );
  }
}

/** One Contract per document text, for the whole process. */
const contracts = new Map<string, Contract>();
/** The document of each set of routes (see the file comment). */
const documents = new Map<string, Promise<Contract>>();

interface CheckedApp {
  handle: (request: Request) => Promise<Response>;
  routes: { method: string; path: string }[];
}

/**
 * Wraps `app.handle` so every response is checked against the app's served document before the
 * test sees it; a violation throws at the request. Call once per app.
 */
export function enforceContract(app: CheckedApp): void {
  const handle = app.handle.bind(app);
  const contractOf = () => {
    const signature = app.routes.map((r) => `${r.method} ${r.path}`).join("\n");
    let contract = documents.get(signature);
    if (!contract) {
      contract = (async () => {
        const text = await (await handle(new Request("http://localhost/docs/json"))).text();
        let found = contracts.get(text);
        if (!found) contracts.set(text, (found = new Contract(JSON.parse(text))));
        return found;
      })();
      documents.set(signature, contract);
    }
    return contract;
  };
  app.handle = async (request: Request) => {
    const response = await handle(request);
    await (await contractOf()).check(request, response);
    return response;
  };
}
