/**
 * The server's own settings: where it listens, its database and logs, the admin token, request and shutdown limits, the first account's credits.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
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
    doc: "Address to listen on. Use `0.0.0.0` to accept connections from other machines.",
  },
  dbPath: {
    env: "JOBPILOT_DB",
    flag: "db",
    schema: T.String({ minLength: 1 }),
    default: "./data/jobpilot.db",
    doc: "SQLite database file (its directory is created if missing); `:memory:` for a throw-away database. Not read when `JOBPILOT_DATABASE_URL` is set.",
  },
  databaseUrl: {
    env: "JOBPILOT_DATABASE_URL",
    flag: "database-url",
    schema: T.Optional(T.String({ pattern: "^postgres(ql)?://", minLength: 12 })),
    default: undefined,
    doc: "`postgres://user:password@host:port/database` selects PostgreSQL, which several `jobpilot` processes may share (see Scaling out in docs/operations.md); unset: the SQLite file `JOBPILOT_DB`. Every command takes the flag.",
  },
  databasePoolSize: {
    env: "JOBPILOT_DATABASE_POOL_SIZE",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 500 }),
    default: 10,
    doc: "PostgreSQL connections this process keeps open at most; keep nodes × pool below PostgreSQL's `max_connections`.",
  },
  adminToken: {
    env: "JOBPILOT_ADMIN_TOKEN",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 16 })),
    default: undefined,
    doc: "Bearer token for the `/admin` routes (at least 16 characters). Unset: the admin routes answer 404.",
  },
  logLevel: {
    env: "LOG_LEVEL",
    flag: "log-level",
    schema: T.Union(LOG_LEVELS.map((l) => T.Literal(l))),
    default: "info",
    doc: "`debug`, `info`, `warn` or `error`. At `info` every request writes one access line, with secrets in its path redacted.",
  },
  logFormat: {
    env: "LOG_FORMAT",
    flag: undefined,
    schema: T.Union([T.Literal("auto"), T.Literal("json"), T.Literal("pretty")]),
    default: "auto",
    doc: "`json` (one object per line on stdout), `pretty` (a readable line), or `auto`: pretty when stdout is a terminal, json otherwise (a service, a pipe, a log shipper). A 304 (the inbox asking whether anything changed) is logged at debug.",
  },
  sqliteSynchronous: {
    env: "JOBPILOT_SQLITE_SYNCHRONOUS",
    flag: undefined,
    schema: T.Union([T.Literal("FULL"), T.Literal("NORMAL")]),
    default: "FULL",
    doc: "`FULL` survives power loss (credits, applications); `NORMAL` is faster and can lose the last commits on power loss.",
  },
  maxBodyBytes: {
    env: "JOBPILOT_MAX_BODY_BYTES",
    flag: undefined,
    schema: T.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
    default: 1024 * 1024,
    doc: "Largest accepted request body, in bytes; larger bodies get a JSON 413, whether declared by Content-Length or streamed.",
  },
  shutdownTimeoutMs: {
    env: "JOBPILOT_SHUTDOWN_TIMEOUT_MS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 600_000 }),
    default: 10_000,
    doc: "How long SIGTERM/SIGINT waits for in-flight requests and background work before closing (the systemd unit's `TimeoutStopSec` is this plus 10 s).",
  },
  firstRunCredits: {
    env: "JOBPILOT_FIRST_RUN_CREDITS",
    flag: undefined,
    schema: T.Integer({ minimum: 0 }),
    default: 10,
    doc: "Credits given to the account `serve` creates on an empty database.",
  },
} as const satisfies Record<string, Setting>;
