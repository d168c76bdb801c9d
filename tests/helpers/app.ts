import { createApp } from "../../src/app";
import { loadConfig, type Config } from "../../src/config";
import { closeDeps, createDeps, type Deps } from "../../src/deps";
import { ManualClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { verifyReadCaches } from "../../src/db/read-cache";
import * as accounts from "../../src/modules/accounts/service";
import { enforceContract } from "./openapi-contract";
import { createMigratedPgDatabase, PG_BACKEND } from "./postgres";

/** The key test apps seal channel settings with. */
export const TEST_SECRET_KEY = "test-secret-key-0123456789abcdef";

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  json?: unknown;
  body?: string | Uint8Array | ReadableStream;
  headers?: Record<string, string>;
}

/**
 * The real app on a real SQLite database (`:memory:` unless a path is given)
 * with the real migrations; only the clock and the log sink are fakes. Its
 * `app.handle` checks every response against the served OpenAPI document
 * (tests/helpers/openapi-contract.ts).
 */
export async function createTestApp(
  opts: { clock?: ManualClock; dbPath?: string; config?: Partial<Config>; dns?: Record<string, string[]>; secretKey?: string | null } = {},
) {
  // Every hit of the hot-read caches is checked against the database: a write that forgets to invalidate one fails its test.
  verifyReadCaches(true);
  const clock = opts.clock ?? new ManualClock();
  const log = memoryLogger();
  // Local AI inline (no threads) unless a test asks for threads: quicker, and nothing to stop. The governor off
  // unless a test asks for it (tests/modules/automation turn it on): most tests apply in bursts against the sandbox.
  const config: Config = { ...loadConfig({}), dbPath: opts.dbPath ?? ":memory:", localAiThreads: 0, governor: false, ...opts.config };
  // The suite's PostgreSQL pass (tests/helpers/postgres.ts): a fresh migrated database per app, unless the test names a SQLite file.
  const pg = PG_BACKEND && !opts.dbPath && !opts.config?.databaseUrl ? await createMigratedPgDatabase() : undefined;
  if (pg) Object.assign(config, { databaseUrl: pg.url, databasePoolSize: 4 });
  // A key of the test's own unless it sets JOBPILOT_SECRET_KEY (serve resolves it from the setting or its key file).
  const secretKey = opts.secretKey !== undefined ? opts.secretKey : (config.secretKey ?? TEST_SECRET_KEY);
  const { deps } = await createDeps(config, { clock, log, secretKey });
  // No network in tests: webhook hosts resolve through this table (any other name is a public test address).
  deps.resolve = async (host: string) => (host === "localhost" ? ["127.0.0.1"] : (opts.dns?.[host] ?? ["93.184.215.14"]));
  const app = createApp(deps);
  // Every response the test receives must match the OpenAPI document the app serves.
  enforceContract(app);

  async function request(method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers["x-api-key"] = o.key;
    let body: string | Uint8Array | ReadableStream | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async function account(input: { name?: string; kind?: "solo" | "agency"; credits?: number } = {}) {
    const created = await accounts.createAccount(deps, { name: input.name ?? "Test account", kind: input.kind, credits: input.credits });
    return { accountId: created.account.id, keyId: created.key.id, apiKey: created.apiKey };
  }

  async function close() {
    await closeDeps(deps);
    await pg?.drop();
  }

  return { deps: deps as Deps, app, clock, log, request, account, close };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/** Readable failure output: the whole response when a status is not what a test expects. */
export function show(res: TestResponse): string {
  return `${res.status} ${res.text}`;
}
