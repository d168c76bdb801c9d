/**
 * The bridge driver: hands each submission to the user's own submitter (for
 * example a script in their logged-in browser) as a signed HTTP POST to
 * JOBPILOT_BRIDGE_URL, and takes the outcome either in the response or later
 * through the signed callback (callback.ts). Every request and callback is
 * signed with Standard Webhooks using JOBPILOT_BRIDGE_SECRET.
 *
 * Error policy, which the applications queue relies on: transient trouble
 * (unreachable, 5xx, 3xx, timeout, no callback in time, a reply we cannot
 * read) throws so the queue retries — and it calls lookup() before sending
 * again, so a submission is never blindly duplicated. Only a clear refusal
 * (4xx) or a reported status becomes an outcome.
 */
import { readCapped, TooLargeError } from "../../lib/read-capped";
import { t, type Static } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client";
import { FINAL_STATUSES, PROFILE_TYPES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { isOneOf } from "../../lib/one-of";
import type { Logger } from "../../lib/log";
import { secretKey, signedHeaders } from "../../lib/standard-webhooks";
import type { Engagement, FinalStatus, Freelancer, MarketplaceDriver, SubmitOutcome, SubmitRequest } from "../driver";
import * as repo from "./repo";

export interface BridgeDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  config: { bridgeUrl?: string; bridgeSecret?: string; bridgeTimeoutMs: number };
}

export const BRIDGE_CALLBACK_PATH = "/bridge/callback";
export const NOT_CONFIGURED = "The bridge driver is not configured (set JOBPILOT_BRIDGE_URL and JOBPILOT_BRIDGE_SECRET)";

/** Reads (lookup, engagement, freelancers) should answer fast; they never wait longer than this even when bridgeTimeoutMs is long. */
const READ_TIMEOUT_CAP_MS = 15_000;
/** A submitter's answer is small; anything bigger is refused rather than buffered. */
const MAX_REPLY_BYTES = 1024 * 1024;
const MAX_MESSAGE_CHARS = 1000;

export const FinalStatusSchema = literalUnion(FINAL_STATUSES);

// What the submitter may answer. Extra fields are allowed and ignored.
const OutcomeReply = t.Object({ status: FinalStatusSchema, message: t.Optional(t.String()) });
const AcceptedReply = t.Object({ accepted: t.Literal(true) });
const EngagementReply = t.Object({
  viewed: t.Boolean(),
  replied: t.Boolean(),
  viewedAt: t.Optional(t.Union([t.Integer({ minimum: 0 }), t.Null()])),
});
const FreelancerReply = t.Object({
  id: t.String({ minLength: 1 }),
  name: t.String(),
  avatarUrl: t.Union([t.String(), t.Null()]),
  baseHourlyRate: t.Union([t.Number({ minimum: 0 }), t.Null()]),
  profiles: t.Array(
    t.Object({
      type: literalUnion(PROFILE_TYPES),
      name: t.String(),
      hourlyRate: t.Union([t.Number({ minimum: 0 }), t.Null()]),
      currency: t.String({ minLength: 1 }),
      profileId: t.String({ minLength: 1 }),
    }),
  ),
});
const FreelancersReply = t.Object({ freelancers: t.Array(FreelancerReply) });
const ReconnectReply = t.Object({ ok: t.Boolean() });

function isFinalStatus(value: unknown): value is FinalStatus {
  return isOneOf(FINAL_STATUSES, value);
}

const DEFAULT_MESSAGES: Record<FinalStatus, string> = {
  applied: "The proposal was submitted",
  failed: "The bridge submitter could not submit the proposal",
  not_available: "The job is no longer available",
  not_eligible: "The freelancer is not eligible for this job",
  not_enough_connects: "Not enough Connects to submit this proposal",
  logged_out: "The submitter's marketplace session is logged out",
};

/** A status plus the submitter's sentence (trimmed and capped), or the default sentence for that status. */
export function toOutcome(status: FinalStatus, message: unknown): SubmitOutcome {
  const text = typeof message === "string" ? message.trim().slice(0, MAX_MESSAGE_CHARS) : "";
  return { status, message: text || DEFAULT_MESSAGES[status] };
}

function parseOutcome(body: unknown): SubmitOutcome | null {
  if (!Value.Check(OutcomeReply, body)) return null;
  const reply = body as Static<typeof OutcomeReply>;
  return toOutcome(reply.status, reply.message);
}

/** The submitter's reason on a refusal: `message` or `error` from a JSON body, else the start of the text. */
function refusalMessage(reply: Extract<HttpReply, { ok: true }>): string {
  const body = reply.body as Record<string, unknown> | undefined;
  const given = typeof body?.message === "string" ? body.message : typeof body?.error === "string" ? body.error : reply.body === undefined ? reply.text : "";
  const text = given.trim().slice(0, MAX_MESSAGE_CHARS);
  return text || `The bridge submitter refused the submission (HTTP ${reply.status})`;
}

type HttpReply = { ok: true; status: number; body: unknown; text: string } | { ok: false; reason: string };

async function readReply(res: Response): Promise<string> {
  try {
    return new TextDecoder().decode(await readCapped(res.body, MAX_REPLY_BYTES));
  } catch (err) {
    if (err instanceof TooLargeError) throw new Error(`reply larger than ${MAX_REPLY_BYTES} bytes`);
    throw err;
  }
}

export type BridgeDriver = MarketplaceDriver & {
  /** Stores a verified outcome (first one wins, see repo.recordOutcome), wakes a waiting submit, and returns what is stored. */
  recordOutcome(applicationId: string, outcome: SubmitOutcome): Promise<SubmitOutcome>;
  /** Submissions waiting for their callback right now (for tests and diagnostics). */
  waiting(): number;
};

export function createBridgeDriver(deps: BridgeDeps): BridgeDriver {
  const log = deps.log.child({ component: "bridge" });
  // In-memory only: a waiter lives as long as one submit() call; the table is what survives a restart.
  const waiters = new Map<string, Set<(outcome: SubmitOutcome) => void>>();

  function settings(): { url: string; secret: string } | null {
    const { bridgeUrl: url, bridgeSecret: secret } = deps.config;
    if (!url || !secret) return null;
    try {
      secretKey(secret);
    } catch (err) {
      log.warn("JOBPILOT_BRIDGE_SECRET is not usable", { reason: (err as Error).message });
      return null;
    }
    return { url, secret };
  }

  async function stored(applicationId: string): Promise<SubmitOutcome | null> {
    const row = await repo.findOutcome(deps.db, applicationId);
    return row && isFinalStatus(row.status) ? toOutcome(row.status, row.message) : null;
  }

  async function recordOutcome(applicationId: string, outcome: SubmitOutcome): Promise<SubmitOutcome> {
    const row = await repo.recordOutcome(deps.db, { applicationId, status: outcome.status, message: outcome.message, receivedAtTs: deps.clock.now() });
    const kept = isFinalStatus(row.status) ? toOutcome(row.status, row.message) : outcome;
    for (const wake of waiters.get(applicationId) ?? []) wake(kept);
    return kept;
  }

  /** One signed POST. Never follows redirects: a 3xx comes back as a reply and callers treat it as trouble. */
  async function post(cfg: { url: string; secret: string }, payload: Record<string, unknown>, msgId: string, timeoutMs: number): Promise<HttpReply> {
    const body = JSON.stringify(payload);
    const headers = {
      "content-type": "application/json",
      "user-agent": "jobpilot-bridge",
      ...signedHeaders(cfg.secret, msgId, body, Math.floor(deps.clock.now() / 1000)),
    };
    const started = performance.now();
    try {
      const res = await fetch(cfg.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
      const text = await readReply(res);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      log.debug("bridge request", { type: payload.type, msgId, status: res.status, ms: Math.round(performance.now() - started) });
      return { ok: true, status: res.status, body: parsed, text };
    } catch (err) {
      const e = err as Error;
      const reason = e?.name === "TimeoutError" || e?.name === "AbortError" ? `no answer within ${timeoutMs} ms` : (e?.message ?? String(err));
      log.warn("bridge request failed", { type: payload.type, msgId, reason });
      return { ok: false, reason };
    }
  }

  /** After a 202: the outcome may already be stored (the callback beat the response), else wait for it. */
  async function waitForCallback(applicationId: string, waitMs: number): Promise<SubmitOutcome> {
    // The waiter is registered before the stored outcome is read: a callback recorded in between wakes it.
    let wake!: (outcome: SubmitOutcome) => void;
    const waiting = new Promise<SubmitOutcome>((resolve, reject) => {
      let set = waiters.get(applicationId);
      if (!set) waiters.set(applicationId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && waiters.get(applicationId) === set) waiters.delete(applicationId);
      };
      wake = (outcome: SubmitOutcome) => {
        done();
        resolve(outcome);
      };
      const timer = setTimeout(
        () => {
          done();
          reject(
            new Error(`The bridge submitter accepted the submission but sent no outcome to ${BRIDGE_CALLBACK_PATH} within ${deps.config.bridgeTimeoutMs} ms`),
          );
        },
        Math.max(0, waitMs),
      );
      set.add(wake);
    });
    const already = await stored(applicationId);
    if (already) wake(already);
    return waiting;
  }

  const readTimeoutMs = () => Math.min(deps.config.bridgeTimeoutMs, READ_TIMEOUT_CAP_MS);

  return {
    name: "bridge",
    recordOutcome,
    waiting: () => [...waiters.values()].reduce((n, s) => n + s.size, 0),

    async submit(req: SubmitRequest): Promise<SubmitOutcome> {
      const cfg = settings();
      if (!cfg) return { status: "failed", message: NOT_CONFIGURED };
      // Idempotent: an application whose outcome is known is never sent again. logged_out means nothing was sent.
      const known = await stored(req.applicationId);
      if (known && known.status !== "logged_out") return known;
      await repo.clearLoggedOut(deps.db, req.applicationId);

      const started = performance.now();
      const payload = {
        type: "proposal.submit",
        applicationId: req.applicationId,
        accountId: req.accountId,
        freelancerId: req.freelancerId,
        profileId: req.profileId,
        job: { ciphertext: req.job.ciphertext, url: req.job.url, title: req.job.title, jobType: req.job.jobType },
        coverLetter: req.coverLetter,
        bid: req.bid,
        answers: req.answers,
        callbackPath: BRIDGE_CALLBACK_PATH,
      };
      // Unique per attempt; the idempotency key for the submitter is body.applicationId.
      const msgId = `sub_${req.applicationId}_${randomBytes(4).toString("hex")}`;
      const reply = await post(cfg, payload, msgId, deps.config.bridgeTimeoutMs);
      if (!reply.ok) throw new Error(`The bridge submitter could not be reached: ${reply.reason}`);

      const { status } = reply;
      if (status === 200) {
        const outcome = parseOutcome(reply.body);
        if (!outcome) throw new Error("The bridge submitter answered 200 without a valid {status, message}");
        return recordOutcome(req.applicationId, outcome);
      }
      if (status === 202) {
        if (!Value.Check(AcceptedReply, reply.body)) throw new Error("The bridge submitter answered 202 without {accepted: true}");
        return waitForCallback(req.applicationId, deps.config.bridgeTimeoutMs - (performance.now() - started));
      }
      if (status >= 300 && status < 400) throw new Error(`The bridge submitter answered a redirect (HTTP ${status}); redirects are not followed`);
      // 404 is most likely a wrong URL, 408/429 ask us to come back: all worth a retry, not a verdict on the proposal.
      if (status >= 500 || status === 404 || status === 408 || status === 429) throw new Error(`The bridge submitter answered HTTP ${status}`);
      if (status >= 400) return { status: "failed", message: refusalMessage(reply) };
      throw new Error(`The bridge submitter answered HTTP ${status}; expected 200 or 202`);
    },

    async lookup(req: SubmitRequest): Promise<SubmitOutcome | null | "unknown"> {
      const known = await stored(req.applicationId);
      // logged_out: the submitter did not submit, so sending again is not a duplicate.
      if (known) return known.status === "logged_out" ? null : known;
      const cfg = settings();
      // Nothing can have been sent through a bridge that is not configured (and submit() would send nothing now either).
      if (!cfg) return null;
      const reply = await post(cfg, { type: "proposal.lookup", applicationId: req.applicationId, accountId: req.accountId }, `msg_${newId()}`, readTimeoutMs());
      if (!reply.ok) return "unknown";
      if (reply.status === 404) return null;
      const outcome = reply.status === 200 ? parseOutcome(reply.body) : null;
      if (!outcome) {
        // A submitter still working on it answers e.g. {status: "processing"}: that is "cannot tell" too.
        log.warn("bridge lookup gave no usable answer", { applicationId: req.applicationId, status: reply.status });
        return "unknown";
      }
      if (outcome.status === "logged_out") return null;
      return recordOutcome(req.applicationId, outcome);
    },

    async engagement(applicationId: string, accountId: string): Promise<Engagement | null> {
      const cfg = settings();
      if (!cfg) return null;
      const reply = await post(cfg, { type: "proposal.engagement", applicationId, accountId }, `msg_${newId()}`, readTimeoutMs());
      if (!reply.ok || reply.status !== 200 || !Value.Check(EngagementReply, reply.body)) return null;
      const body = reply.body as Static<typeof EngagementReply>;
      return { viewed: body.viewed, replied: body.replied, viewedAt: body.viewed ? (body.viewedAt ?? null) : null };
    },

    async freelancers(accountId: string): Promise<Freelancer[]> {
      const cfg = settings();
      if (!cfg) throw new Error(NOT_CONFIGURED);
      const reply = await post(cfg, { type: "freelancers.list", accountId }, `msg_${newId()}`, readTimeoutMs());
      if (!reply.ok) throw new Error(`Could not list freelancers through the bridge: ${reply.reason}`);
      if (reply.status !== 200) throw new Error(`Could not list freelancers through the bridge: the submitter answered HTTP ${reply.status}`);
      if (!Value.Check(FreelancersReply, reply.body)) {
        const first = Value.Errors(FreelancersReply, reply.body).First();
        const where = first ? ` (${first.path || "body"}: ${first.message})` : "";
        throw new Error(`The bridge submitter's freelancers list is not in the expected shape${where}`);
      }
      // Copy field by field so nothing the submitter added leaks into our API responses.
      return (reply.body as Static<typeof FreelancersReply>).freelancers.map((f) => ({
        id: f.id,
        name: f.name,
        avatarUrl: f.avatarUrl,
        baseHourlyRate: f.baseHourlyRate,
        profiles: f.profiles.map((p) => ({ type: p.type, name: p.name, hourlyRate: p.hourlyRate, currency: p.currency, profileId: p.profileId })),
      }));
    },

    async reconnect(accountId: string): Promise<boolean> {
      const cfg = settings();
      if (!cfg) return false;
      // A re-login can take a while: the full bridge timeout, like a submission.
      const reply = await post(cfg, { type: "session.reconnect", accountId }, `msg_${newId()}`, deps.config.bridgeTimeoutMs);
      if (!reply.ok || reply.status !== 200 || !Value.Check(ReconnectReply, reply.body)) return false;
      return (reply.body as Static<typeof ReconnectReply>).ok;
    },
  };
}
