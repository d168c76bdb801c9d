/**
 * The two schema modules are twins: src/db/schema (sqlite-core) and src/db/schema-pg (pg-core) declare the
 * same tables with the same columns, and every table's select and insert row types are identical, so code
 * above the repositories cannot tell the dialects apart. The type half is checked by `tsc --noEmit`
 * (`bun run typecheck`, run by .ci/run): a mismatch makes one of the `true` below a type error naming the
 * table. The run-time half checks what types cannot: the SQL names of tables and columns.
 */
import { describe, expect, test } from "bun:test";
import { getTableColumns, getTableName, is, Table, type InferInsertModel, type InferSelectModel } from "drizzle-orm";
import * as lite from "../../src/db/schema";
import * as pg from "../../src/db/schema-pg";

/** true when A and B are the same type (optional-ness and readonly-ness included), false otherwise. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type Lite = typeof lite;
type Pg = typeof pg;
type SelectTwin<K extends keyof Lite & keyof Pg> = Lite[K] extends Table
  ? Pg[K] extends Table
    ? Equals<InferSelectModel<Lite[K]>, InferSelectModel<Pg[K]>>
    : false
  : false;
type InsertTwin<K extends keyof Lite & keyof Pg> = Lite[K] extends Table
  ? Pg[K] extends Table
    ? Equals<InferInsertModel<Lite[K]>, InferInsertModel<Pg[K]>>
    : false
  : false;

/** Both modules export the same names (a table missing on one side makes this false). */
export const sameExports: Equals<keyof Lite, keyof Pg> = true;

/** One entry per table, select and insert; a table added to both schemas must be added here (the object must cover every export). */
export const twins: { [K in keyof Lite & keyof Pg]: [SelectTwin<K>, InsertTwin<K>] } = {
  accounts: [true, true],
  apiKeys: [true, true],
  creditLedger: [true, true],
  rateLimitCounters: [true, true],
  aiUsage: [true, true],
  jobs: [true, true],
  jobTracking: [true, true],
  jobTexts: [true, true],
  clientLists: [true, true],
  filteredJobs: [true, true],
  proposalDrafts: [true, true],
  portfolios: [true, true],
  proposalVersions: [true, true],
  feeds: [true, true],
  feedJobs: [true, true],
  feedChannels: [true, true],
  channels: [true, true],
  telegramBotOwners: [true, true],
  jobScores: [true, true],
  events: [true, true],
  webhookAttempts: [true, true],
  tasks: [true, true],
  clusterClaims: [true, true],
  applications: [true, true],
  sandboxFreelancers: [true, true],
  sandboxProfiles: [true, true],
  sandboxSessions: [true, true],
  sandboxClosedJobs: [true, true],
  sandboxSubmissions: [true, true],
  bridgeOutcomes: [true, true],
  companionTasks: [true, true],
  companions: [true, true],
  sourceState: [true, true],
  oauthStates: [true, true],
  oauthTokens: [true, true],
  dashboardSessions: [true, true],
  dashboardSignInLinks: [true, true],
  telegramBots: [true, true],
  telegramBindingCodes: [true, true],
  telegramChats: [true, true],
  telegramDrafts: [true, true],
  companionPairingCodes: [true, true],
  experiments: [true, true],
  experimentArms: [true, true],
  experimentAssignments: [true, true],
  automationLimits: [true, true],
  connectsBalances: [true, true],
  automationAudit: [true, true],
  automationAlerts: [true, true],
  members: [true, true],
  memberLinks: [true, true],
  jobClaims: [true, true],
  feedMembers: [true, true],
};

/** name → [SQL table name, SQL column names sorted] for every table a schema module exports. */
function shape(module: Record<string, unknown>): Record<string, [string, string[]]> {
  const out: Record<string, [string, string[]]> = {};
  for (const [name, value] of Object.entries(module)) {
    if (!is(value, Table)) continue;
    out[name] = [getTableName(value), Object.values(getTableColumns(value)).map((c) => c.name)];
  }
  return out;
}

describe("schema twins", () => {
  test("both schema modules export the same tables, and nothing but tables", () => {
    expect(Object.keys(pg).sort()).toEqual(Object.keys(lite).sort());
    expect(Object.keys(shape(pg)).sort()).toEqual(Object.keys(pg).sort());
    expect(Object.keys(twins).sort()).toEqual(Object.keys(lite).sort());
  });

  test("each table has the same SQL name and the same columns (SQL names, in the same order) in both", () => {
    expect(shape(pg)).toEqual(shape(lite));
  });
});
