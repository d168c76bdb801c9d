import type { Db } from "../../db/client";
import { notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { documentsOfCompany } from "../jobs/repo";
import { buildClientRecord } from "./record";

/** GET /api/clients/{companyId}/jobs: the buyer, open jobs, work history and stats from the archived documents of that company. */
export function getClientJobs(deps: { db: Db; clock: Clock }, companyId: string) {
  const record = buildClientRecord(companyId, documentsOfCompany(deps.db, companyId), deps.clock.now());
  if (!record) throw notFound("No archived job of this company");
  return record;
}
