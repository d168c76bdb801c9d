/**
 * The account-safety governor and the Connects budget (owned by modules/automation): the limits an account (and
 * each of its freelancers) sets, the Connects balance a driver last read, the audit log of every automated action,
 * and which low-balance alerts were sent in which period (so each is sent once).
 */
import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/** The limits as set; a missing key means the documented default (modules/automation/limits.ts). */
export type StoredLimits = Record<string, unknown>;

/** One row per account ('' freelancer: the account's own limits) and per freelancer that overrides them. */
export const automationLimits = sqliteTable(
  "automation_limits",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull().default(""),
    limits: text("limits", { mode: "json" }).notNull().$type<StoredLimits>(),
    updatedAtTs: integer("updated_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId] })],
);

/** The Connects a freelancer has, as last read from the apply page (companion, sandbox) or set by hand. */
export const connectsBalances = sqliteTable(
  "connects_balances",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull(),
    available: integer("available").notNull(),
    source: text("source").notNull(),
    readAtTs: integer("read_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId] })],
);

/** Every automated action: what, for which freelancer, which rule allowed (or stopped) it, when. Kept 90 days. */
export const automationAudit = sqliteTable(
  "automation_audit",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id"),
    applicationId: text("application_id"),
    action: text("action").notNull(),
    rule: text("rule").notNull(),
    detail: text("detail").notNull(),
    atTs: integer("at_ts").notNull(),
    /** Who made the change: the member, or the API key of no member (both null: automation or the command line). */
    memberId: text("member_id"),
    keyId: text("key_id"),
    /** The actor in words as they were then ("Ana Pérez", "key “ci”"): a log says who it was at the time. */
    actor: text("actor"),
  },
  (t) => [
    index("automation_audit_account_idx").on(t.accountId, t.atTs),
    index("automation_audit_at_idx").on(t.atTs),
    // The governor reads an application's latest entry so a wait it already logged is not logged again.
    index("automation_audit_application_idx").on(t.applicationId, t.atTs),
  ],
);

/** A low-balance or low-budget alert sent for one period ('2026-12-02', '2026-W49', '2026-12', or 'balance'): once each. */
export const automationAlerts = sqliteTable(
  "automation_alerts",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull(),
    kind: text("kind").notNull(),
    period: text("period").notNull(),
    sentAtTs: integer("sent_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId, t.kind, t.period] })],
);
