/**
 * Writes the OpenAPI document jobpilot serves at /docs/json, with every optional route mounted
 * (admin token, marketplace OAuth callback): the input of the linters and of client generators.
 *
 * Usage: bun run openapi [--binary PATH] [--out FILE]
 *   --binary PATH  start that compiled executable (temporary database, free port) and fetch its
 *                  document, instead of building the app in this process
 *   --out FILE     where to write it (default: stdout)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { closeDeps, createDeps } from "../src/deps";
import { systemClock } from "../src/lib/clock";
import { createLogger } from "../src/lib/log";
import { startServer } from "../tests/helpers/process";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { binary: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log("Usage: bun run openapi [--binary PATH] [--out FILE]");
  process.exit(0);
}

/** The settings that mount every optional route; nothing here is used beyond that. */
const FULL_ENV = { JOBPILOT_ADMIN_TOKEN: "openapi-document-token", JOBPILOT_MARKETPLACE_CLIENT_ID: "openapi-document" };

async function fromProcess(): Promise<string> {
  const config = { ...loadConfig(FULL_ENV), dbPath: ":memory:", localAiThreads: 0 };
  const { deps } = await createDeps(config, { clock: systemClock, log: createLogger({ level: "error", write: () => {} }) });
  try {
    const res = await createApp(deps).handle(new Request("http://localhost/docs/json"));
    return await res.text();
  } finally {
    await closeDeps(deps);
  }
}

/** Starts `binary serve` on a throw-away database and a free port, fetches the document, stops it. */
async function fromBinary(binary: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "jobpilot-openapi-"));
  const server = await startServer([binary, "serve"], { HOST: "127.0.0.1", JOBPILOT_DB: join(dir, "openapi.db"), ...FULL_ENV }, 30_000);
  try {
    const res = await fetch(`${server.url}/docs/json`);
    if (!res.ok) throw new Error(`GET /docs/json answered ${res.status}`);
    return await res.text();
  } finally {
    await server.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

const text = values.binary ? await fromBinary(values.binary) : await fromProcess();
const pretty = `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
if (values.out) await Bun.write(values.out, pretty);
else process.stdout.write(pretty);
