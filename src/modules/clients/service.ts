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
