/**
 * The server's own settings: where it listens, its database and logs, the admin token, request and shutdown limits, the first account's credits.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import { ENGINE_TUNING_ENV } from "../lib/engine-tuning";
import { LOG_LEVELS } from "../lib/log";
import type { Setting } from "./setting";

export const SERVER_SETTINGS = {
  port: {
    env: "PORT",
    flag: "port",
    schema: T.Integer({ minimum: 0, maximum: 65535 }),
    default: 3000,
    doc: "TCP port of the HTTP server (0 picks a free one).",
  },
  host: {
    env: "HOST",
    flag: "host",
    schema: T.String({ minLength: 1 }),
    default: "127.0.0.1",
    doc: "Address to listen on. Use 0.0.0.0 to accept connections from other machines.",
  },
  dbPath: {
    env: "JOBPILOT_DB",
    flag: "db",
    schema: T.String({ minLength: 1 }),
    default: "./data/jobpilot.db",
    doc: "SQLite database file (its directory is created if missing); `:memory:` for a throw-away database.",
  },
  databaseUrl: {
    env: "JOBPILOT_DATABASE_URL",
    flag: "database-url",
    schema: T.Optional(T.String({ pattern: "^postgres(ql)?://", minLength: 12 })),
    default: undefined,
    doc: "postgres://user:password@host:port/database selects PostgreSQL (several processes may share it); unset, the SQLite file JOBPILOT_DB.",
  },
  databasePoolSize: {
    env: "JOBPILOT_DATABASE_POOL_SIZE",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 500 }),
    default: 10,
    doc: "PostgreSQL connections this process keeps open at most.",
  },
  adminToken: {
    env: "JOBPILOT_ADMIN_TOKEN",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Bearer token for the /admin routes (at least 16 characters). Unset: the admin routes answer 404.",
  },
  logLevel: {
    env: "LOG_LEVEL",
    flag: "log-level",
    schema: T.Union(LOG_LEVELS.map((l) => T.Literal(l))),
    default: "info",
    doc: "debug, info, warn or error.",
  },
  logFormat: {
    env: "LOG_FORMAT",
    flag: undefined,
    schema: T.Union([T.Literal("auto"), T.Literal("json"), T.Literal("pretty")]),
    default: "auto",
    doc: "json (one object per line), pretty (a readable line), or auto: pretty when standard output is a terminal, json otherwise (a service, a pipe, a log shipper).",
  },
  sqliteSynchronous: {
    env: "JOBPILOT_SQLITE_SYNCHRONOUS",
    flag: undefined,
    schema: T.Union([T.Literal("FULL"), T.Literal("NORMAL")]),
    default: "FULL",
    doc: "FULL survives power loss (credits, applications); NORMAL is faster and can lose the last commits on power loss.",
  },
  maxBodyBytes: {
    env: "JOBPILOT_MAX_BODY_BYTES",
    flag: undefined,
    schema: T.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
    default: 1024 * 1024,
    doc: "Largest accepted request body; larger bodies get 413.",
  },
  shutdownTimeoutMs: {
    env: "JOBPILOT_SHUTDOWN_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 600_000 }),
    default: 10_000,
    doc: "How long SIGTERM/SIGINT waits for in-flight requests and background work before closing.",
  },
  firstRunCredits: {
    env: "JOBPILOT_FIRST_RUN_CREDITS",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 10,
    doc: "Credits given to the account `serve` creates on an empty database.",
  },
  engineTuning: {
    env: ENGINE_TUNING_ENV,
    flag: undefined,
    schema: T.Boolean(),
    default: true,
    doc: "`serve` restarts itself in place (same process) with the JavaScript engine's heap growth capped, which keeps a burst's peak ~50–90 MiB lower (Linux, verified Bun versions only; see Run it on a VPS). false: no restart, the engine's defaults.",
  },
} as const satisfies Record<string, Setting>;
