/**
 * Keeping an installation healthy over months: scheduled backups of the SQLite file and how many to keep, and
 * how long delivery history, feed entries and sessions are kept. Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const MAINTENANCE_SETTINGS = {
  backupCron: {
    env: "JOBPILOT_BACKUP_CRON",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 9 })),
    default: undefined,
    doc: "When `serve` backs up its SQLite database (cron pattern, e.g. `0 3 * * *`); unset: no scheduled backups.",
  },
  backupKeep: {
    env: "JOBPILOT_BACKUP_KEEP",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 10_000 }),
    default: 7,
    doc: "How many scheduled backups to keep; older ones in the backup directory are deleted after each new one.",
  },
  backupDir: {
    env: "JOBPILOT_BACKUP_DIR",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "Where backups go; unset: a `backups` directory beside the database file.",
  },
  retentionDays: {
    env: "JOBPILOT_RETENTION_DAYS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 36_500 }),
    default: 90,
    doc: "Settled webhook events and their attempts, and feed entries, older than this many days are deleted, with expired dashboard sessions and ended browser companion tasks (hourly, in small batches); applications, credits, archived jobs and starred or applied entries are kept. 0 keeps everything.",
  },
} as const satisfies Record<string, Setting>;
