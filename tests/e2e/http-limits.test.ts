import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createApp, listenOptions } from "../../src/app";
import { HEALTH_CACHE_MS } from "../../src/modules/monitoring/health";
import { loadConfig, type Config } from "../../src/config";
import { closeDeps, createDeps } from "../../src/deps";
import { ManualClock, systemClock, type Clock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import * as accounts from "../../src/modules/accounts/service";
import { MAX_REQUEST_HEAD_BYTES, SERVER_HEAD_LIMIT_BYTES } from "../../src/http/request-context";
import { until } from "../helpers/browser";
import { startServer, type ServerProcess } from "../helpers/process";
import packageJson from "../../package.json";

// app.handle bypasses Bun's own router and limits: these run the app on a real socket, listening as `serve` does.
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function serve(overrides: Partial<Config> = {}, log = memoryLogger(), clock: Clock = systemClock) {
  const config: Config = { ...loadConfig({}), dbPath: ":memory:", host: "127.0.0.1", port: 0, ...overrides };
  const { deps } = await createDeps(config, { clock, log });
  const app = createApp(deps);
  app.listen(listenOptions(config));
  const server = app.server!;
  stop = async () => {
    await server.stop(true);
    await closeDeps(deps);
  };
  const { apiKey } = await accounts.createAccount(deps, { name: "a" });
  return { deps, app, config, port: server.port!, base: `http://127.0.0.1:${server.port}`, apiKey };
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given (fetch would add or fix headers) and reads one
 * response: status, headers and a Content-Length body. The server may answer
 * before the body is sent and close; whatever arrived is the answer.
 */
function rawRequest(port: number, head: string, body: Uint8Array = new Uint8Array()): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    const parse = (): RawResponse | undefined => {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return undefined;
      const [statusLine, ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const length = Number(headers["content-length"] ?? 0);
      if (buffer.length < end + 4 + length) return undefined;
      return { status: Number(statusLine!.split(" ")[1]), headers, body: buffer.subarray(end + 4, end + 4 + length).toString("utf8") };
    };
    const finish = () => {
      socket.destroy();
      const res = parse();
      if (res) resolve(res);
      else reject(new Error(`no complete response: ${JSON.stringify(buffer.toString("latin1").slice(0, 300))}`));
    };
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (parse()) finish();
    });
    socket.on("close", finish);
    socket.on("error", () => {}); // a reset after the answer is fine; "close" follows
    socket.write(head);
    socket.write(body);
  });
}

const jsonError = (res: RawResponse) => {
  expect(res.headers["content-type"], `${res.status} ${res.body}`).toMatch(/^application\/json/);
  return (JSON.parse(res.body) as { error: string }).error;
};

describe("HTTP limits on a listening server", () => {
  test("GET /healthz comes from Bun's router without the hook chain and answers as the app does: x-request-id, metrics, access line, 503, 405", async () => {
    const log = memoryLogger("info");
    const { deps, app, config, port, base } = await serve({}, log);
    const viaApp = await app.handle(new Request("http://localhost/healthz"));
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(viaApp.headers.get("content-type"));
    const body = (await res.json()) as { status: string; version: string; database: unknown };
    expect(body).toEqual({ ...((await viaApp.json()) as object), uptimeS: expect.any(Number) } as never);
    expect(res.headers.get("x-request-id")).toMatch(/^[a-z0-9]{16}$/);
    expect((await fetch(`${base}/healthz`, { headers: { "x-request-id": "probe-1" } })).headers.get("x-request-id")).toBe("probe-1");
    expect((await fetch(`${base}/healthz`, { headers: { "x-request-id": "bad id!" } })).headers.get("x-request-id")).not.toBe("bad id!");
    // Counted and logged as the app counts and logs its routes (app.handle above included).
    const metrics = await deps.metrics.render();
    expect(metrics, metrics.slice(0, 500)).toMatch(/jobpilot_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} 4\b/);
    const lines = log.records().filter((r) => r.msg === "request" && r.path === "/healthz");
    expect(lines.map((r) => r.reqId)).toContain("probe-1");
    expect(lines.every((r) => r.status === 200 && r.method === "GET" && typeof r.ms === "number")).toBe(true);
    // Other methods and declared bodies go through the app.
    const post = await fetch(`${base}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    const declared = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\ncontent-length: ${config.maxBodyBytes + 1}\r\nconnection: close\r\n\r\n`);
    expect(declared.status, declared.body).toBe(413);
    // A database that stops answering: 503 once the cached healthy answer expires.
    const db = deps.db;
    deps.db = new Proxy(db, {
      get() {
        throw new Error("database unavailable");
      },
    });
    try {
      await Bun.sleep(HEALTH_CACHE_MS + 10);
      const broken = await fetch(`${base}/healthz`);
      expect(broken.status).toBe(503);
      expect(((await broken.json()) as { database: unknown }).database).toEqual({ status: "error", error: "database unavailable" });
    } finally {
      deps.db = db;
    }
  });

  test("Bun's router serves HEAD with the GET handler: it is metered in the GET route's bucket", async () => {
    const { deps, base, apiKey } = await serve();
    const accountId = (await accounts.authenticate(deps, apiKey))!.accountId;
    await accounts.setRateLimits(deps, accountId, { overrides: { "freelancers.minute": 1 } });
    const headers = { "x-api-key": apiKey };
    expect((await fetch(`${base}/api/auto-apply-v2/freelancers`, { headers })).status).toBe(200);
    const head = await fetch(`${base}/api/auto-apply-v2/freelancers`, { method: "HEAD", headers });
    expect(head.status).toBe(429);
    const slashed = await fetch(`${base}/api/auto-apply-v2/freelancers/`, { headers });
    // Bun's router does not serve the slashed path (404); if it ever does, it must be refused with the route.
    const slashedBody = (await slashed.json()) as { error: string };
    expect(slashed.status === 429 || slashedBody.error.startsWith("No route for"), JSON.stringify(slashedBody)).toBe(true);
  });

  test("GET /api/v1/account, many requests at once (answered at hand or by the app): one answer, each request counted, logged and timed once", async () => {
    const log = memoryLogger("info");
    // A clock standing mid-minute, so every request falls in one rate-limit window.
    const { deps, base, apiKey } = await serve({}, log, new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 30)));
    const url = `${base}/api/v1/account`;
    const first = await fetch(url, { headers: { "x-api-key": apiKey } });
    expect(first.status).toBe(200);
    const body = await first.text();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(url, { headers: { "x-api-key": apiKey, "x-request-id": `burst-${i}` } }).then(async (res) => ({
          status: res.status,
          body: await res.text(),
          contentType: res.headers.get("content-type"),
          id: res.headers.get("x-request-id"),
          limit: res.headers.get("x-ratelimit-limit"),
          remaining: Number(res.headers.get("x-ratelimit-remaining")),
        })),
      ),
    );
    for (const [i, a] of answers.entries()) {
      expect(a).toMatchObject({
        status: 200,
        body,
        contentType: first.headers.get("content-type"),
        id: `burst-${i}`,
        limit: first.headers.get("x-ratelimit-limit"),
      });
    }
    // 120 a minute: the first request left 119, and the 40 after it each took one place, none twice.
    expect(answers.map((a) => a.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => 79 + i));
    const head = await fetch(url, { method: "HEAD", headers: { "x-api-key": apiKey } });
    expect(head.status).toBe(200);
    expect(head.headers.get("x-ratelimit-remaining")).toBe("78");
    // A request the app answered writes its access line after the response, in a hook's turn after the answer:
    // wait for all 42, then a little more, so that a line written twice would show as well.
    const accountLines = () => log.records().filter((r) => r.msg === "request" && r.path === "/api/v1/account");
    await until("42 access lines", 2000, () => accountLines().length >= 42);
    await Bun.sleep(20);
    const lines = accountLines();
    expect(
      lines
        .filter((r) => String(r.reqId).startsWith("burst-"))
        .map((r) => r.reqId)
        .sort(),
    ).toEqual(answers.map((a) => a.id).sort());
    expect(lines).toHaveLength(42);
    const metrics = await deps.metrics.render();
    expect(metrics).toMatch(/jobpilot_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/account",status="200"\} 41\b/);
    expect(metrics).toMatch(/jobpilot_http_request_duration_seconds_count\{method="HEAD",route="\/api\/v1\/account",status="200"\} 1\b/);
  });

  test("a Host of a few letters (a proxy's name for the service) reaches the routes Bun's router serves, answered at hand or not", async () => {
    const { port, apiKey, config } = await serve();
    const get = (target: string, host: string) =>
      rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nx-api-key: ${apiKey}\r\nconnection: close\r\n\r\n`);
    for (const host of ["x", "app", "127.0.0.1:8080"]) {
      // The first request for the account is handed on (the key is not in memory yet) to the route's own handler.
      for (const target of ["/api/v1/account", "/api/v1/feeds?x=1"]) {
        const res = await get(target, host);
        expect(res.status, `${host} ${target}: ${res.body}`).toBe(200);
      }
      // What /healthz does not answer itself (a declared body) is handed on the same way.
      const declared = await rawRequest(
        port,
        `GET /healthz HTTP/1.1\r\nHost: ${host}\r\ncontent-length: ${config.maxBodyBytes + 1}\r\nconnection: close\r\n\r\n`,
      );
      expect(declared.status, `${host} /healthz: ${declared.body}`).toBe(413);
    }
  });

  test("a body over the limit gets the JSON 413 at any size, declared or chunked, and the server keeps serving", async () => {
    const { port, apiKey } = await serve();
    const head = (framing: string) =>
      `POST /api/v1/feeds HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\nconnection: close\r\n${framing}\r\n`;
    const expected = "Request body is larger than 1048576 bytes";
    for (const size of [1_500_000, 5_000_000, 40_000_000]) {
      const res = await rawRequest(port, head(`content-length: ${size}\r\n`), new Uint8Array(size).fill(97));
      expect(res.status, `declared ${size}`).toBe(413);
      expect(jsonError(res)).toBe(expected);
    }
    // a length no one would send: refused before a byte of it is read
    const claimed = await rawRequest(port, head("content-length: 1000000000000000\r\n"), new Uint8Array(100).fill(97));
    expect(claimed.status).toBe(413);
    expect(jsonError(claimed)).toBe(expected);
    for (const size of [1_100_000, 5_000_000]) {
      const piece = new Uint8Array(16_384).fill(97);
      const parts: Uint8Array[] = [];
      for (let sent = 0; sent < size; sent += piece.length) parts.push(Buffer.from("4000\r\n"), piece, Buffer.from("\r\n"));
      parts.push(Buffer.from("0\r\n\r\n"));
      const res = await rawRequest(port, head("transfer-encoding: chunked\r\n"), Buffer.concat(parts));
      expect(res.status, `chunked ${size}`).toBe(413);
      expect(jsonError(res)).toBe(expected);
    }
    const after = await rawRequest(port, `GET /api/v1/account HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\nconnection: close\r\n\r\n`);
    expect(after.status).toBe(200);
  });

  test("a URL over 8 KiB gets a JSON 414; one at the limit is served", async () => {
    const { port, apiKey } = await serve();
    const get = (target: string) => rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\nconnection: close\r\n\r\n`);
    const path = "/api/auto-apply-v2/applied-jobs?status=applied&pad=";
    const atLimit = await get(path + "a".repeat(8192 - path.length));
    expect(atLimit.status, atLimit.body).toBe(200);
    for (const size of [8193, 15_000]) {
      const res = await get(path + "a".repeat(size - path.length));
      expect(res.status, `${size}: ${res.body}`).toBe(414);
      expect(jsonError(res)).toBe("URL is longer than 8192 bytes");
    }
  });

  test("without the raised limit (bun run src/main.ts), a request head over 16 KiB gets Bun's own empty 431: the app never sees it", async () => {
    const { port, apiKey } = await serve();
    const res = await rawRequest(
      port,
      `GET /api/v1/account HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\nx-pad: ${"a".repeat(17_000)}\r\nconnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(res.body).toBe("");
  });
});

describe("as users start it (bun run start)", () => {
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  test("the start scripts raise Bun's request-head limit to SERVER_HEAD_LIMIT_BYTES, above the one jobpilot answers", () => {
    const flag = `--max-http-header-size=${SERVER_HEAD_LIMIT_BYTES}`;
    expect(packageJson.scripts.start).toContain(flag);
    expect(packageJson.scripts.jobpilot).toContain(flag);
    expect(SERVER_HEAD_LIMIT_BYTES).toBeGreaterThan(MAX_REQUEST_HEAD_BYTES);
  });

  test("a 60 KB query string gets the JSON 414, a head over 64 KiB the JSON 431 (at hand or not); only one over Bun's raised limit meets its empty 431", async () => {
    server = await startServer([process.execPath, "run", "start"], { JOBPILOT_DB: ":memory:" });
    const port = Number(new URL(server.url).port);
    const long = await rawRequest(port, `GET /healthz?pad=${"a".repeat(60_000)} HTTP/1.1\r\nHost: x\r\nconnection: close\r\n\r\n`);
    expect(long.status, long.body).toBe(414);
    expect(jsonError(long)).toBe("URL is longer than 8192 bytes");
    const longer = await rawRequest(port, `GET /healthz?pad=${"a".repeat(MAX_REQUEST_HEAD_BYTES)} HTTP/1.1\r\nHost: x\r\nconnection: close\r\n\r\n`);
    expect(longer.status, longer.body).toBe(414);

    // A head of exactly `bytes`, padded by one header: /healthz is answered from Bun's router, /api/v1/feeds by the app.
    const withHead = (target: string, bytes: number) => {
      const start = `GET ${target} HTTP/1.1\r\nHost: x\r\nconnection: close\r\nx-pad: `;
      const head = `${start}${"a".repeat(bytes - start.length - 4)}\r\n\r\n`;
      expect(head.length).toBe(bytes);
      return rawRequest(port, head);
    };
    const expected = `Request headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes (request line and headers together)`;
    for (const target of ["/healthz", "/api/v1/feeds"]) {
      const atLimit = await withHead(target, MAX_REQUEST_HEAD_BYTES);
      expect(atLimit.status, `${target} at the limit: ${atLimit.body}`).not.toBe(431);
      for (const bytes of [MAX_REQUEST_HEAD_BYTES + 1, 300_000, SERVER_HEAD_LIMIT_BYTES - 1000]) {
        const over = await withHead(target, bytes);
        expect(over.status, `${target} ${bytes}: ${over.body}`).toBe(431);
        expect(jsonError(over)).toBe(expected);
        expect(over.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]+$/);
      }
    }
    const huge = await withHead("/healthz", SERVER_HEAD_LIMIT_BYTES + 1000);
    expect(huge.status).toBe(431);
    expect(huge.body).toBe("");
    // The server goes on serving.
    expect((await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nconnection: close\r\n\r\n")).status).toBe(200);
  }, 30_000);
});
