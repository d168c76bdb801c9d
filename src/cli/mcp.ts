import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { createApp } from "../app";
import { closeDeps, createDeps, databaseLabel, flushUsage, VERSION } from "../deps";
import { systemClock } from "../lib/clock";
import { createLogger, resolveLogFormat } from "../lib/log";
import { accountCaller, authenticate } from "../modules/accounts/service";
import type { ApiConnection } from "../modules/mcp/server";
import { Loop } from "../worker/loop";
import { UsageError, type Command, type CommandContext, type Running } from "./command";

/** Where the tools' API requests go, what that is called in messages, and how to let go of it. */
interface Backend {
  conn: ApiConnection;
  label: string;
  close: () => Promise<void>;
}

/** The running server at JOBPILOT_URL, called with JOBPILOT_API_KEY. */
function remoteBackend(ctx: CommandContext): Backend {
  const config = ctx.config();
  if (typeof ctx.values.account === "string")
    throw new UsageError("--account needs --db or --database-url; against a server, JOBPILOT_API_KEY names the account");
  if (!config.serverUrl) {
    throw new UsageError(
      "set JOBPILOT_URL (or --url) to the address of a running server, or give --db PATH or --database-url URL to open the database directly",
    );
  }
  if (!config.serverApiKey) throw new UsageError("set JOBPILOT_API_KEY to an API key of the account to act for (jobpilot key create --account ID)");
  return {
    conn: { baseUrl: config.serverUrl, apiKey: config.serverApiKey, send: (request) => fetch(request) },
    label: config.serverUrl,
    close: async () => {},
  };
}

/**
 * The database itself, through this process's own app (never listening): the same routes, services and
 * checks as the server's API. Background work it queues (submitting an application) is done by a `serve`
 * on the same database.
 */
async function directBackend(ctx: CommandContext): Promise<Backend> {
  const config = ctx.config();
  if (typeof ctx.values.url === "string") throw new UsageError("give --url (a running server) or --db/--database-url (the database), not both");
  const accountId = typeof ctx.values.account === "string" ? ctx.values.account : undefined;
  if (accountId && config.serverApiKey) throw new UsageError("give --account or JOBPILOT_API_KEY, not both");
  if (!accountId && !config.serverApiKey) throw new UsageError("say which account to act for: --account ID, or JOBPILOT_API_KEY set to one of its keys");
  // Logs go to stderr: stdout carries nothing but protocol messages.
  const log = createLogger({
    level: config.logLevel === "debug" ? "debug" : "warn",
    format: resolveLogFormat(config.logFormat, ctx.io.stderrIsTTY === true),
    write: ctx.io.stderr,
  });
  const { deps } = await createDeps(config, { clock: systemClock, log });
  try {
    let apiKey = config.serverApiKey;
    let app: ReturnType<typeof createApp>;
    if (accountId) {
      const caller = await accountCaller(deps, accountId);
      apiKey = `local_${crypto.randomUUID()}${crypto.randomUUID()}`;
      app = createApp(deps, { localCaller: { token: apiKey, caller } });
    } else {
      if (!(await authenticate(deps, apiKey))) throw new Error("JOBPILOT_API_KEY is not an active API key in this database");
      app = createApp(deps);
    }
    // Day counts of the rate limits and keys' last use are written behind, as `serve` does.
    const usageFlush = new Loop({ name: "usage-flush", intervalMs: 1000, run: () => flushUsage(deps), log });
    usageFlush.start();
    return {
      conn: { baseUrl: "http://jobpilot.internal", apiKey: apiKey!, send: (request) => app.handle(request) },
      label: databaseLabel(config),
      close: async () => {
        await usageFlush.stop();
        await closeDeps(deps);
      },
    };
  } catch (err) {
    await closeDeps(deps);
    throw err;
  }
}

export const mcpCommand: Command = {
  name: "mcp",
  summary: "Serve the Model Context Protocol on standard input and output, for AI assistants (Claude Desktop and other MCP clients).",
  usage: "jobpilot mcp [--url URL]   |   jobpilot mcp --db PATH|--database-url URL [--account ID]",
  details: [
    "By default it calls a running server over its HTTP API: JOBPILOT_URL (or --url) is the server's address and JOBPILOT_API_KEY the key of the account to act for.",
    "With --db or --database-url it opens the database itself and acts for --account ID or for the account of JOBPILOT_API_KEY; what it queues (applications) is submitted by a `serve` on that database.",
    "On SQLite, while a server runs on the file prefer JOBPILOT_URL: the server keeps its feeds in memory and matches new jobs against a feed created or changed here only after it restarts.",
    "Standard output carries only protocol messages; logs go to standard error. It stops at the end of standard input.",
  ].join("\n"),
  options: {
    url: { type: "string", value: "URL", description: "Address of a running server (env JOBPILOT_URL)" },
    account: { type: "string", value: "ID", description: "With --db/--database-url: the account to act for, instead of JOBPILOT_API_KEY" },
  },
  async run(ctx): Promise<Running> {
    if (!ctx.io.stdin) throw new UsageError("standard input is not available");
    const isDirect = typeof ctx.values.db === "string" || typeof ctx.values["database-url"] === "string";
    const backend = isDirect ? await directBackend(ctx) : remoteBackend(ctx);

    // Loaded here, not at the top: every command would otherwise evaluate the MCP SDK at start.
    const [{ createMcpServer }, { stdioTransport }] = await Promise.all([import("../modules/mcp/server"), import("../modules/mcp/stdio")]);
    const { server, idle } = createMcpServer(backend.conn, VERSION);
    const stdin = Readable.fromWeb(ctx.io.stdin() as NodeReadableStream<Uint8Array>);
    let resolveDone!: (code: number) => void;
    const done = new Promise<number>((resolve) => (resolveDone = resolve));
    let stopping: Promise<void> | undefined;
    const stop = (reason: string) => {
      stopping ??= (async () => {
        ctx.io.stderr(`jobpilot mcp: stopping (${reason})\n`);
        // Requests already read are answered first: closing the server would drop their answers.
        await idle();
        await server.close();
        await backend.close();
        resolveDone(0);
      })();
      return stopping;
    };
    // The client closing its end of the pipe is how a stdio MCP session ends.
    stdin.on("end", () => void stop("end of input"));
    await server.connect(stdioTransport(stdin, ctx.io.stdout));
    ctx.io.stderr(`jobpilot mcp ${VERSION}: serving ${backend.label} over stdio\n`);
    return { done, stop };
  },
};
