/**
 * Client lists (issue 45): an account blocks or favours a client by the marketplace's company id, with a reason,
 * and every member of the account shares the lists. A blocked client's jobs never enter a feed and a favoured
 * one's are marked (modules/feeds reads the lists at ingest through lists-read.ts); this file is the lists'
 * writes and the reads of the API, the dashboard, Telegram and MCP.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import { tx, type Db } from "../../db/client";
import type { ClientList } from "../../db/enums";
import { exec, many, one, tables } from "../../db/query";
import type { clientLists } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { iso } from "../../lib/time";
import type { AuthContext } from "../accounts/service";
import { CLIENT_REASON_MAX, type ClientListEntry } from "./model";

export type ClientListRow = typeof clientLists.$inferSelect;

type ListsDeps = { db: Db; clock: Clock };

// ---------- repository ----------

function findEntry(db: Db, accountId: string, companyId: string): Promise<ClientListRow | undefined> {
  const { clientLists: l } = tables(db);
  return one(
    db,
    db
      .select()
      .from(l)
      .where(and(eq(l.accountId, accountId), eq(l.companyId, companyId))),
  );
}

async function upsertEntry(db: Db, row: ClientListRow): Promise<void> {
  const { clientLists: l } = tables(db);
  await exec(
    db,
    db
      .insert(l)
      .values(row)
      .onConflictDoUpdate({ target: [l.accountId, l.companyId], set: { list: row.list, reason: row.reason, addedAtTs: row.addedAtTs, addedBy: row.addedBy } }),
  );
}

async function deleteEntry(db: Db, accountId: string, companyId: string): Promise<boolean> {
  const { clientLists: l } = tables(db);
  return (await exec(db, db.delete(l).where(and(eq(l.accountId, accountId), eq(l.companyId, companyId))))) > 0;
}

/** The account's entries, newest first; one list when given. */
async function listEntries(db: Db, accountId: string, list?: ClientList): Promise<ClientListRow[]> {
  const { clientLists: l } = tables(db);
  return many(
    db,
    db
      .select()
      .from(l)
      .where(and(eq(l.accountId, accountId), list ? eq(l.list, list) : undefined))
      .orderBy(desc(l.addedAtTs), l.companyId),
  );
}

/** The entries of these companies on the account's lists, by company id, in one read (a page of cards, a preview). */
export async function entriesOf(db: Db, accountId: string, companyIds: readonly (string | null | undefined)[]): Promise<Map<string, ClientListRow>> {
  const ids = [...new Set(companyIds.filter((c): c is string => typeof c === "string" && c !== ""))];
  if (ids.length === 0) return new Map();
  const { clientLists: l } = tables(db);
  const rows = await many(
    db,
    db
      .select()
      .from(l)
      .where(and(eq(l.accountId, accountId), inArray(l.companyId, ids))),
  );
  return new Map(rows.map((r) => [r.companyId, r]));
}

// ---------- service ----------

export function toEntryView(row: ClientListRow): ClientListEntry {
  return { companyId: row.companyId, list: row.list, reason: row.reason, addedAt: iso(row.addedAtTs), addedBy: row.addedBy };
}

/**
 * A company id as given (a path segment, a form field, a job's document): trimmed, and refused when empty or longer
 * than the API's parameter allows, with the field named as the API names it.
 */
function companyIdOf(raw: string): string {
  const id = raw.trim();
  if (id === "" || id.length > 200) throw new AppError("bad_request", "companyId must be a string of 1 to 200 characters");
  return id;
}

/** The reason as stored: trimmed, empty is none; over the cap is a 400 naming the field (the dashboard shows it by it). */
function reasonOf(raw: string | null | undefined): string | null {
  const reason = raw?.trim() ?? "";
  if (reason.length > CLIENT_REASON_MAX) throw new AppError("bad_request", `reason must be at most ${CLIENT_REASON_MAX} characters (it has ${reason.length})`);
  return reason === "" ? null : reason;
}

/**
 * Puts a client on one of the account's lists (PUT /api/v1/client-lists/{companyId}): an upsert, so a blocked client
 * can be favoured or its reason changed. The same list and reason again changes nothing, not even who added it.
 */
export async function putClientList(
  deps: ListsDeps,
  auth: Pick<AuthContext, "accountId" | "memberId">,
  rawCompanyId: string,
  body: { list: ClientList; reason?: string | null },
): Promise<ClientListEntry> {
  const companyId = companyIdOf(rawCompanyId);
  const reason = reasonOf(body.reason);
  return tx(deps.db, async (db) => {
    const existing = await findEntry(db, auth.accountId, companyId);
    if (existing && existing.list === body.list && existing.reason === reason) return toEntryView(existing);
    const row: ClientListRow = { accountId: auth.accountId, companyId, list: body.list, reason, addedAtTs: deps.clock.now(), addedBy: auth.memberId };
    await upsertEntry(db, row);
    return toEntryView(row);
  });
}

/** Takes a client off the account's lists (DELETE …/{companyId}); a client on neither list is a 404. */
export async function removeClientList(
  deps: ListsDeps,
  auth: Pick<AuthContext, "accountId">,
  rawCompanyId: string,
): Promise<{ deleted: true; companyId: string }> {
  const companyId = companyIdOf(rawCompanyId);
  if (!(await deleteEntry(deps.db, auth.accountId, companyId))) throw notFound("This client is on neither of the account's lists");
  return { deleted: true, companyId };
}

/** The account's clients on its lists, newest first (GET /api/v1/client-lists?list=). */
export async function listClientLists(deps: ListsDeps, auth: Pick<AuthContext, "accountId">, list?: ClientList): Promise<{ clients: ClientListEntry[] }> {
  return { clients: (await listEntries(deps.db, auth.accountId, list)).map(toEntryView) };
}

/** One client's entry on the account's lists, or null. */
export async function clientListEntry(deps: { db: Db }, accountId: string, companyId: string): Promise<ClientListEntry | null> {
  const row = await findEntry(deps.db, accountId, companyId.trim());
  return row ? toEntryView(row) : null;
}
