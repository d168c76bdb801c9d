/**
 * PostgreSQL twin of src/db/schema/automation.ts (owned by modules/automation).
 */
import { pgTable, text, integer, index, primaryKey } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { int64, jsonText } from "./columns";
import type { StoredLimits } from "../schema/automation";

export const automationLimits = pgTable(
  "automation_limits",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull().default(""),
    limits: jsonText("limits").notNull().$type<StoredLimits>(),
    updatedAtTs: int64("updated_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId] })],
);

export const connectsBalances = pgTable(
  "connects_balances",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull(),
    available: integer("available").notNull(),
    source: text("source").notNull(),
    readAtTs: int64("read_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId] })],
);

export const automationAudit = pgTable(
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
    atTs: int64("at_ts").notNull(),
    memberId: text("member_id"),
    keyId: text("key_id"),
    actor: text("actor"),
  },
  (t) => [
    index("automation_audit_account_idx").on(t.accountId, t.atTs),
    index("automation_audit_at_idx").on(t.atTs),
    // The governor reads an application's latest entry so a wait it already logged is not logged again.
    index("automation_audit_application_idx").on(t.applicationId, t.atTs),
  ],
);

export const automationAlerts = pgTable(
  "automation_alerts",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    freelancerId: text("freelancer_id").notNull(),
    kind: text("kind").notNull(),
    period: text("period").notNull(),
    sentAtTs: int64("sent_at_ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.freelancerId, t.kind, t.period] })],
);
