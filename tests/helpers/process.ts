import { makeDoc } from "./factories";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** Compiles the real executable into a temporary directory (the same command as `bun run build`). */
export async function buildBinary(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "jp-bin-")), "jobpilot");
  const proc = Bun.spawn([process.execPath, "run", join(ROOT, "scripts/build.ts"), "--outfile", outfile], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error(`build failed: ${await new Response(proc.stderr).text()}`);
  return outfile;
}

export interface ServerProcess {
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process wrote, both streams interleaved. */
  output: () => string;
  stdout: () => string;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number>;
}

/**
 * Starts `serve` as a child process on a free port (PORT=0) and waits for the
 * banner that names the address. The account-safety governor is off unless the test sets JOBPILOT_GOVERNOR, as in
 * tests/helpers/app.ts: these tests apply in bursts to test other things; tests/modules/automation tests the governor,
 * and .ci/run's smoke start runs with the defaults a user gets.
 */
export async function startServer(cmd: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<ServerProcess> {
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: "0", JOBPILOT_GOVERNOR: "false", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const streams = { stdout: "", stderr: "" };
  const pump = async (stream: ReadableStream<Uint8Array>, name: keyof typeof streams) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      out += text;
      streams[name] += text;
    }
  };
  void pump(proc.stdout, "stdout");
  void pump(proc.stderr, "stderr");
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (!url) {
    url = /is listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill();
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${out}`);
    }
    await Bun.sleep(20);
  }
  return {
    url,
    proc,
    output: () => out,
    stdout: () => streams.stdout,
    stderr: () => streams.stderr,
    stop: async (signal = "SIGTERM") => {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

export async function runCommand(cmd: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A browser test's server: `jobpilot serve` on its own database, with the key it printed and a JSON API client for it. */
export async function startKeyedServer(
  dbPath: string,
  env: Record<string, string>,
): Promise<{ server: ServerProcess; key: string; api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }> }> {
  const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
    JOBPILOT_DB: dbPath,
    JOBPILOT_SOURCES: "none",
    JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
    LOG_LEVEL: "warn",
    ...env,
  });
  const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())?.[1];
  if (!key) {
    await server.stop();
    throw new Error(`the server printed no API key:\n${server.output()}`);
  }
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { server, key, api };
}

/**
 * Archives a Python job posted 20 minutes ago on a running server through its admin route (as an operator's
 * importer would) and gives its ciphertext: the browser tests' way to put a job on the dashboard.
 */
export async function postAdminJob(base: string, adminToken: string, title: string): Promise<string> {
  const doc = makeDoc({ title, skills: ["Python"], fixed: 800, country: "Germany", publishTime: new Date(Date.now() - 20 * 60_000).toISOString() });
  const res = await fetch(`${base}/admin/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(doc),
  });
  if (res.status >= 300) throw new Error(`POST /admin/jobs: ${res.status} ${await res.text()}`);
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}

/**
 * Calls a started server as a user would: with the first-run API key its banner printed, or as the admin (the
 * admin token) for POST /admin/jobs. `postJob` pushes a job document and gives its ciphertext.
 */
export function serverClient(server: ServerProcess, adminToken: string) {
  const apiKey = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.stderr())?.[1];
  if (!apiKey) throw new Error(`no first-run API key in the banner:\n${server.output()}`);
  const api = async (method: string, path: string, body?: unknown, admin = false) => {
    const auth: Record<string, string> = admin ? { authorization: `Bearer ${adminToken}` } : { "x-api-key": apiKey };
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const postJob = async (doc: Record<string, unknown>): Promise<string> => {
    const res = await api("POST", "/admin/jobs", doc, true);
    if (res.status >= 300) throw new Error(`POST /admin/jobs: ${res.status} ${JSON.stringify(res.body)}`);
    return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
  };
  return { apiKey, api, postJob };
}
