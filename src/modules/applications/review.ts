/**
 * Applications held for a person's review: a feed's draft (draft mode), a letter too like one already sent (the
 * governor's similarity guard), one that would break a Connects budget on a feed that says "review", and a member's
 * draft waiting for an approver (`approval`: a bidder without the send permission asks; the approver approves, sends
 * it back with a comment as `returned`, or discards it; the drafter edits a returned one and asks again). The
 * dashboard, Telegram and the API list them and decide on them here, one function per decision.
 */
import type { Claim } from "../../ai/claim-check";
import { claimsOfLetter } from "../proposals/repo";
import { tx } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { isEditedByHand } from "../../lib/text-similarity";
import { enqueueTask } from "../../worker/tasks";
import type { AuthContext } from "../accounts/service";
import { actorIds, actorOf, audit } from "../automation/governor";
import { queueHeldEvents } from "../feeds/admit";
import { normalizeJob } from "../jobs/normalize";
import { findJobs, jobSummaries } from "../jobs/repo";
import { budgetText } from "../jobs/service";
import { assertUnclaimed, memberNames, releaseJob } from "../members/claims";
import { can } from "../members/permissions";
import * as repo from "./repo";
import { type ApplicationsDeps, APPROVAL, type ApplyInput, apply, checkAnswers, jobOfApplication, RETURNED, SUBMIT_TASK } from "./service";
import { assertFilledIn, blankAnswer, FILL_IN_HOLD } from "./fill-in";
import { finish } from "./submit.task";

export type HeldKind = "draft" | "similar" | "budget" | "approval" | "returned" | "claims" | "fill-in";

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
  /** The member who drafted it (id and name; null: an API key of no member, or automation). */
  draftedById: string | null;
  draftedBy: string | null;
  approvedBy: string | null;
  /** The approver's comment when it was sent back. */
  reviewComment: string | null;
  /** What the approver weighs beside the letter: the answers (with their questions), the bid and the job. */
  answers: { position: number; question: string | null; answer: string }[];
  hourlyRate: number | null;
  fixedBid: number | null;
  jobBudget: string | null;
  jobDescription: string | null;
  /** What the claim check flagged in this letter when it was written (none once a person rewrote it). */
  claims: Claim[];
}

/**
 * Reads a held_reason (`draft`, `similar:<id>:<similarity>`, `budget:<period>`, `approval`, `returned`,
 * `claims:<count>`, `fill-in:<count>`) back into what it means.
 */
export function parseHeldReason(reason: string): { kind: HeldKind; similarId?: string; similarity?: number; period?: string; count?: number } {
  const [kind, a, b] = reason.split(":");
  if (kind === "claims" || kind === FILL_IN_HOLD) return { kind, count: Number(a) };
  if (kind === "similar") return { kind, similarId: a, similarity: Number(b) };
  if (kind === "budget") return { kind, period: a };
  if (kind === APPROVAL || kind === RETURNED) return { kind };
  return { kind: "draft" };
}

/**
 * Who sees which held applications: a caller who may approve sees them all; a member who may not (a bidder) sees
 * the ones they drafted (waiting for an approver, or sent back to them).
 */
const draftedFilter = (auth: AuthContext) => (auth.memberId !== null && !can(auth.role, "approve") ? auth.memberId : undefined);

/** The account's applications waiting for review (for a bidder: their own drafts), newest first. */
export async function listHeld(
  deps: Pick<ApplicationsDeps, "db">,
  auth: AuthContext,
  q: { limit: number; offset: number },
): Promise<{ applications: HeldApplication[]; total: number }> {
  const { rows, total } = await repo.listHeld(deps.db, auth.accountId, q.limit, q.offset, draftedFilter(auth));
  const ciphertexts = [...new Set(rows.map((r) => r.jobCiphertext))];
  const jobs = await jobSummaries(deps.db, ciphertexts);
  const documents = await findJobs(deps.db, ciphertexts);
  const names = await memberNames(
    deps.db,
    auth.accountId,
    rows.flatMap((r) => [r.draftedBy, r.approvedBy]),
  );
  const nameOf = (id: string | null) => (id === null ? null : (names.get(id) ?? null));
  const out: HeldApplication[] = [];
  for (const r of rows) {
    const held = parseHeldReason(r.heldReason ?? "");
    const earlier = held.similarId ? await repo.findAccountApplication(deps.db, auth.accountId, held.similarId) : undefined;
    const job = jobs.get(r.jobCiphertext);
    const doc = documents.get(r.jobCiphertext);
    const normalized = doc ? normalizeJob(doc.document) : null;
    const full = normalized?.ok ? normalized.job : null;
    const questions = new Map((full?.screeningQuestions ?? []).map((q) => [q.position, q.question]));
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
      why: heldWords(held, nameOf(r.draftedBy)),
      similarTo: earlier ? { queueId: earlier.id, coverLetter: earlier.coverLetter, sentAt: earlier.processedAtTs, similarity: held.similarity ?? 0 } : null,
      draftedById: r.draftedBy,
      draftedBy: nameOf(r.draftedBy),
      approvedBy: nameOf(r.approvedBy),
      reviewComment: r.reviewComment,
      answers: r.answers.map((a) => ({ position: a.position, question: questions.get(a.position) ?? null, answer: a.answer })),
      hourlyRate: r.hourlyRate,
      fixedBid: r.fixedBid,
      jobBudget: full ? budgetText(full) : null,
      jobDescription: full?.description ?? null,
      claims: await claimsOfLetter(deps.db, auth.accountId, r.jobCiphertext, r.coverLetter),
    });
  }
  return { applications: out, total };
}

export function heldWords(h: ReturnType<typeof parseHeldReason>, draftedBy: string | null = null): string {
  if (h.kind === "similar") return `The letter is ${Math.round((h.similarity ?? 0) * 100)} % like one this freelancer sent in the last 30 days.`;
  if (h.kind === "claims")
    return `The claim check flagged ${h.count === 1 ? "1 claim" : `${h.count ?? "some"} claims`} nothing in the profile or portfolio backs; auto mode does not send it.`;
  if (h.kind === FILL_IN_HOLD) {
    const answers = h.count === 1 ? "1 screening answer needs" : `${h.count ?? "Some"} screening answers need`;
    return `${answers} something only you know (marked [your …]); fill ${h.count === 1 ? "it" : "them"} in on the Review page, then approve.`;
  }
  if (h.kind === "budget") return `Sending it would break the ${h.period === "day" ? "daily" : h.period === "week" ? "weekly" : "monthly"} Connects budget.`;
  if (h.kind === "approval") return `Drafted by ${draftedBy ?? "a member"}, waiting for approval.`;
  if (h.kind === "returned") return `Sent back to ${draftedBy ?? "its drafter"} for changes.`;
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
 * apply; the approver is recorded as who approved and sent it. Discarded, it ends failed and uncharged. Either way
 * the job's claim ends. An approval is refused (409 naming the holder) while a member other than its drafter and
 * the approver holds a live claim on the job. Anything not held is a 409; another account's is a 404. The approver
 * may fill in screening answers too (by position); an approval whose letter or answers, as they would go out, still
 * have a "[your …]" slot is a 400 naming it, and changes nothing.
 */
export async function reviewHeld(
  deps: ApplicationsDeps,
  auth: AuthContext,
  queueId: string,
  decision: "approve" | "discard",
  edit: { coverLetter?: string; questionAnswers?: { position: number; answer: string }[] } = {},
): Promise<ReviewResult> {
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queueId);
  if (!app) throw notFound("application not found");
  if (!isHeld(app)) throw notHeld();
  const edited = edit.questionAnswers ?? [];
  if (decision === "approve" && edited.length > 0) {
    checkAnswers((await jobOfApplication(deps.db, app)).job, edited);
    const blank = blankAnswer(edited);
    if (blank) throw new AppError("bad_request", `questionAnswers[${blank.index}].answer is empty: a screening question is answered, not left blank`);
  }
  const answers = mergeAnswers(app.answers, edited);
  const answersChanged = edited.length > 0 && JSON.stringify(answers) !== JSON.stringify(app.answers);
  if (decision === "approve") {
    // Named as the body has it; an answer kept as it was held by its position.
    const fieldOf = (a: { position: number }) => {
      const i = edited.findIndex((e) => e.position === a.position);
      return i >= 0 ? `questionAnswers[${i}].answer` : `The held answer at position ${a.position}`;
    };
    assertFilledIn(edit.coverLetter ?? app.coverLetter, answers, fieldOf);
  }
  const who = `${decision === "approve" ? "approved" : "discarded"} by ${actorOf(auth)}`;
  const entry = {
    accountId: app.accountId,
    freelancerId: app.freelancerId,
    applicationId: app.id,
    rule: who,
    detail: `was held: ${app.heldReason}`,
    ...actorIds(auth),
  };
  if (decision === "discard") {
    await finish(deps, app, { status: "failed", message: "Discarded at review: nothing was sent and nothing was charged." });
    await tx(deps.db, async (db) => {
      await releaseJob(db, app.accountId, app.jobCiphertext);
      await audit(db, { ...entry, action: "discard", atTs: deps.clock.now() });
    });
  } else {
    await tx(deps.db, async (db) => {
      const nowTs = deps.clock.now();
      await assertUnclaimed(db, auth, app.jobCiphertext, nowTs, [app.draftedBy]);
      if (!(await repo.markApproved(db, app.id, auth.memberId))) throw notHeld();
      if (edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter) {
        await repo.reviseLetter(db, app.id, edit.coverLetter, app.editedByHand || isEditedByHand(app.coverLetter, edit.coverLetter));
      }
      if (answersChanged) await repo.reviseAnswers(db, app.id, answers);
      await enqueueTask(db, SUBMIT_TASK, { applicationId: app.id, accountId: app.accountId }, nowTs, { maxAttempts: 10 });
      await releaseJob(db, app.accountId, app.jobCiphertext);
      await audit(db, {
        ...entry,
        action: "approve",
        atTs: nowTs,
        detail: `${entry.detail}${edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter ? " (letter rewritten at review)" : ""}${answersChanged ? " (answers filled in at review)" : ""}`,
      });
    });
    deps.wake();
  }
  return resultOf(deps, auth, queueId);
}

/** The held answers with the reviewer's in place of theirs (by position), in position order. */
function mergeAnswers(held: { position: number; answer: string }[], edited: { position: number; answer: string }[]) {
  const byPosition = new Map(held.map((a) => [a.position, a]));
  for (const e of edited) byPosition.set(e.position, { position: e.position, answer: e.answer });
  return [...byPosition.values()].sort((a, b) => a.position - b.position);
}

const notHeld = () => new AppError("conflict", "This application is not waiting for review (it was approved, discarded or sent meanwhile)");

async function resultOf(deps: Pick<ApplicationsDeps, "db">, auth: AuthContext, queueId: string): Promise<ReviewResult> {
  const after = (await repo.findAccountApplication(deps.db, auth.accountId, queueId))!;
  return { queueId, applicationStatus: after.status, held: isHeld(after) };
}

/**
 * A member without the send permission asks for approval: the proposal is queued as apply queues it (the same
 * checks, the same 409s for a claimed or already applied job, a credit held), but held with reason `approval`
 * until an approver decides; its `application.held` event goes out once, with the request.
 */
export async function requestApproval(deps: ApplicationsDeps, auth: AuthContext, input: ApplyInput): ReturnType<typeof apply> {
  const queued = await apply(deps, auth, input, { heldReason: APPROVAL });
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queued.queueId);
  if (app) {
    await audit(deps.db, {
      accountId: app.accountId,
      freelancerId: app.freelancerId,
      applicationId: app.id,
      action: "request_approval",
      rule: `asked by ${actorOf(auth)}`,
      detail: "waiting for an approver",
      atTs: deps.clock.now(),
      ...actorIds(auth),
    });
  }
  return { ...queued, message: "Queued for approval: nothing is sent until an owner or admin approves it. One credit is held meanwhile." };
}

/** A comment that says something: trimmed, 1–2,000 characters. */
function checkComment(comment: string): string {
  const text = comment.trim();
  if (text === "") throw new AppError("bad_request", "comment: write what the drafter should change");
  if (text.length > 2000) throw new AppError("bad_request", "comment: at most 2,000 characters");
  return text;
}

/**
 * Sends a member's draft back with a comment: it stays held (as `returned`, credit still held) until its drafter
 * edits it and asks again. Only an approval request can be sent back (409 for any other held kind: approve or
 * discard those).
 */
export async function sendBack(deps: ApplicationsDeps, auth: AuthContext, queueId: string, comment: string): Promise<ReviewResult> {
  const text = checkComment(comment);
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queueId);
  if (!app) throw notFound("application not found");
  if (!isHeld(app)) throw notHeld();
  if (app.heldReason !== APPROVAL) {
    throw new AppError(
      "conflict",
      `Only a member's request for approval can be sent back; this one is held as ${parseHeldReason(app.heldReason ?? "").kind}: approve or discard it`,
    );
  }
  await tx(deps.db, async (db) => {
    if (!(await repo.moveHeld(db, app.id, APPROVAL, RETURNED, text))) throw notHeld();
    await audit(db, {
      accountId: app.accountId,
      freelancerId: app.freelancerId,
      applicationId: app.id,
      action: "send_back",
      rule: `sent back by ${actorOf(auth)}`,
      detail: text,
      atTs: deps.clock.now(),
      ...actorIds(auth),
    });
  });
  return resultOf(deps, auth, queueId);
}

/**
 * The drafter asks again for approval of a draft sent back to them, with the letter as they rewrote it (or as it
 * was); the approver's comment stays with it. Only the member who drafted it may (403 naming them); anything not
 * sent back is a 409. Its `application.held` event goes out again, once, with this request.
 */
export async function requestApprovalAgain(
  deps: ApplicationsDeps,
  auth: AuthContext,
  queueId: string,
  edit: { coverLetter?: string } = {},
): Promise<ReviewResult> {
  const app = await repo.findAccountApplication(deps.db, auth.accountId, queueId);
  if (!app) throw notFound("application not found");
  if (!isHeld(app) || app.heldReason !== RETURNED) {
    throw new AppError("conflict", "This application was not sent back to its drafter (it waits for approval, or was approved, discarded or sent)");
  }
  if (app.draftedBy === null || app.draftedBy !== auth.memberId) {
    const drafter = app.draftedBy === null ? undefined : (await memberNames(deps.db, app.accountId, [app.draftedBy])).get(app.draftedBy);
    throw new AppError("forbidden", `Only ${drafter ?? "the member who drafted it"}, who drafted it, can ask for approval again`);
  }
  if (edit.coverLetter !== undefined && edit.coverLetter.trim() === "")
    throw new AppError("bad_request", "coverLetter: write a letter, or leave it out to keep the one sent back");
  await tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    if (!(await repo.moveHeld(db, app.id, RETURNED, APPROVAL))) throw notHeld();
    if (edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter) {
      await repo.reviseLetter(db, app.id, edit.coverLetter, app.editedByHand || isEditedByHand(app.coverLetter, edit.coverLetter));
    }
    await queueHeldEvents(db, { accountId: app.accountId, feedId: app.feedId, jobCiphertext: app.jobCiphertext }, nowTs);
    await audit(db, {
      accountId: app.accountId,
      freelancerId: app.freelancerId,
      applicationId: app.id,
      action: "request_approval",
      rule: `asked again by ${actorOf(auth)}`,
      detail: edit.coverLetter !== undefined && edit.coverLetter !== app.coverLetter ? "letter rewritten after it was sent back" : "letter as it was sent back",
      atTs: nowTs,
      ...actorIds(auth),
    });
  });
  return resultOf(deps, auth, queueId);
}
