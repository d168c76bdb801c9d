/**
 * Client lists (owned by modules/clients): clients an account blocks or favours, by the marketplace's company id
 * (issue 45). Shared by the account's members; the spec's client record is untouched.
 */
import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { CLIENT_LISTS } from "../enums";

export const clientLists = sqliteTable(
  "client_lists",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    companyId: text("company_id").notNull(),
    list: text("list", { enum: CLIENT_LISTS }).notNull(),
    reason: text("reason"),
    addedAtTs: integer("added_at_ts").notNull(),
    /** The member who added it; null for an API key of no member. */
    addedBy: text("added_by"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.companyId] })],
);
