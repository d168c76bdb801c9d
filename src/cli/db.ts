import { closeDeps, createDeps, type Deps } from "../deps";
import type { MigrateResult } from "../db/migrate";
import { systemClock } from "../lib/clock";
import { createLogger, resolveLogFormat } from "../lib/log";
import { resolveSecretKey } from "./secret-key";
import type { CommandContext } from "./command";

/** Opens the configured database (migrating it), runs fn, and always closes it. Logs go to stderr so stdout stays clean for --json. */
/**
 * Runs `fn` on the configured database, migrated. `withSecretKey`: with the key serve seals secrets with (the
 * setting, or on SQLite the key file beside the database, made on first use as serve makes it).
 */
export async function withDeps<T>(
  ctx: CommandContext,
  fn: (deps: Deps, migrations: MigrateResult) => T | Promise<T>,
  opts: { withSecretKey?: boolean } = {},
): Promise<T> {
  const config = ctx.config();
  const log = createLogger({
    level: config.logLevel === "debug" ? "debug" : "warn",
    format: resolveLogFormat(config.logFormat, ctx.io.stderrIsTTY === true),
    write: ctx.io.stderr,
  });
  const secretKey = opts.withSecretKey ? resolveSecretKey(config, log) : undefined;
  const { deps, migrations } = await createDeps(config, { clock: systemClock, log, secretKey });
  try {
    return await fn(deps, migrations);
  } finally {
    await closeDeps(deps);
  }
}

export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout(JSON.stringify(value) + "\n");
}

export function formatTs(ts: number | null): string {
  return ts === null ? "-" : new Date(ts).toISOString().replace(/\.\d+Z$/, "Z");
}

/** Plain aligned columns for people; --json for programs. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}
