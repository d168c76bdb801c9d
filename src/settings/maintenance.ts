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
    doc: "When `serve` backs up its SQLite database (cron pattern, e.g. `0 3 * * *` for 03:00 every day; croner syntax, an optional seconds field first); unset: no scheduled backups. Ignored, with a warning, on PostgreSQL (use `pg_dump`).",
  },
  backupKeep: {
    env: "JOBPILOT_BACKUP_KEEP",
    flag: undefined,
    schema: T.Integer({ minimum: 1, maximum: 10_000 }),
    default: 7,
    doc: "How many scheduled backups to keep: after each one, older `jobpilot-…Z.sqlite` files in the backup directory are deleted (no other file is touched).",
  },
  backupDir: {
    env: "JOBPILOT_BACKUP_DIR",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "Where `serve`'s scheduled backups and `jobpilot backup` write (`--to` overrides it for the command); unset: a `backups` directory beside the database file.",
  },
  retentionDays: {
    env: "JOBPILOT_RETENTION_DAYS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 36_500 }),
    default: 90,
    doc: "Every hour `serve` deletes settled webhook and channel events (delivered, failed, suppressed, skipped, no endpoint) and their attempts, and feed entries, older than this many days, plus expired dashboard sessions and browser companion tasks that ended that long ago, in small batches. Never deleted: applications, the credit ledger, archived jobs and client data, events still to send, and feed entries that are starred, applied for, or whose event is still to send. `0` keeps everything.",
  },
} as const satisfies Record<string, Setting>;
