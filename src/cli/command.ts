import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type Config } from "../config";

/** What a command may touch of the outside world; main.ts passes the real process, tests pass buffers. */
export interface CliIO {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input as a stream, for commands that read `-`. */
  stdin?: () => ReadableStream<Uint8Array>;
  /** True when standard error is a terminal: long commands then redraw one progress bar instead of printing progress lines. */
  stderrIsTTY?: boolean;
  /** True when standard output is a terminal: LOG_FORMAT=auto then writes readable lines instead of JSON. */
  stdoutIsTTY?: boolean;
  /** The command line that starts this program (absolute paths): the executable, or bun and the entry script when run from source. A service unit's ExecStart is built from it. */
  program?: string[];
  /** The Bun version running this program (the unit `service install` writes sets engine options only for a verified one). */
  bunVersion?: string;
  /** The user id the command runs as (`service install --system` needs root). */
  uid?: number;
}

/** A long-running command (serve) hands this back so main.ts can wire signals and wait. */
export interface Running {
  stop(reason: string): Promise<void>;
  done: Promise<number>;
}

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  value?: string;
  description: string;
}

export interface CommandContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  io: CliIO;
  /** Loads settings from the environment and the command's flags (--db, --port, …). */
  config(): Config;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  positionals?: { name: string; required: boolean }[];
  details?: string;
  run(ctx: CommandContext): number | Running | Promise<number | Running>;
}

/** Bad command line: a one-line message and exit code 2. */
export class UsageError extends Error {}

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  db: { type: "string", value: "PATH", description: "SQLite database file (env JOBPILOT_DB, default ./data/jobpilot.db)" },
  "database-url": { type: "string", value: "URL", description: "PostgreSQL instead of SQLite: postgres://user:pass@host:port/db (env JOBPILOT_DATABASE_URL)" },
  "log-level": { type: "string", value: "LEVEL", description: "debug, info, warn or error (env LOG_LEVEL)" },
  help: { type: "boolean", short: "h", description: "Show this help" },
};

export function helpText(cmd: Command): string {
  const options = { ...cmd.options, ...GLOBAL_OPTIONS };
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
    return `  ${flag.padEnd(30)} ${o.description}${o.multiple ? " (repeatable)" : ""}`;
  });
  return [`Usage: ${cmd.usage}`, "", cmd.summary, ...(cmd.details ? ["", cmd.details] : []), "", "Options:", ...rows, ""].join("\n");
}

export function parseCommand(cmd: Command, argv: string[]): { values: CommandContext["values"]; positionals: string[] } {
  const options = { ...cmd.options, ...GLOBAL_OPTIONS };
  // `--amount -3` would read -3 as a flag; glue negative numbers to the option that takes them.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.startsWith("--") ? argv[i]!.slice(2) : "";
    const next = argv[i + 1];
    if (options[name]?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      args.push(`--${name}=${next}`);
      i++;
    } else args.push(argv[i]!);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(options).map(([k, o]) => [k, { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) }]),
      ) as Parameters<typeof parseArgs>[0] extends infer P ? (P extends { options?: infer O } ? O : never) : never,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // node's messages are long and multi-line; keep the first sentence.
    const first = String((err as Error).message)
      .split("\n")[0]!
      .replace(/\. To specify.*$/, "");
    throw new UsageError(first);
  }
  const values = parsed.values as CommandContext["values"];
  if (values.help) return { values, positionals: parsed.positionals };
  const specs = cmd.positionals ?? [];
  if (parsed.positionals.length > specs.length) throw new UsageError(`unexpected argument '${parsed.positionals[specs.length]}'`);
  specs.forEach((p, i) => {
    if (p.required && parsed.positionals[i] === undefined) throw new UsageError(`missing ${p.name}`);
  });
  return { values, positionals: parsed.positionals };
}

export function makeContext(io: CliIO, values: CommandContext["values"], positionals: string[]): CommandContext {
  return {
    values,
    positionals,
    io,
    config: () => {
      const flags: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(values)) if (typeof v === "string") flags[k] = v;
      try {
        return loadConfig(io.env, flags);
      } catch (err) {
        if (err instanceof ConfigError) throw new UsageError(err.message);
        throw err;
      }
    },
  };
}

/** Where `serve` listens; `dashboard link` takes the same flags so its link points at that server. */
export const LISTEN_OPTIONS: Record<"port" | "host", OptionSpec> = {
  port: { type: "string", value: "N", description: "TCP port (env PORT, default 3000; 0 = any free port)" },
  host: { type: "string", value: "ADDR", description: "Listen address (env HOST, default 127.0.0.1)" },
};

/**
 * Where a browser on this machine reaches a server listening on host:port. A
 * wildcard listen address is not somewhere a browser can go; it means this
 * machine too, so localhost stands in for it.
 */
export function browserBaseUrl(host: string, port: number): string {
  const name = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Required string flag, with the command's usage in the error. */
export function requireString(ctx: CommandContext, name: string): string {
  const v = ctx.values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

/** Parses a whole number flag (negative allowed when asked). */
export function intFlag(ctx: CommandContext, name: string, opts: { allowNegative?: boolean } = {}): number | undefined {
  const v = ctx.values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || (!opts.allowNegative && n < 0)) {
    throw new UsageError(`--${name} must be a ${opts.allowNegative ? "" : "non-negative "}whole number, got '${v}'`);
  }
  return n;
}
