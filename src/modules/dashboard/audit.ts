import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { findAccountApplication } from "../applications/repo";
import { listAudit } from "../automation/service";
import { listFeeds } from "../feeds/service";
import { jobSummaries } from "../jobs/repo";
import { AUDIT_PAGE_SIZE, auditPage } from "./audit-views";
import { AUDIT_PATH } from "./automation-views";
import { freelancerChoices } from "./freelancers";
import { badOffsetPage, dashboardGuard, page, parseOffset, needs } from "./http";
import { sessionAuth } from "./service";

/** The audit log page (linked from Auto-apply), read through the automation service as GET /api/v1/audit is. */
export function dashboardAuditRoutes(deps: Deps) {
  const { signedIn } = dashboardGuard(deps);

  return new Elysia({ name: "dashboard-audit" }).get(
    AUDIT_PATH,
    async ({ request, set }) => {
      const session = await signedIn(request, set);
      if (typeof session === "string") return session;
      const q = new URL(request.url).searchParams;
      const offset = parseOffset(q.get("offset") ?? undefined);
      if (offset === undefined) return badOffsetPage(set, session);
      const auth = await sessionAuth(deps, session);
      const list = await freelancerChoices(deps, session);
      const freelancerId = q.get("freelancer") || null;
      const log = await listAudit(deps, auth, { limit: AUDIT_PAGE_SIZE, offset, freelancerId: freelancerId ?? undefined });
      // Each entry's job, for its link: one lookup per application on the page (at most 50).
      const jobs = new Map<string, string | null>();
      for (const id of new Set(log.entries.flatMap((e) => (e.applicationId === null ? [] : [e.applicationId])))) {
        jobs.set(id, (await findAccountApplication(deps.db, auth.accountId, id))?.jobCiphertext ?? null);
      }
      const feedTitles = new Map((await listFeeds(deps, auth)).map((f) => [f.id, f.title ?? f.id]));
      const titles = await jobSummaries(deps.db, [...new Set([...jobs.values()].filter((c): c is string => c !== null))]);
      const entries = log.entries.map((e) => {
        const jobCiphertext = e.applicationId === null ? null : (jobs.get(e.applicationId) ?? null);
        return { ...e, jobCiphertext, jobTitle: jobCiphertext === null ? null : (titles.get(jobCiphertext)?.title ?? null) };
      });
      return page(set, auditPage(session, { entries, total: log.total, offset, freelancerId, freelancers: list, feedTitles }));
    },
    needs("audit"),
  );
}
