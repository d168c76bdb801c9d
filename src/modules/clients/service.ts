import type { Db } from "../../db/client";
import { notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { closedAmong } from "../../marketplace/sandbox/repo";
import { documentsOfCompany } from "../jobs/repo";
import { buildClientRecord } from "./record";

/**
 * GET /api/clients/{companyId}/jobs: the buyer, open jobs, work history and stats from the archived documents of that company.
 * Jobs the sandbox marketplace closed count as closed (asked of the sandbox, which owns that table).
 */
export async function getClientJobs(deps: { db: Db; clock: Clock }, companyId: string) {
  const documents = await documentsOfCompany(deps.db, companyId);
  const closed = await closedAmong(
    deps.db,
    documents.map((d) => d.ciphertext),
  );
  const record = buildClientRecord(
    companyId,
    documents.map(({ document, exploredAtTs, ciphertext }) => ({ document, exploredAtTs, closed: closed.has(ciphertext) })),
    deps.clock.now(),
  );
  if (!record) throw notFound("No archived job of this company");
  return record;
}

/** A company's spend and hires as one archived job's document showed them, at the time that document was seen. */
export interface ClientSnapshot {
  atTs: number;
  ciphertext: string;
  spent: number | null;
  hires: number | null;
}

/** At most this many snapshots, the latest: a chart of more would be a smear. */
export const MAX_CLIENT_SNAPSHOTS = 60;

/**
 * The client's spend and hires over time. The archive keeps one document per job (the latest seen), not a
 * history, so the only series it has is across the company's jobs: each archived job's client stats, read
 * by the same rules as the client record, at the time that job was last explored. Oldest first; snapshots
 * that know neither number are left out.
 */
export async function clientHistory(deps: { db: Db; clock: Clock }, companyId: string): Promise<ClientSnapshot[]> {
  const documents = await documentsOfCompany(deps.db, companyId);
  const nowTs = deps.clock.now();
  const out: ClientSnapshot[] = [];
  for (const { document, exploredAtTs, ciphertext } of documents) {
    const record = buildClientRecord(companyId, [{ document, exploredAtTs, closed: false }], nowTs);
    if (!record) continue;
    const { totalSpent, hires } = record.stats;
    if (totalSpent === null && hires === null) continue;
    out.push({ atTs: Number(exploredAtTs), ciphertext, spent: totalSpent, hires });
  }
  out.sort((a, b) => a.atTs - b.atTs || (a.ciphertext < b.ciphertext ? -1 : 1));
  return out.slice(-MAX_CLIENT_SNAPSHOTS);
}
