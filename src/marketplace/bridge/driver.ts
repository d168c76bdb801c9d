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
import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { secretKey, signedHeaders } from "../../lib/standard-webhooks";
import type { Engagement, Freelancer, MarketplaceDriver, SubmitOutcome, SubmitRequest } from "../driver";
import {
  engagementOperation,
  freelancersOperation,
  lookupOperation,
  parseEngagement,
  parseFreelancers,
  parseOutcome,
  parseReconnect,
  reconnectOperation,
  submitOperation,
} from "../remote/operations";
import { createOutcomeStore } from "../remote/outcomes";

export { FinalStatusSchema, toOutcome } from "../remote/operations";

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

const AcceptedReply = t.Object({ accepted: t.Literal(true) });

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
  /** Stores a verified outcome (first one wins, see remote/outcomes.ts), wakes a waiting submit, and returns what is stored. */
  recordOutcome(applicationId: string, outcome: SubmitOutcome): Promise<SubmitOutcome>;
  /** Submissions waiting for their callback right now (for tests and diagnostics). */
  waiting(): number;
};

export function createBridgeDriver(deps: BridgeDeps): BridgeDriver {
  const log = deps.log.child({ component: "bridge" });
  const outcomes = createOutcomeStore(deps);

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

  const readTimeoutMs = () => Math.min(deps.config.bridgeTimeoutMs, READ_TIMEOUT_CAP_MS);

  return {
    name: "bridge",
    recordOutcome: outcomes.record,
    waiting: outcomes.waiting,

    async submit(req: SubmitRequest): Promise<SubmitOutcome> {
      const cfg = settings();
      if (!cfg) return { status: "failed", message: NOT_CONFIGURED };
      // Idempotent: an application whose outcome is known is never sent again.
      const known = await outcomes.beforeSubmit(req.applicationId);
      if (known) return known;

      const started = performance.now();
      const payload = { ...submitOperation(req), callbackPath: BRIDGE_CALLBACK_PATH };
      // Unique per attempt; the idempotency key for the submitter is body.applicationId.
      const msgId = `sub_${req.applicationId}_${randomBytes(4).toString("hex")}`;
      const reply = await post(cfg, payload, msgId, deps.config.bridgeTimeoutMs);
      if (!reply.ok) throw new Error(`The bridge submitter could not be reached: ${reply.reason}`);

      const { status } = reply;
      if (status === 200) {
        const outcome = parseOutcome(reply.body);
        if (!outcome) throw new Error("The bridge submitter answered 200 without a valid {status, message}");
        return outcomes.record(req.applicationId, outcome);
      }
      if (status === 202) {
        if (!Value.Check(AcceptedReply, reply.body)) throw new Error("The bridge submitter answered 202 without {accepted: true}");
        // The outcome may already be stored (the callback beat the response), else it is waited for.
        const outcome = await outcomes.wait(req.applicationId, deps.config.bridgeTimeoutMs - (performance.now() - started));
        if (outcome) return outcome;
        throw new Error(`The bridge submitter accepted the submission but sent no outcome to ${BRIDGE_CALLBACK_PATH} within ${deps.config.bridgeTimeoutMs} ms`);
      }
      if (status >= 300 && status < 400) throw new Error(`The bridge submitter answered a redirect (HTTP ${status}); redirects are not followed`);
      // 404 is most likely a wrong URL, 408/429 ask us to come back: all worth a retry, not a verdict on the proposal.
      if (status >= 500 || status === 404 || status === 408 || status === 429) throw new Error(`The bridge submitter answered HTTP ${status}`);
      if (status >= 400) return { status: "failed", message: refusalMessage(reply) };
      throw new Error(`The bridge submitter answered HTTP ${status}; expected 200 or 202`);
    },

    lookup(req: SubmitRequest) {
      return outcomes.reconcile(req.applicationId, async () => {
        const cfg = settings();
        // Nothing can have been sent through a bridge that is not configured (and submit() would send nothing now either).
        if (!cfg) return null;
        const reply = await post(cfg, lookupOperation(req.applicationId, req.accountId), `msg_${newId()}`, readTimeoutMs());
        if (!reply.ok) return "unknown";
        if (reply.status === 404) return null;
        const outcome = reply.status === 200 ? parseOutcome(reply.body) : null;
        // A submitter still working on it answers e.g. {status: "processing"}: that is "cannot tell" too.
        if (!outcome) log.warn("bridge lookup gave no usable answer", { applicationId: req.applicationId, status: reply.status });
        return outcome ?? "unknown";
      });
    },

    async engagement(applicationId: string, accountId: string): Promise<Engagement | null> {
      const cfg = settings();
      if (!cfg) return null;
      const reply = await post(cfg, engagementOperation(applicationId, accountId), `msg_${newId()}`, readTimeoutMs());
      return reply.ok && reply.status === 200 ? parseEngagement(reply.body) : null;
    },

    async freelancers(accountId: string): Promise<Freelancer[]> {
      const cfg = settings();
      if (!cfg) throw new Error(NOT_CONFIGURED);
      const reply = await post(cfg, freelancersOperation(accountId), `msg_${newId()}`, readTimeoutMs());
      if (!reply.ok) throw new Error(`Could not list freelancers through the bridge: ${reply.reason}`);
      if (reply.status !== 200) throw new Error(`Could not list freelancers through the bridge: the submitter answered HTTP ${reply.status}`);
      return parseFreelancers(reply.body, "bridge submitter");
    },

    async reconnect(accountId: string): Promise<boolean> {
      const cfg = settings();
      if (!cfg) return false;
      // A re-login can take a while: the full bridge timeout, like a submission.
      const reply = await post(cfg, reconnectOperation(accountId), `msg_${newId()}`, deps.config.bridgeTimeoutMs);
      return reply.ok && reply.status === 200 && parseReconnect(reply.body);
    },
  };
}
