/**
 * The client lists as the one door into a feed reads them (feeds/admit.ts, issue 45): for a batch of jobs entering
 * feeds of several accounts, every (account, company) entry in one read. Kept apart from lists.ts (the API's
 * writes) so admission depends on nothing but this read.
 */
import type { Db } from "../../db/client";
import type { ClientList } from "../../db/enums";
import { rawMany } from "../../db/query";

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
  const wanted = new Set(accounts);
  // By company alone, the accounts sorted out here: a job entering a thousand feeds names hundreds of accounts,
  // and (account, company) pairs would be that many key probes, while the lists are short (people curate them).
  // Read on every ingest batch, so a prepared statement per padded size rather than a query built each time.
  for (let at = 0; at < companies.length; at += 512) {
    const chunk = companies.slice(at, at + 512);
    let size = 1;
    while (size < chunk.length) size *= 2;
    while (chunk.length < size) chunk.push("");
    const rows = await rawMany<{ account_id: string; company_id: string; list: ClientList; reason: string | null }>(
      db,
      `clientLists.forCompanies:${size}`,
      `SELECT account_id, company_id, list, reason FROM client_lists WHERE company_id IN (${chunk.map(() => "?").join(", ")})`,
      chunk,
    );
    for (const r of rows) if (wanted.has(r.account_id)) out.set(`${r.account_id}:${r.company_id}`, { list: r.list, reason: r.reason });
  }
  return out;
}
