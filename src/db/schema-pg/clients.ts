/**
 * PostgreSQL twin of src/db/schema/clients.ts (owned by modules/clients).
 */
import { pgTable, text, primaryKey } from "drizzle-orm/pg-core";
import { int64 } from "./columns";
import { accounts } from "./accounts";
import { CLIENT_LISTS } from "../enums";

export const clientLists = pgTable(
  "client_lists",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    companyId: text("company_id").notNull(),
    list: text("list", { enum: CLIENT_LISTS }).notNull(),
    reason: text("reason"),
    addedAtTs: int64("added_at_ts").notNull(),
    addedBy: text("added_by"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.companyId] })],
);
