/**
 * Applications held for a person's review: a feed's draft (draft mode), a letter too like one already sent (the
 * governor's similarity guard), or one that would break a Connects budget on a feed that says "review". The
 * dashboard, Telegram and the API list them and approve or discard them here, one function per decision.
 */
import { tx } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { isEditedByHand } from "../../lib/text-similarity";
import { enqueueTask } from "../../worker/tasks";
import type { AuthContext } from "../accounts/service";
import { actorOf, audit } from "../automation/governor";
import { jobSummaries } from "../jobs/repo";
import * as repo from "./repo";
import { type ApplicationsDeps, SUBMIT_TASK } from "./service";
import { finish } from "./submit.task";

export type HeldKind = "draft" | "similar" | "budget";

export interface HeldApplication {
  queueId: string;
  jobCiphertext: string;
  jobTitle: string | null;
  jobUrl: string | null;
  feedId: string | null;
  freelancerId: string;
  profileId: string | null;
  origin: string;
  coverLetter: string;
  queuedAt: number;
  kind: HeldKind;
  /** Why it waits, in words. */
  why: string;
  /** For a letter held as too similar: the earlier letter it resembles. */
  similarTo: { queueId: string; coverLetter: string; sentAt: number | null; similarity: number } | null;
}

/** Reads a held_reason (`draft`, `similar:<id>:<similarity>`, `budget:<period>`) back into what it means. */
export function parseHeldReason(reason: string): { kind: HeldKind; similarId?: string; similarity?: number; period?: string } {
  const [kind, a, b] = reason.split(":");
  if (kind === "similar") return { kind, similarId: a, similarity: Number(b) };
  if (kind === "budget") return { kind, period: a };
  return { kind: "draft" };
}

/** The account's applications waiting for review, newest first. */
export async function listHeld(
  deps: Pick<ApplicationsDeps, "db">,
  auth: AuthContext,
  q: { limit: number; offset: number },
): Promise<{ applications: HeldApplication[]; total: number }> {
  const { rows, total } = await repo.listHeld(deps.db, auth.accountId, q.limit, q.offset);
  const jobs = await jobSummaries(deps.db, [...new Set(rows.map((r) => r.jobCiphertext))]);
  const out: HeldApplication[] = [];
  for (const r of rows) {
    const held = parseHeldReason(r.heldReason ?? "");
    const earlier = held.similarId ? await repo.findAccountApplication(deps.db, auth.accountId, held.similarId) : undefined;
    const job = jobs.get(r.jobCiphertext);
    out.push({
      queueId: r.id,
      jobCiphertext: r.jobCiphertext,
      jobTitle: job?.title ?? null,
      jobUrl: job?.url ?? null,
      feedId: r.feedId,
      freelancerId: r.freelancerId,
      profileId: r.profileId,
      origin: r.origin ?? "person",
      coverLetter: r.coverLetter,
      queuedAt: r.appliedAtTs,
      kind: held.kind,
      why: heldWords(held),
      similarTo: earlier ? { queueId: earlier.id, coverLetter: earlier.coverLetter, sentAt: earlier.processedAtTs, similarity: held.similarity ?? 0 } : null,
    });
  }
  return { applications: out, total };
}

export function heldWords(h: ReturnType<typeof parseHeldReason>): string {
  if (h.kind === "similar") return `The letter is ${Math.round((h.similarity ?? 0) * 100)} % like one this freelancer sent in the last 30 days.`;
  if (h.kind === "budget") return `Sending it would break the ${h.period === "day" ? "daily" : h.period === "week" ? "weekly" : "monthly"} Connects budget.`;
  return "A draft from the feed's draft mode, waiting for your approval.";
}

/** Waiting for a person: queued, not sent, with a reason other than an approval. */
export const isHeld = (a: repo.ApplicationRow) => a.status === "processing" && a.phase === "queued" && a.heldReason !== null && a.heldReason !== repo.APPROVED;

export interface ReviewResult {
  queueId: string;
  applicationStatus: repo.ApplicationRow["status"];
  held: boolean;
}

/**
 * A person's answer to a held application. Approved (with the letter as it is, or as the person rewrote it), it
 * is submitted: the similarity guard and the budgets do not hold it again; caps, pacing and working hours still
 * apply. Discarded, it ends failed and uncharged. Anything not held is a 409; another account's is a 404.
 */
export async function reviewHeld(
  deps: ApplicationsDeps,
  auth: AuthContext,
  queueId: string,
  decision: "approve" | "discard",
  edit: { coverLetter?: string } = {},
): Promise<ReviewResult> {
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queueId);
  if (!app) throw notFound("application not found");
  const notHeld = () => new AppError("conflict", "This application is not waiting for review (it was approved, discarded or sent meanwhile)");
  if (!isHeld(app)) throw notHeld();
  const who = `${decision === "approve" ? "approved" : "discarded"} by ${actorOf(auth)}`;
  const entry = { accountId: app.accountId, freelancerId: app.freelancerId, applicationId: app.id, rule: who, detail: `was held: ${app.heldReason}` };
  if (decision === "discard") {
    await finish(deps, app, { status: "failed", message: "Discarded at review: nothing was sent and nothing was charged." });
    await audit(deps.db, { ...entry, action: "discard", atTs: deps.clock.now() });
  } else {
    await tx(deps.db, async (db) => {
      const nowTs = deps.clock.now();
      if (!(await repo.setHeldReason(db, app.id, repo.APPROVED))) throw notHeld();
      if (edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter) {
        await repo.reviseLetter(db, app.id, edit.coverLetter, app.editedByHand || isEditedByHand(app.coverLetter, edit.coverLetter));
      }
      await enqueueTask(db, SUBMIT_TASK, { applicationId: app.id, accountId: app.accountId }, nowTs, { maxAttempts: 10 });
      await audit(db, {
        ...entry,
        action: "approve",
        atTs: nowTs,
        detail: `${entry.detail}${edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter ? " (letter rewritten at review)" : ""}`,
      });
    });
    deps.wake();
  }
  const after = (await repo.findAccountApplication(deps.db, auth.accountId, queueId))!;
  return { queueId, applicationStatus: after.status, held: isHeld(after) };
}
