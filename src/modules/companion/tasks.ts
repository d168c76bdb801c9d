/**
 * The browser companion's task channel: the HTTP face of the companion driver (src/marketplace/companion), which
 * the extension polls for submissions and answers with their outcomes. A feature route, since it authenticates
 * the caller and reads which driver the account applies through; the driver itself stays an adapter.
 */
import { Elysia, t } from "elysia";
import { COMPANION_MODES, COMPANION_TASK_STATES } from "../../db/enums";
import { AppError } from "../../errors";
import { corsPreflights } from "../../http/cors";
import { routePolicy } from "../../http/route-policy";
import { errorResponses, literalUnion, queryInt } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { driverNameFor } from "../accounts/drivers";
import type { DriverDeps } from "../../marketplace/drivers";
import {
  AUTO_MODE_WARNING,
  CompanionModeSchema,
  CompanionOutcome,
  CompanionReview,
  CompanionTask,
  COMPANION_KEY_LABEL,
} from "../../marketplace/companion/contract";
import { DEFAULT_POLL_WAIT_MS, MAX_POLL_WAIT_MS, type CompanionDriver } from "../../marketplace/companion/driver";
import { MAX_CONNECTS_BALANCE } from "../../marketplace/remote/operations";
import type { Clock } from "../../lib/clock";
import { countProposalsRead } from "./reads";

const tags = ["Companion"];

const CompanionStatus = t.Object({
  driver: t.String({ description: "The driver this account applies through now (sandbox, bridge or companion)" }),
  connected: t.Boolean({ description: "The extension polled or answered in the last 15 s" }),
  lastSeenAt: t.Nullable(t.Integer({ description: "Unix ms of its last poll or answer" })),
  mode: CompanionModeSchema,
  autoAcceptedAt: t.Nullable(t.Integer({ description: "Unix ms when auto mode was switched on (its warning accepted)" })),
  minGapMs: t.Integer({ description: "JOBPILOT_COMPANION_MIN_GAP_MS: the least time between two submissions" }),
  timeoutMs: t.Integer({ description: "JOBPILOT_COMPANION_TIMEOUT_MS" }),
  reviewTimeoutMs: t.Integer({ description: "JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS" }),
});

const StoredTask = t.Object({
  taskId: t.String(),
  type: t.String(),
  applicationId: t.Nullable(t.String()),
  state: literalUnion(COMPANION_TASK_STATES),
  createdAt: t.Integer({ description: "Unix ms" }),
  claimedAt: t.Nullable(t.Integer({ description: "Unix ms when the extension took it" })),
  endedAt: t.Nullable(t.Integer({ description: "Unix ms when it was answered, expired or withdrawn" })),
  operation: t.Record(t.String(), t.Unknown(), { description: "The task's body as handed out" }),
  answer: t.Nullable(t.Record(t.String(), t.Unknown(), { description: "The extension's result, as posted" })),
});

const PATHS = {
  status: "/api/v1/companion",
  mode: "/api/v1/companion/mode",
  tasks: "/api/v1/companion/tasks",
  task: "/api/v1/companion/tasks/:taskId",
  outcome: "/api/v1/companion/tasks/:taskId/outcome",
  review: "/api/v1/companion/tasks/:taskId/review",
} as const;

/**
 * The extension calls from its own origin (chrome-extension://…) to wherever the server is, a VPS included: every
 * answer, a 401 or 429 too, may be read from any origin, and the preflights are answered without a key.
 */
const POLICY = { policy: { anyOrigin: true } } as const;
/**
 * A task's outcome and the review signal settle a submission (the credit is charged on it): what someone clicking
 * submit by hand needs, `send`. Switching auto submission on or off is the governor's business: `automation`.
 */
const SENDING = { policy: { anyOrigin: true, permission: "send" } } as const;
const GOVERNING = { policy: { anyOrigin: true, permission: "automation" } } as const;

const TaskParams = t.Object({ taskId: t.String({ minLength: 1, maxLength: 100 }) });

/** The 403 of a task route called with another key of the account: what it is for, and how to get the right key. */
export const NOT_THE_COMPANION_KEY =
  "This route is for the paired browser companion's key only (the key pairing issued, labelled \"browser companion\"); pair the companion from the dashboard's Browser companion page";

/**
 * The one scope check of the companion's task channel. A key is the companion's when pairing issued it (its label);
 * every other key of the account (a script's, the bookmarklet's, which sits in a job site's storage) is refused.
 */
export function requireCompanionKey(auth: { keyLabel: string | null }): void {
  if (auth.keyLabel !== COMPANION_KEY_LABEL) throw new AppError("forbidden", NOT_THE_COMPANION_KEY);
}

const CONNECTS_FIELDS = [
  ["connectsRequired", 1000],
  ["boostConnects", 1000],
  ["connectsAvailable", MAX_CONNECTS_BALANCE],
] as const;

/**
 * A submitted page's Connects counts, checked ahead of the body's schema (which checks them again): whole numbers
 * from 0 to 1000, or left out. Anything else is a 400 that names the field; the answer is then not recorded at all.
 */
function checkReportedConnects(body: unknown): void {
  const result = (body as { result?: unknown } | null)?.result;
  if (typeof result !== "object" || result === null || (result as { page?: unknown }).page !== "submitted") return;
  for (const [field, max] of CONNECTS_FIELDS) {
    const value = (result as Record<string, unknown>)[field];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max)) {
      throw new AppError("bad_request", `Invalid body: result.${field} must be a whole number of Connects from 0 to ${max}, or left out`);
    }
  }
}

type RouteDeps = Omit<DriverDeps, "drivers"> & {
  clock: Clock;
  drivers: DriverDeps["drivers"] & { companion: CompanionDriver };
  config: DriverDeps["config"] & { companionMinGapMs: number; companionTimeoutMs: number; companionReviewTimeoutMs: number };
};

/**
 * The browser companion's side of the companion driver: its long poll, its answers, the review signal, and
 * the account's companion settings. The task routes take only the companion's own key (requireCompanionKey); the
 * settings take any key of the account.
 */
export function companionRoutes(deps: RouteDeps) {
  const companion = deps.drivers.companion;
  const status = async (accountId: string) => {
    const seen = await companion.presence(accountId);
    return {
      driver: await driverNameFor(deps, accountId),
      ...seen,
      minGapMs: deps.config.companionMinGapMs,
      timeoutMs: deps.config.companionTimeoutMs,
      reviewTimeoutMs: deps.config.companionReviewTimeoutMs,
    };
  };

  // The task channel hands out cover letters and takes the outcomes that charge credits: only the paired
  // companion's own key reaches it, checked once for every route of this instance (before validation, so a wrong
  // key learns nothing of the body it sent). A route added below inherits the check.
  const tasks = new Elysia()
    .use(authContext)
    .use(routePolicy)
    .derive(({ auth }) => {
      requireCompanionKey(auth);
      return {};
    })
    .get(PATHS.tasks, async ({ auth, query }) => ({ task: await companion.nextTask(auth.accountId, query.waitMs ?? DEFAULT_POLL_WAIT_MS) }), {
      query: t.Object({
        waitMs: t.Optional(
          queryInt("waitMs", {
            minimum: 0,
            maximum: MAX_POLL_WAIT_MS,
            description: `How long to hold the request open for a task (default ${DEFAULT_POLL_WAIT_MS})`,
          }),
        ),
      }),
      ...POLICY,
      response: { 200: t.Object({ task: t.Nullable(CompanionTask) }), ...errorResponses(400, 401, 403, 429, 500) },
      detail: {
        tags,
        operationId: "nextCompanionTask",
        summary: "Long poll: the next task for the browser companion",
        description:
          "Held open up to waitMs until a task is ready; `task` is null when none came (poll again at once). Polling is what marks the companion connected. " +
          "A proposal.submit is handed out only when no other submission of the account is in flight and JOBPILOT_COMPANION_MIN_GAP_MS has passed since the last one ended.",
      },
    })
    .post(
      PATHS.outcome,
      async ({ auth, params, body }) => {
        // A "my proposals" read counts against companionReadsPerHour; over it the answer is refused (429) and not kept.
        if (body.type === "proposal.engagement") await countProposalsRead(deps, auth.accountId, params.taskId, body.result);
        const result = await companion.answer(auth.accountId, params.taskId, body);
        if ("error" in result) throw new AppError(result.error === "not_found" ? "not_found" : "bad_request", result.message);
        return result;
      },
      {
        ...SENDING,
        // Before validation: a union's failure names no field, and a bad Connects count should say which one it is.
        transform: ({ body }) => checkReportedConnects(body),
        params: TaskParams,
        body: CompanionOutcome,
        response: {
          200: t.Object({ ok: t.Literal(true), kept: t.Boolean({ description: "false: the task was already settled, this answer changed nothing" }) }),
          ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500),
        },
        detail: {
          tags,
          operationId: "reportCompanionOutcome",
          summary: "The browser companion's answer to a task",
          description:
            "`type` must be the task's type. For proposal.submit, `result` says what the apply page showed; the server maps it to the application's status. " +
            "The first outcome of a submission wins; a late one (after the task timed out) is still recorded if none was. " +
            'A proposal.engagement answer with a new "my proposals" read counts against the governor\'s companionReadsPerHour: over it, 429 naming the limit and when it frees (retry-after), the answer is not kept and the task is given up.',
        },
      },
    )
    .post(
      PATHS.review,
      async ({ auth, params, body }) => {
        const result = await companion.review(auth.accountId, params.taskId, body.reviewUrl ?? null);
        if ("error" in result) throw new AppError(result.error, result.message);
        return result;
      },
      {
        ...SENDING,
        params: TaskParams,
        body: CompanionReview,
        response: {
          200: t.Object({ ok: t.Literal(true), reviewDeadlineAt: t.Integer({ description: "Unix ms" }) }),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500),
        },
        detail: {
          tags,
          operationId: "companionAwaitingReview",
          summary: "Review mode: the proposal form is filled and waits for the user's click",
          description:
            "From here JOBPILOT_COMPANION_REVIEW_TIMEOUT_MS applies instead of JOBPILOT_COMPANION_TIMEOUT_MS; the dashboard shows the application as waiting for your review, linking reviewUrl.",
        },
      },
    )
    .get(
      PATHS.task,
      async ({ auth, params }) => {
        const task = await companion.task(auth.accountId, params.taskId);
        if (!task) throw new AppError("not_found", "No companion task with this id for this account");
        return {
          taskId: task.id,
          type: task.type,
          applicationId: task.applicationId,
          state: task.state,
          createdAt: task.createdAtTs,
          claimedAt: task.claimedAtTs,
          endedAt: task.endedAtTs,
          operation: task.body,
          answer: task.answer,
        };
      },
      {
        ...POLICY,
        params: TaskParams,
        response: { 200: StoredTask, ...errorResponses(401, 403, 404, 429, 500) },
        detail: {
          tags,
          operationId: "getCompanionTask",
          summary: "One companion task as stored, with the extension's answer",
          description: "For diagnosis: an unrecognised apply page's visible text is kept in `answer.visibleText`. Another account's task is a 404.",
        },
      },
    );

  return (
    new Elysia()
      .use(corsPreflights(Object.values(PATHS), { methods: ["GET", "POST", "PUT"], headers: ["content-type", "x-api-key"] }))
      .use(tasks)
      // The account's companion settings, not its task channel: any key of the account (the dashboard's, a script's) may read and set them.
      .use(authContext)
      .use(routePolicy)
      .get(PATHS.status, ({ auth }) => status(auth.accountId), {
        ...POLICY,
        response: { 200: CompanionStatus, ...errorResponses(401, 429, 500) },
        detail: {
          tags,
          operationId: "getCompanion",
          summary: "The account's browser companion: connected, mode, pacing",
          description:
            "Whether the extension is connected (it polled or answered in the last 15 s), its submission mode, and the driver the account applies through.",
        },
      })
      .put(
        PATHS.mode,
        async ({ auth, body }) => {
          if (body.mode === "auto" && body.acceptAutoSubmitRisk !== true) {
            throw new AppError("bad_request", `acceptAutoSubmitRisk must be true to switch on auto mode. ${AUTO_MODE_WARNING}`);
          }
          await companion.setMode(auth.accountId, body.mode);
          return status(auth.accountId);
        },
        {
          ...GOVERNING,
          body: t.Object({
            mode: literalUnion(COMPANION_MODES),
            acceptAutoSubmitRisk: t.Optional(t.Boolean({ description: `Required true for auto. ${AUTO_MODE_WARNING}` })),
          }),
          response: { 200: CompanionStatus, ...errorResponses(400, 401, 413, 415, 429, 500) },
          detail: {
            tags,
            operationId: "setCompanionMode",
            summary: "Review (default) or auto submission",
            description: `review: you click submit on each filled form. auto: the extension submits on its own; needs acceptAutoSubmitRisk: true. ${AUTO_MODE_WARNING}`,
          },
        },
      )
  );
}
