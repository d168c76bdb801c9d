import type { Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { CIPHERTEXT_RE, CIPHERTEXT_RULE } from "../../lib/ids";
import { iso, isoOrNull } from "../../lib/time";
import type { AuthContext } from "../accounts/service";
import { funnelOf, type FunnelDeps } from "../applications/funnel";
import { latestForJob } from "../applications/repo";
import { matchesOfJob } from "../feeds/repo";
import { proposalActivity, type TrackingState } from "../jobs/activity";
import { clientScore } from "../jobs/client-score";
import { detailRoots, obj } from "../../lib/json-readers";
import { normalizeJob } from "../jobs/normalize";
import { findJob, findTracking } from "../jobs/repo";
import { signalsOf, withSignalFlags } from "../jobs/signals";
import type { RawMarketplaceJob } from "../jobs/model";

export interface ArchiveDeps {
  db: Db;
  clock: Clock;
  config: FunnelDeps["config"];
}

/**
 * GET /api/jobs/by-ciphertext: the archived document as stored, with what
 * jobpilot knows about it added — proposal activity, client score, and the
 * caller's own feed matches (never another account's) with the caller's
 * application.
 */
export async function getArchivedJob(deps: ArchiveDeps, auth: AuthContext, cipher: string): Promise<typeof RawMarketplaceJob.static> {
  const ciphertext = cipher.trim();
  if (!ciphertext.startsWith("~")) throw new AppError("bad_request", "cipher must be a job ciphertext starting with ~ (URL-encoded as %7E)");
  if (!CIPHERTEXT_RE.test(ciphertext)) throw new AppError("bad_request", `cipher must be ${CIPHERTEXT_RULE}`);
  const row = await findJob(deps.db, ciphertext);
  if (!row) throw notFound("No archived job with this ciphertext");
  const now = deps.clock.now();
  const doc = row.document as Record<string, any>;
  const normalized = normalizeJob(doc);
  const job = normalized.ok ? normalized.job : null;
  const signals = signalsOf(row.signals);

  // The spec's top-level fields, filled from the document where the source put them elsewhere.
  const tileJob = { ...(doc.jobTile?.job ?? {}) };
  tileJob.id ??= job?.jobUid ?? doc.id ?? null;
  tileJob.ciphertext ??= ciphertext;
  tileJob.jobType ??= job?.jobType ?? null;
  tileJob.publishTime ??= isoOrNull(job?.publishTimeTs ?? null);
  const authQuestions = obj(detailRoots(doc).auth?.opening)?.questions;

  const app = await latestForJob(deps.db, auth.accountId, ciphertext);
  // The application's funnel (its owner's reading): in conversation from a reply on, the outcome recorded or no_reply.
  const funnel = app ? funnelOf(app, deps.config, now) : null;
  const application =
    app && funnel
      ? {
          status: app.status,
          message: app.statusMessage,
          appliedAt: app.appliedAtTs,
          proposal: {
            viewedByClient: app.viewed,
            viewedAt: app.viewedAtTs,
            inConversation: funnel.inConversation,
            outcome: funnel.outcome,
            outcomeAt: funnel.outcomeAt,
            lastCheckedAt: app.lastCheckedAtTs,
          },
        }
      : null;
  const tracking = await findTracking(deps.db, ciphertext);

  const archived: Record<string, unknown> = {
    ...doc,
    id: doc.id ?? job?.jobUid ?? ciphertext,
    title: doc.title,
    description: doc.description,
    ontologySkills: Array.isArray(doc.ontologySkills) ? doc.ontologySkills : [],
    jobTile: { ...(doc.jobTile ?? {}), job: tileJob },
    exploredAt: row.exploredAtTs,
    // Top level only when the authenticated scrape captured them (the spec's rule).
    ...(Array.isArray(doc.screeningQuestions)
      ? { screeningQuestions: doc.screeningQuestions }
      : Array.isArray(authQuestions) && authQuestions.length > 0
        ? {
            screeningQuestions: authQuestions.map((q: any, i: number) => ({ position: typeof q.position === "number" ? q.position : i, question: q.question })),
          }
        : {}),
    proposalActivity: proposalActivity(doc, (tracking?.state as unknown as TrackingState) ?? null, now),
    clientScore: withSignalFlags(clientScore(doc, now), signals),
    signals,
    matches: (await matchesOfJob(deps.db, auth.accountId, ciphertext)).map((m) => ({
      processedJobId: m.id,
      feedId: m.feedId,
      matchingScore: m.matchingScore,
      matchedAt: iso(m.matchedAtTs),
      read: m.read,
      starredAt: m.starredAtTs,
      application,
    })),
  };
  return archived as typeof RawMarketplaceJob.static;
}
