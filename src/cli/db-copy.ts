import type { CopyProgress, CopyResult } from "../db/copy";
import { intFlag, requireString, UsageError, type Command, type CommandContext } from "./command";
import { formatTs, printJson, table } from "./db";
import { formatCount, progressBar } from "./progress";

const PHASE_LABEL: Record<CopyProgress["phase"], string> = { copy: "copy", verify: "verify" };

/** What to change in the configuration, printed after the report. */
function nextSteps(sqlitePath: string, target: string): string {
  return [
    "What now:",
    `  1. The copy is a snapshot: if a server was running on ${sqlitePath} during it, stop the server, empty the target (or pick a new one) and copy again.`,
    `  2. Point every jobpilot process at PostgreSQL: JOBPILOT_DATABASE_URL=${target} (or --database-url on any command). JOBPILOT_DB is then not read.`,
    "  3. Start `jobpilot serve`; for more nodes, start more processes with the same setting behind your load balancer (README: Scaling out).",
    `  4. Keep ${sqlitePath} as a backup until you are happy; nothing writes to it any more.`,
    "",
  ].join("\n");
}

function report(ctx: CommandContext, sqlitePath: string, target: string, result: CopyResult): void {
  const rows = [["TABLE", "ROWS", "SHA-256 (SQLITE = POSTGRESQL)", "NEXT ID"]];
  for (const t of result.tables) rows.push([t.table, formatCount(t.rows), t.checksum.slice(0, 16), t.nextId === undefined ? "" : String(t.nextId)]);
  const out = [
    `Copied ${sqlitePath} (snapshot of ${formatTs(result.snapshotAt)}) to ${target}: ${formatCount(result.totalRows)} rows in ${result.tables.length} tables, counts and checksums verified.`,
    "",
    table(rows),
  ];
  if (result.migrated.length > 0) out.push(`Migrated the target first: ${result.migrated.join(", ")}.\n`);
  if (result.skipped.length > 0) out.push(`Not copied (no jobpilot table of this name): ${result.skipped.join(", ")}.\n`);
  out.push(nextSteps(sqlitePath, target));
  ctx.io.stdout(out.join("\n"));
}

export const dbCopy: Command = {
  name: "db copy",
  summary: "Copy this installation's SQLite database into an empty PostgreSQL database, verified table by table.",
  usage: "jobpilot db copy --to postgres://USER:PASSWORD@HOST:PORT/DATABASE [--db PATH] [--batch N] [--json]",
  details: [
    "The source is the configured SQLite file (--db or JOBPILOT_DB), read in one read transaction: a consistent snapshot",
    "(the database is in WAL mode), so a running server may keep working, but what it writes after the snapshot is not",
    "copied — stop the server before the copy you switch over with. The source is never written.",
    "",
    "The target must hold no jobpilot rows: an empty or freshly created database. Otherwise nothing is written and the",
    "command exits with code 2. The target is migrated, then filled in one transaction, table by table in foreign-key order",
    "in batches, keeping every id; identity sequences continue after the copied ids. Before that transaction commits, every",
    "table's row count and SHA-256 checksum (rows in primary-key order, values normalised) are compared with the source:",
    "a failure or mismatch commits nothing. Progress goes to stderr (a bar on a terminal); the report and the configuration",
    "to change go to stdout. Exit codes: 0 copied and verified, 1 failed (nothing committed), 2 bad command line or URL,",
    "no source database, or a target that is not empty.",
  ].join("\n"),
  options: {
    to: { type: "string", value: "URL", description: "The PostgreSQL database to fill (postgres:// or postgresql://)" },
    batch: { type: "string", value: "N", description: "Rows per INSERT statement (default 1000)" },
    json: { type: "boolean", description: "Print the result as JSON" },
  },
  async run(ctx) {
    // Loaded by this command only: with it the pg-core schema was evaluated at every start (see db/open.ts).
    const { copySqliteToPg, DbCopyError, redactUrl } = await import("../db/copy");
    const to = requireString(ctx, "to");
    const batchSize = intFlag(ctx, "batch") ?? 1000;
    if (batchSize < 1 || batchSize > 10_000) throw new UsageError("--batch must be between 1 and 10000");
    const sqlitePath = ctx.config().dbPath;
    const target = redactUrl(to);
    const bar = progressBar({ write: ctx.io.stderr, tty: ctx.io.stderrIsTTY === true });
    let phase: CopyProgress["phase"] | null = null;
    let phaseTotal = 0;
    let phaseStarted = performance.now();
    const endPhase = () => {
      if (!phase) return;
      const secs = ((performance.now() - phaseStarted) / 1000).toFixed(1);
      bar.finish(PHASE_LABEL[phase], `${formatCount(phaseTotal)} rows (${secs} s)`);
    };
    let result: CopyResult;
    try {
      result = await copySqliteToPg({
        sqlitePath,
        targetUrl: to,
        batchSize,
        onProgress: (p) => {
          if (p.phase !== phase) {
            endPhase();
            phase = p.phase;
            phaseStarted = performance.now();
          }
          phaseTotal = p.total;
          bar.update(PHASE_LABEL[p.phase], p.done, p.total, p.table);
        },
      });
      endPhase();
    } catch (err) {
      bar.clear();
      if (err instanceof DbCopyError) {
        ctx.io.stderr(`jobpilot db copy: ${err.message}\n`);
        return err.exitCode;
      }
      throw err;
    }
    if (ctx.values.json) {
      printJson(ctx, { source: sqlitePath, target, ...result, config: { JOBPILOT_DATABASE_URL: target } });
    } else report(ctx, sqlitePath, target, result);
    return 0;
  },
};
