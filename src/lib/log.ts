import { iso } from "./time";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "json" | "pretty";

/** LOG_FORMAT's `auto`: a person at a terminal reads lines, anything else (a service, a pipe) gets JSON. */
export function resolveLogFormat(setting: LogFormat | "auto", isTerminal: boolean): LogFormat {
  return setting === "auto" ? (isTerminal ? "pretty" : "json") : setting;
}
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  isEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level: LogLevel;
  format?: LogFormat;
  /** Where finished lines go; main.ts passes stdout, tests pass an array. */
  write: (line: string) => void;
  now?: () => number;
}

/** Structured logs: one JSON object per line (or a readable line with format "pretty"). */
export function createLogger(opts: LoggerOptions, base: LogFields = {}): Logger {
  const min = LOG_LEVELS.indexOf(opts.level);
  const now = opts.now ?? Date.now;
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < min) return;
    const record: LogFields = { ts: iso(now()), level, msg, ...base, ...fields };
    for (const [k, v] of Object.entries(record)) {
      if (v instanceof Error) record[k] = { name: v.name, message: v.message, stack: v.stack };
    }
    if (opts.format === "pretty") {
      const { ts, level: l, msg: m, ...rest } = record;
      const extra = Object.keys(rest).length ? " " + JSON.stringify(rest) : "";
      opts.write(`${ts} ${String(l).toUpperCase().padEnd(5)} ${m}${extra}\n`);
    } else {
      opts.write(JSON.stringify(record) + "\n");
    }
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(opts, { ...base, ...fields }),
    isEnabled: (level) => LOG_LEVELS.indexOf(level) >= min,
  };
}

/** A logger that keeps its lines, for tests. */
export function memoryLogger(level: LogLevel = "debug"): Logger & { lines: string[]; records: () => LogFields[] } {
  const lines: string[] = [];
  const logger = createLogger({ level, write: (l) => lines.push(l) });
  return Object.assign(logger, { lines, records: () => lines.map((l) => JSON.parse(l) as LogFields) });
}
