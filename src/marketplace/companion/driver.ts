/**
 * The companion driver: proposals go out through the browser companion
 * extension in the user's own logged-in browser. Each operation becomes a row
 * in companion_tasks; the extension claims it with a long poll
 * (GET /api/v1/companion/tasks) and answers on an authenticated POST. The
 * operations, the outcome store and the lookup reconciliation are the bridge's
 * (marketplace/remote), so the two drivers behave the same where they can.
 *
 * Error policy, as the bridge's: a submission not answered within
 * JOBPILOT_COMPANION_TIMEOUT_MS throws so the queue retries, and the retry
 * asks proposal.lookup before sending again. Rows, not memory, carry the state,
 * so a restart (or another node on PostgreSQL) finds what was handed out.
 *
 * Times (claimed, seen, review) come from the injected clock and are stored; a
 * waiter re-reads its row every CHECK_MS, and is woken at once when the answer
 * arrives on this node.
 */
import type { Db } from "../../db/client";
import type { CompanionMode } from "../../db/enums";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import type { Engagement, Freelancer, MarketplaceDriver, ProposalsList, SubmitOutcome, SubmitRequest } from "../driver";
import {
  engagementOperation,
  freelancersOperation,
  lookupOperation,
  parseEngagement,
  parseFreelancers,
  parseProposalsList,
  parseReconnect,
  reconnectOperation,
  submitOperation,
  type OperationType,
} from "../remote/operations";
import { createOutcomeStore, type LookupAnswer } from "../remote/outcomes";
import { Value } from "@sinclair/typebox/value";
import { NOT_REVIEWED, PageOutcome, pageOutcome, type CompanionOutcome, type CompanionTask, type LookupResult } from "./contract";
import * as repo from "./repo";

export interface CompanionDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: { companionTimeoutMs: number; companionReviewTimeoutMs: number; companionMinGapMs: number };
}

/** How often a waiter re-reads its task: answers recorded by another node show up within this. */
const CHECK_MS = 200;
/** A companion that has not polled or answered for this long is not connected (a poll refreshes it every POLL_TOUCH_MS). */
export const CONNECTED_GRACE_MS = 15_000;
const POLL_TOUCH_MS = 5_000;
/** How often an open long poll looks for new work in the table (another node may have queued it). */
const POLL_CHECK_MS = 1_000;
/** Under the 30 s Elysia's Bun adapter gives a quiet connection (idleTimeout), so a held poll is never cut. */
export const DEFAULT_POLL_WAIT_MS = 25_000;
export const MAX_POLL_WAIT_MS = 25_000;
/** Reads (lookup, freelancers, reconnect) never wait longer than this for the extension, even when the timeout is long. */
const READ_WAIT_CAP_MS = 15_000;
/** How many of the account's newest engagement answers are searched for the newest "my proposals" list. */
const PROPOSALS_ANSWERS = 50;
/** A freelancers list the extension gave is reused this long before it is asked again. */
const FREELANCERS_TTL_MS = 60 * 60_000;

const SUBMIT = "proposal.submit";

/** Wake-ups within this process, by key: "account:<id>" for polls, "task:<id>" for waiters. */
class Bells {
  private readonly waiting = new Map<string, Set<() => void>>();
  ring(key: string): void {
    for (const wake of this.waiting.get(key) ?? []) wake();
  }
  until(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(key);
      if (!set) this.waiting.set(key, (set = new Set()));
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      set.add(wake);
    });
  }
}

export type AnswerResult = { ok: true; kept: boolean } | { error: "not_found" | "wrong_type"; message: string };
export type ReviewResult = { ok: true; reviewDeadlineAt: number } | { error: "not_found" | "conflict" | "bad_request"; message: string };

export type CompanionDriver = MarketplaceDriver & {
  /** The long poll: the next task for the account, waiting up to waitMs for one; null when none came. */
  nextTask(accountId: string, waitMs: number): Promise<CompanionTask | null>;
  /** The extension's answer to a task (the outcome POST). */
  answer(accountId: string, taskId: string, outcome: CompanionOutcome): Promise<AnswerResult>;
  /** One of the account's tasks as stored, its answer included (the unrecognised page's visible text, for diagnosis); null for another account's. */
  task(accountId: string, taskId: string): Promise<repo.CompanionTaskRow | null>;
  /** Review mode: the form of a submission is filled and waits for the user's click. */
  review(accountId: string, taskId: string, reviewUrl: string | null): Promise<ReviewResult>;
  /** Whether the account's companion polled or answered within CONNECTED_GRACE_MS, and when it last did. */
  presence(accountId: string): Promise<{ connected: boolean; lastSeenAt: number | null; mode: CompanionMode; autoAcceptedAt: number | null }>;
  setMode(accountId: string, mode: CompanionMode): Promise<void>;
  /** Submissions waiting for the account's review now, by application id. */
  inReview(accountId: string): ReturnType<typeof repo.inReview>;
};

export function createCompanionDriver(deps: CompanionDeps): CompanionDriver {
  const log = deps.log.child({ component: "companion" });
  const outcomes = createOutcomeStore(deps);
  const bells = new Bells();
  const readWaitMs = () => Math.min(deps.config.companionTimeoutMs, READ_WAIT_CAP_MS);

  async function presence(accountId: string) {
    const row = await repo.findCompanion(deps.db, accountId);
    const lastSeenAt = row?.lastSeenTs ?? null;
    return {
      connected: lastSeenAt !== null && deps.clock.now() - lastSeenAt <= CONNECTED_GRACE_MS,
      lastSeenAt,
      mode: row?.mode ?? ("review" as const),
      autoAcceptedAt: row?.autoAcceptedAtTs ?? null,
    };
  }

  /** logged_out when no companion is connected, dated from when it was last seen so the logged-out window counts from there. */
  async function offline(accountId: string): Promise<SubmitOutcome | null> {
    const seen = await presence(accountId);
    if (seen.connected) return null;
    const since = seen.lastSeenAt === null ? "has never connected" : `last connected ${new Date(seen.lastSeenAt).toISOString()}`;
    return {
      status: "logged_out",
      message: `The browser companion is offline (it ${since}): open the browser where it is installed, or pair it from the dashboard; nothing was submitted`,
      loggedOutSinceTs: seen.lastSeenAt ?? undefined,
    };
  }

  /**
   * Nothing was handed out: the logged_out is recorded like a submitter's own, so the retry's lookup
   * knows nothing was sent (remote/outcomes.ts) and the next attempt may send it.
   */
  async function withdrawn(applicationId: string, away: SubmitOutcome): Promise<SubmitOutcome> {
    await outcomes.record(applicationId, away);
    return away;
  }

  async function queue(accountId: string, type: OperationType, applicationId: string | null, body: Record<string, unknown>): Promise<string> {
    const id = newId();
    await repo.insertTask(deps.db, { id, accountId, type, applicationId, body, state: "queued", createdAtTs: deps.clock.now() });
    bells.ring(`account:${accountId}`);
    return id;
  }

  /**
   * Waits for a submission's outcome. Ends with the outcome; with logged_out when the task was never handed out
   * and the companion went away; with failed "not reviewed" when a filled form waited too long; and throws when a
   * claimed task went unanswered past the timeout (the queue retries through lookup).
   */
  async function waitSubmit(taskId: string, accountId: string, applicationId: string): Promise<SubmitOutcome> {
    for (;;) {
      const outcome = await outcomes.wait(applicationId, CHECK_MS);
      if (outcome) return withPageConnects(outcome, taskId);
      const task = await repo.findTask(deps.db, taskId);
      const now = deps.clock.now();
      if (!task || task.state === "expired" || task.state === "cancelled") {
        throw new Error("The browser companion's submission task was given up; will look it up and retry");
      }
      if (task.state === "queued") {
        const away = await offline(accountId);
        if (away && (await repo.moveTask(deps.db, taskId, ["queued"], "cancelled", { endedAtTs: now }))) return withdrawn(applicationId, away);
      } else if (task.state === "claimed" && now - (task.claimedAtTs ?? now) > deps.config.companionTimeoutMs) {
        if (await repo.moveTask(deps.db, taskId, ["claimed"], "expired", { endedAtTs: now })) {
          await repo.submitEnded(deps.db, accountId, now);
          throw new Error(`The browser companion took the submission but sent no outcome within ${deps.config.companionTimeoutMs} ms`);
        }
      } else if (task.state === "review" && now - (task.reviewSinceTs ?? now) > deps.config.companionReviewTimeoutMs) {
        // Recorded before the task moves: an extension answering at the same moment either wins the record (first one wins) or loses it.
        const kept = await outcomes.record(applicationId, { status: "failed", message: NOT_REVIEWED });
        if (await repo.moveTask(deps.db, taskId, ["review"], "expired", { endedAtTs: now })) await repo.submitEnded(deps.db, accountId, now);
        return kept;
      }
    }
  }

  /**
   * An outcome with the Connects its submit task's answer reported (what it cost, what is left): an answer that
   * reached another node (or this one before a restart) only woke this submit through the outcome table, which keeps
   * no balance. Only when the answer is the outcome that won: a late answer that lost says nothing about this one.
   */
  async function withPageConnects(outcome: SubmitOutcome, taskId: string): Promise<SubmitOutcome> {
    if ((outcome.connects || outcome.status !== "applied") && outcome.connectsAvailable !== undefined) return outcome;
    const answer = (await repo.findTask(deps.db, taskId))?.answer;
    if (!answer || !Value.Check(PageOutcome, answer)) return outcome;
    const page = pageOutcome(answer, taskId);
    if (page.status !== outcome.status) return outcome;
    const connects = outcome.connects ?? page.connects;
    const connectsAvailable = outcome.connectsAvailable ?? page.connectsAvailable;
    return { ...outcome, ...(connects ? { connects } : {}), ...(connectsAvailable === undefined ? {} : { connectsAvailable }) };
  }

  /** Queues a read and waits for its answer; null when none came in time (the unanswered task is expired, never answered late). */
  async function ask(accountId: string, type: OperationType, applicationId: string | null, body: Record<string, unknown>, waitMs: number) {
    const id = await queue(accountId, type, applicationId, body);
    const deadline = performance.now() + waitMs;
    for (;;) {
      const task = await repo.findTask(deps.db, id);
      if (task?.state === "answered") return { taskId: id, answer: task.answer };
      const left = deadline - performance.now();
      if (left <= 0 || !task) {
        await repo.moveTask(deps.db, id, ["queued", "claimed"], "expired", { endedAtTs: deps.clock.now() });
        return null;
      }
      await bells.until(`task:${id}`, Math.min(left, CHECK_MS));
    }
  }

  function lookupAnswer(result: LookupResult, taskId: string): LookupAnswer {
    switch (result.lookup) {
      case "found":
        return { status: "applied", message: result.message?.trim().slice(0, 1000) || "Found on the marketplace's proposals page by the browser companion" };
      case "none":
        return null;
      case "ended":
        return pageOutcome(result.page, taskId);
      case "unknown":
        return "unknown";
    }
  }

  return {
    name: "companion",

    async submit(req: SubmitRequest): Promise<SubmitOutcome> {
      const known = await outcomes.beforeSubmit(req.applicationId);
      if (known) return known;
      // After a restart the task handed out before it is still the one to wait for: never a second one.
      let taskId = (await repo.openTaskFor(deps.db, req.applicationId, SUBMIT))?.id;
      if (!taskId) {
        const away = await offline(req.accountId);
        if (away) return withdrawn(req.applicationId, away);
        const { mode } = await presence(req.accountId);
        taskId = await queue(req.accountId, SUBMIT, req.applicationId, {
          ...submitOperation(req),
          mode,
          reviewTimeoutMs: deps.config.companionReviewTimeoutMs,
        });
      }
      return waitSubmit(taskId, req.accountId, req.applicationId);
    },

    lookup(req: SubmitRequest) {
      return outcomes.reconcile(req.applicationId, async () => {
        const open = await repo.openTaskFor(deps.db, req.applicationId, SUBMIT);
        // Never handed out: nothing was sent. Handed out: its own answer (or its timeout) comes first.
        if (open?.state === "queued" && (await repo.moveTask(deps.db, open.id, ["queued"], "cancelled", { endedAtTs: deps.clock.now() }))) return null;
        if (open) return waitSubmit(open.id, req.accountId, req.applicationId);
        // Not "unknown" while the companion is away: it may come back and tell, so the queue retries the lookup.
        if (await offline(req.accountId)) throw new Error("The browser companion is offline; the submission will be looked up when it reconnects");
        const answer = await ask(req.accountId, "proposal.lookup", req.applicationId, lookupOperation(req.applicationId, req.accountId), readWaitMs());
        if (!answer) throw new Error(`The browser companion did not answer proposal.lookup within ${readWaitMs()} ms`);
        return lookupAnswer(answer.answer as LookupResult, answer.taskId);
      });
    },

    /**
     * Never waits: the sync task asks about many proposals and the extension reads "my proposals" slowly (it
     * throttles itself). Each call returns the newest answer so far and keeps one read queued per application.
     */
    async engagement(applicationId: string, accountId: string): Promise<Engagement | null> {
      const last = await repo.lastAnswered(deps.db, applicationId, "proposal.engagement");
      if (!(await repo.openTaskFor(deps.db, applicationId, "proposal.engagement"))) {
        await queue(accountId, "proposal.engagement", applicationId, engagementOperation(applicationId, accountId));
      }
      return last ? parseEngagement(last.answer) : null;
    },

    /**
     * The newest "my proposals" list among the engagement answers: each answer carries the read it came from (most
     * answers of one sync share a read). Its time is the browser's, capped at when the answer arrived here, so a
     * browser clock running ahead cannot date a read after the proposals it could not have seen.
     */
    async proposalsList(accountId: string): Promise<ProposalsList | null> {
      let newest: ProposalsList | null = null;
      for (const row of await repo.recentAnswers(deps.db, accountId, "proposal.engagement", PROPOSALS_ANSWERS)) {
        const list = parseProposalsList(row.answer);
        if (!list) continue;
        const readAt = Math.min(list.readAt, row.endedAtTs ?? list.readAt);
        if (!newest || readAt > newest.readAt) newest = { readAt, url: list.url, jobs: new Set(list.jobs) };
      }
      return newest;
    },

    async freelancers(accountId: string): Promise<Freelancer[]> {
      const row = await repo.findCompanion(deps.db, accountId);
      const cached = row?.freelancers ? parseFreelancers({ freelancers: row.freelancers }, "browser companion") : null;
      if (cached && deps.clock.now() - (row?.freelancersAtTs ?? 0) < FREELANCERS_TTL_MS) return cached;
      if (!(await offline(accountId))) {
        const answer = await ask(accountId, "freelancers.list", null, freelancersOperation(accountId), readWaitMs());
        if (answer) return parseFreelancers(answer.answer, "browser companion");
      }
      if (cached) return cached;
      throw new Error("The browser companion is not connected and has not listed the freelancers yet: open the browser where it is installed");
    },

    async reconnect(accountId: string): Promise<boolean> {
      if (await offline(accountId)) return false;
      const answer = await ask(accountId, "session.reconnect", null, reconnectOperation(accountId), readWaitMs());
      return parseReconnect(answer?.answer);
    },

    async nextTask(accountId: string, waitMs: number): Promise<CompanionTask | null> {
      const deadline = performance.now() + waitMs;
      let touchedAt = Number.NEGATIVE_INFINITY;
      for (;;) {
        if (performance.now() - touchedAt >= POLL_TOUCH_MS) {
          await repo.touchCompanion(deps.db, accountId, deps.clock.now());
          touchedAt = performance.now();
        }
        const task = await repo.claimNext(deps.db, accountId, deps.clock.now(), deps.config.companionMinGapMs);
        if (task) {
          log.info("companion task handed out", { taskId: task.id, type: task.type, applicationId: task.applicationId });
          return { taskId: task.id, operation: task.body } as CompanionTask;
        }
        const left = deadline - performance.now();
        if (left <= 0) {
          await repo.touchCompanion(deps.db, accountId, deps.clock.now());
          return null;
        }
        await bells.until(`account:${accountId}`, Math.min(left, POLL_CHECK_MS));
      }
    },

    async answer(accountId: string, taskId: string, outcome: CompanionOutcome): Promise<AnswerResult> {
      const task = await repo.findTask(deps.db, taskId);
      if (!task || task.accountId !== accountId) return { error: "not_found", message: "No companion task with this id for this account" };
      if (outcome.type !== task.type) return { error: "wrong_type", message: `type is ${outcome.type} but task ${taskId} is a ${task.type}` };
      // Withdrawn before it was handed out: whatever claims to answer it did not act on it.
      if (task.state === "cancelled") return { ok: true, kept: false };
      const now = deps.clock.now();
      await repo.touchCompanion(deps.db, accountId, now);
      const answer = outcome.result as Record<string, unknown>;
      if (outcome.type === SUBMIT) {
        // Even late (after the task expired) the page's word is the truth about the proposal: it is recorded, first one wins.
        const mapped = pageOutcome(outcome.result, taskId);
        if (outcome.result.page === "unrecognised")
          log.warn("companion: unrecognised apply page", { taskId, applicationId: task.applicationId, message: mapped.message });
        const kept = task.applicationId ? await outcomes.record(task.applicationId, mapped) : mapped;
        const moved = await repo.moveTask(deps.db, taskId, ["queued", "claimed", "review", "expired"], "answered", { endedAtTs: now, answer });
        if (moved && task.state !== "expired") await repo.submitEnded(deps.db, accountId, now);
        bells.ring(`task:${taskId}`);
        return { ok: true, kept: kept.status === mapped.status && kept.message === mapped.message };
      }
      const moved = await repo.moveTask(deps.db, taskId, ["queued", "claimed"], "answered", { endedAtTs: now, answer });
      if (moved && outcome.type === "freelancers.list") await repo.cacheFreelancers(deps.db, accountId, outcome.result.freelancers, now);
      if (moved && outcome.type === "proposal.engagement" && task.applicationId) await repo.dropOlderAnswers(deps.db, task.applicationId, task.type, taskId);
      bells.ring(`task:${taskId}`);
      return { ok: true, kept: moved };
    },

    async review(accountId: string, taskId: string, reviewUrl: string | null): Promise<ReviewResult> {
      const task = await repo.findTask(deps.db, taskId);
      if (!task || task.accountId !== accountId) return { error: "not_found", message: "No companion task with this id for this account" };
      if (task.type !== SUBMIT) return { error: "bad_request", message: `Only a proposal.submit task waits for review; task ${taskId} is a ${task.type}` };
      if (task.body.mode !== "review")
        return { error: "bad_request", message: "This submission is in auto mode: the extension submits it without waiting for review" };
      const now = deps.clock.now();
      await repo.touchCompanion(deps.db, accountId, now);
      if (!(await repo.moveTask(deps.db, taskId, ["claimed"], "review", { reviewSinceTs: now, reviewUrl }))) {
        return { error: "conflict", message: `Task ${taskId} is ${task.state}, not claimed: it can no longer wait for review` };
      }
      return { ok: true, reviewDeadlineAt: now + deps.config.companionReviewTimeoutMs };
    },

    presence,

    lastConnectedAt: async (accountId: string) => (await presence(accountId)).lastSeenAt,

    async progress(applicationId: string): Promise<string | null> {
      const open = await repo.openTaskFor(deps.db, applicationId, SUBMIT);
      if (open?.state === "review") {
        const until = new Date((open.reviewSinceTs ?? deps.clock.now()) + deps.config.companionReviewTimeoutMs).toISOString();
        return `Waiting for your review: the browser companion filled the proposal form; check it and click submit yourself before ${until}`;
      }
      if (open?.state === "claimed") return "The browser companion is filling in the proposal form";
      if (open?.state === "queued") return "Waiting for the browser companion (one submission at a time, paced)";
      return null;
    },

    async task(accountId: string, taskId: string) {
      const row = await repo.findTask(deps.db, taskId);
      return row && row.accountId === accountId ? row : null;
    },

    async setMode(accountId: string, mode: CompanionMode): Promise<void> {
      await repo.setMode(deps.db, accountId, mode, mode === "auto" ? deps.clock.now() : null);
    },

    inReview: (accountId: string) => repo.inReview(deps.db, accountId),
  };
}
