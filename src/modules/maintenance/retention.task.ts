import { pruneAudit } from "../automation/service";
import type { Deps } from "../../deps";
import { pruneOldRows } from "./service";

export const RETENTION_TASK = "maintenance.retention";

/** Every hour, at a minute unlikely to meet other hourly work. */
export const RETENTION_CRON = "41 * * * *";

/** The scheduled retention run: deletes what is past JOBPILOT_RETENTION_DAYS, batch by batch (see ./service). */
export async function runRetention(deps: Pick<Deps, "db" | "clock" | "log" | "config">): Promise<void> {
  const started = performance.now();
  const deleted = await pruneOldRows(deps, { retentionDays: deps.config.retentionDays });
  // The audit log keeps its own 90 days, whatever JOBPILOT_RETENTION_DAYS says: what automation did stays readable.
  const audit = await pruneAudit(deps);
  if (audit > 0) deps.log.info("retention: audit entries older than 90 days deleted", { deleted: audit });
  if (deleted.events + deleted.feedEntries + deleted.companionTasks > 0) {
    deps.log.info("retention: old rows deleted", { ...deleted, retentionDays: deps.config.retentionDays, ms: Math.round(performance.now() - started) });
  }
}
