import { systemClock } from "../lib/clock";
import { runDoctor, type Finding } from "../modules/monitoring/doctor";
import { UsageError, type Command } from "./command";
import { printJson } from "./db";

/** `STATUS  check  detail — fix`, the columns aligned. */
export function formatFindings(findings: Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  return findings.map((f) => `${f.status.padEnd(4)}  ${f.check.padEnd(width)}  ${f.detail}${f.fix ? ` — ${f.fix}` : ""}`).join("\n") + "\n";
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check the configuration, database, disk, model server, sources, webhooks and clock; one line each with what to do.",
  usage: "jobpilot doctor [--db PATH | --database-url URL] [--json]",
  details:
    "Each line is OK, WARN, FAIL or SKIP (does not apply here), the check, what was found and, for WARN and FAIL, the fix. " +
    "The database is read as it is (never created or migrated); SQLite's integrity_check reads the whole file. " +
    "Outside requests go only to the configured model server (GET /models) and JOBPILOT_TIME_CHECK_URL. Exit code 1 when any check FAILs, else 0.",
  options: { json: { type: "boolean", description: "Print a JSON array of {status, check, detail, fix}" } },
  async run(ctx) {
    let findings: Finding[];
    try {
      findings = await runDoctor(ctx.config(), { clock: systemClock });
    } catch (err) {
      // Settings that do not parse are the first thing the doctor reports, not a usage error.
      if (!(err instanceof UsageError)) throw err;
      findings = [
        { status: "FAIL", check: "configuration", detail: err.message, fix: "fix the variable (see README, Configuration); nothing else was checked" },
      ];
    }
    if (ctx.values.json) printJson(ctx, findings);
    else ctx.io.stdout(formatFindings(findings));
    return findings.some((f) => f.status === "FAIL") ? 1 : 0;
  },
};
