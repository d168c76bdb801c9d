import { t } from "elysia";

export const CompanyParams = t.Object({ companyId: t.String({ minLength: 1, maxLength: 200 }) });

/** Buyer profile, open jobs, work history and aggregate stats of one company. */
export const ClientJobsRecord = t.Object(
  {
    companyId: t.String(),
    lastSyncedAt: t.Integer({ description: "Unix ms of the freshest source document" }),
    buyer: t.Object({}, { additionalProperties: true }),
    openJobs: t.Array(t.Object({}, { additionalProperties: true })),
    workHistory: t.Array(t.Object({}, { additionalProperties: true })),
    stats: t.Object({}, { additionalProperties: true }),
  },
  { title: "ClientJobsRecord", additionalProperties: true },
);
