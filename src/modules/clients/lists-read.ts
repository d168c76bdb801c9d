/**
 * The client lists as the one door into a feed reads them (feeds/admit.ts, issue 45): for a batch of jobs entering
 * feeds of several accounts, every (account, company) entry in one read. Kept apart from lists.ts (the API's
 * writes) so admission depends on nothing but this read.
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { ClientList } from "../../db/enums";
import { many, tables } from "../../db/query";

/** The entries of these accounts for these companies, keyed `${accountId}:${companyId}`; companies on no list are absent. */
export async function listEntriesFor(
  db: Db,
  accountIds: readonly string[],
  companyIds: readonly string[],
): Promise<Map<string, { list: ClientList; reason: string | null }>> {
  const accounts = [...new Set(accountIds)];
  const companies = [...new Set(companyIds.filter((c) => c !== ""))];
  const out = new Map<string, { list: ClientList; reason: string | null }>();
  if (accounts.length === 0 || companies.length === 0) return out;
  const { clientLists: l } = tables(db);
  const wanted = new Set(accounts);
  // By company alone, the accounts sorted out here: a job entering a thousand feeds names hundreds of accounts,
  // and (account, company) pairs would be that many key probes, while the lists are short (people curate them).
  for (let at = 0; at < companies.length; at += 500) {
    const rows = await many(
      db,
      db
        .select({ accountId: l.accountId, companyId: l.companyId, list: l.list, reason: l.reason })
        .from(l)
        .where(inArray(l.companyId, companies.slice(at, at + 500))),
    );
    for (const r of rows) if (wanted.has(r.accountId)) out.set(`${r.accountId}:${r.companyId}`, { list: r.list, reason: r.reason });
  }
  return out;
}
