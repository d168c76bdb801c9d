/**
 * /admin/sandbox/* — operator controls of the simulated marketplace, to
 * exercise every outcome by hand: close a job, set Connects, invalidate a
 * session, make a client view, reply, interview, hire or pass now, link
 * freelancers to an agency.
 * The app checks the admin bearer token before routing; these are only routes.
 */
import { Elysia, t } from "elysia";
import { tx } from "../../db/client";
import { PROFILE_TYPES } from "../../db/enums";
import { CIPHERTEXT_RE, CIPHERTEXT_RULE } from "../../lib/ids";
import { AppError, notFound } from "../../errors";
import { errorResponses, literalUnion } from "../../http/schemas";
import { advanceEngagement, toEngagement, listFreelancers, requireAccount, type FreelancerWithProfiles, type SandboxDeps } from "./driver";
import * as repo from "./repo";
import * as roster from "./roster";

const ProfileView = t.Object({
  type: literalUnion(PROFILE_TYPES),
  name: t.String(),
  hourlyRate: t.Nullable(t.Number()),
  currency: t.String(),
  profileId: t.String(),
  skills: t.Array(t.String()),
});

const FreelancerView = t.Object({
  id: t.String(),
  accountId: t.String(),
  name: t.String(),
  avatarUrl: t.Nullable(t.String()),
  baseHourlyRate: t.Nullable(t.Number()),
  country: t.String(),
  jobSuccessScore: t.Integer(),
  connects: t.Integer(),
  createdAt: t.Integer({ description: "Unix ms" }),
  profiles: t.Array(ProfileView),
});
type FreelancerView = typeof FreelancerView.static;

const SessionView = t.Object({ accountId: t.String(), valid: t.Boolean(), restorable: t.Boolean(), updatedAt: t.Nullable(t.Integer()) });

const EngagementView = t.Object({
  applicationId: t.String(),
  viewed: t.Boolean(),
  replied: t.Boolean(),
  viewedAt: t.Nullable(t.Integer()),
  repliedAt: t.Nullable(t.Integer()),
  interviewAt: t.Nullable(t.Integer()),
  hiredAt: t.Nullable(t.Integer()),
  lostAt: t.Nullable(t.Integer({ description: "When the client passed (closed the job or hired someone else)" })),
});
type EngagementView = typeof EngagementView.static;

const SubmissionView = t.Object({
  applicationId: t.String(),
  accountId: t.String(),
  freelancerId: t.String(),
  jobCiphertext: t.String(),
  status: t.String(),
  message: t.String(),
  connectsSpent: t.Integer(),
  submittedAt: t.Integer({ description: "Unix ms" }),
  engagement: EngagementView,
  plan: t.Nullable(
    t.Record(t.String(), t.Unknown(), {
      description:
        "The outcome model's draw at submission (docs/sandbox-market.md): the facts it read, each stage's probability, each stage's delay or null (never), the time scale. Null for a refused proposal or one from before the model.",
    }),
  ),
});

function engagementView(row: repo.SubmissionRow): EngagementView {
  const e = toEngagement(row);
  return {
    applicationId: row.applicationId,
    viewed: e.viewed,
    replied: e.replied,
    viewedAt: e.viewedAt,
    repliedAt: e.repliedAt ?? null,
    interviewAt: e.interviewAt ?? null,
    hiredAt: e.hiredAt ?? null,
    lostAt: e.lostAt ?? null,
  };
}

/** What an admin can make the client do now, and the stage each one fills (with every stage before it). */
const FORCED = {
  view: { stages: 1, label: "viewed" },
  reply: { stages: 2, label: "replied to" },
  interview: { stages: 3, label: "invited to an interview" },
  hire: { stages: 4, label: "hired" },
  lose: { stages: 0, label: "passed on" },
} as const;
type Forced = keyof typeof FORCED;

// Ciphertexts are checked for shape as the public routes check them (a malformed one is a 400, never a
// lookup); account and submission ids, like the public routes' ids, are looked up and a stranger is a 404.
const cipherParam = (name: string) => t.String({ pattern: CIPHERTEXT_RE.source, error: `${name} must be ${CIPHERTEXT_RULE}` });
const AccountIdParams = t.Object({ accountId: t.String({ minLength: 1, maxLength: 100 }) });
const FreelancerIdParams = t.Object({ freelancerId: cipherParam("freelancerId") });
const ApplicationIdParams = t.Object({ applicationId: t.String({ minLength: 1, maxLength: 100 }) });
const CiphertextParams = t.Object({ ciphertext: cipherParam("ciphertext") });

const SetConnectsBody = t.Object({ connects: t.Integer({ minimum: 0, maximum: 1_000_000 }) });
const SetSessionBody = t.Object({
  valid: t.Boolean(),
  restorable: t.Optional(t.Boolean({ default: true, description: "Whether reconnect() can restore an invalid session (default true)" })),
});
const AddFreelancerBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  country: t.Optional(t.String({ pattern: "^[A-Za-z]{2}$", description: "ISO 3166 alpha-2, default US" })),
  hourlyRate: t.Optional(t.Number({ minimum: 0, maximum: 10_000 })),
  jobSuccessScore: t.Optional(t.Integer({ minimum: 0, maximum: 100 })),
  connects: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000 })),
  profiles: t.Optional(
    t.Array(t.Object({ name: t.String({ minLength: 1, maxLength: 100 }), hourlyRate: t.Optional(t.Number({ minimum: 0, maximum: 10_000 })) }), {
      maxItems: 20,
    }),
  ),
});
type AddFreelancerBody = typeof AddFreelancerBody.static;

const detail = (operationId: string, summary: string, description: string) => ({
  tags: ["Admin"],
  security: [{ adminToken: [] }],
  operationId,
  summary,
  description,
});

function toView({ freelancer, profiles }: FreelancerWithProfiles): FreelancerView {
  return {
    id: freelancer.id,
    accountId: freelancer.accountId,
    name: freelancer.name,
    avatarUrl: freelancer.avatarUrl,
    baseHourlyRate: freelancer.baseHourlyRate,
    country: freelancer.country,
    jobSuccessScore: freelancer.jobSuccessScore,
    connects: freelancer.connects,
    createdAt: freelancer.createdAtTs,
    profiles: profiles.map((p) => ({ type: p.type, name: p.name, hourlyRate: p.hourlyRate, currency: p.currency, profileId: p.profileId, skills: p.skills })),
  };
}

async function freelancerView(deps: SandboxDeps, freelancer: repo.FreelancerRow): Promise<FreelancerView> {
  return toView({ freelancer, profiles: await listProfilesSorted(deps, freelancer.id) });
}

async function listProfilesSorted(deps: SandboxDeps, freelancerId: string): Promise<repo.ProfileRow[]> {
  return (await repo.listProfiles(deps.db, [freelancerId])).sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "default" ? -1 : 1));
}

async function setConnects(deps: SandboxDeps, freelancerId: string, connects: number): Promise<FreelancerView> {
  const row = await repo.setConnects(deps.db, freelancerId, connects);
  if (!row) throw notFound(`Sandbox freelancer ${freelancerId} not found`);
  return freelancerView(deps, row);
}

async function setSession(deps: SandboxDeps, accountId: string, valid: boolean, restorable: boolean) {
  await requireAccount(deps, accountId);
  const row = await repo.upsertSession(deps.db, { accountId, valid, restorable, updatedAtTs: deps.clock.now() });
  return { accountId: row.accountId, valid: row.valid, restorable: row.restorable, updatedAt: row.updatedAtTs };
}

/**
 * Makes the client view, reply, interview, hire or pass on an applied proposal now. The planned timeline is
 * applied first, so forcing never moves a time already reached; a later stage implies the ones before it
 * (a hire implies an interview, a reply and a view). A hire and a pass exclude each other: forcing one on a
 * proposal that has the other is a 400.
 */
function forceEngagement(deps: SandboxDeps, applicationId: string, what: Forced): Promise<EngagementView> {
  return tx(deps.db, async (db) => {
    const found = await repo.findSubmission(db, applicationId);
    if (!found) throw notFound(`Sandbox submission ${applicationId} not found`);
    if (found.status !== "applied")
      throw new AppError("bad_request", `Submission ${applicationId} is ${found.status}; only applied proposals can be ${FORCED[what].label}`);
    const now = deps.clock.now();
    let row = await advanceEngagement(db, found, now);
    if (what === "lose" && row.hiredAtTs !== null) throw new AppError("bad_request", `Submission ${applicationId} was hired; it cannot be lost`);
    if (what === "hire" && row.lostAtTs !== null) throw new AppError("bad_request", `Submission ${applicationId} was lost; it cannot be hired`);
    const n = FORCED[what].stages;
    const forced = {
      viewedAtTs: n >= 1 ? (row.viewedAtTs ?? now) : row.viewedAtTs,
      repliedAtTs: n >= 2 ? (row.repliedAtTs ?? now) : row.repliedAtTs,
      interviewAtTs: n >= 3 ? (row.interviewAtTs ?? now) : row.interviewAtTs,
      hiredAtTs: n >= 4 ? (row.hiredAtTs ?? now) : row.hiredAtTs,
      lostAtTs: what === "lose" ? (row.lostAtTs ?? now) : row.lostAtTs,
    };
    if ((Object.keys(forced) as (keyof typeof forced)[]).some((k) => forced[k] !== row[k]))
      row = (await repo.recordEngagement(db, applicationId, forced)) ?? row;
    return engagementView(row);
  });
}

/** One submission with its stored plan, its timeline brought up to now first (as a sync would). */
async function submissionView(deps: SandboxDeps, applicationId: string): Promise<typeof SubmissionView.static> {
  const found = await repo.findSubmission(deps.db, applicationId);
  if (!found) throw notFound(`Sandbox submission ${applicationId} not found`);
  const row = found.status === "applied" ? await advanceEngagement(deps.db, found, deps.clock.now()) : found;
  return {
    applicationId: row.applicationId,
    accountId: row.accountId,
    freelancerId: row.freelancerId,
    jobCiphertext: row.jobCiphertext,
    status: row.status,
    message: row.message,
    connectsSpent: row.connectsSpent,
    submittedAt: row.submittedAtTs,
    engagement: engagementView(row),
    plan: row.plan ?? null,
  };
}

/** Links another freelancer to an agency account (roster.ts: the same rules as the agency's own dashboard and API). */
async function addFreelancer(deps: SandboxDeps, accountId: string, body: AddFreelancerBody): Promise<FreelancerView> {
  return toView(await roster.addFreelancer(deps, accountId, body));
}

export function sandboxAdminRoutes(deps: SandboxDeps) {
  return new Elysia({ prefix: "/admin/sandbox" })
    .post(
      "/jobs/:ciphertext/close",
      async ({ params }) => {
        await repo.closeJob(deps.db, params.ciphertext, deps.clock.now());
        return { ciphertext: params.ciphertext, closed: true as const };
      },
      {
        params: CiphertextParams,
        response: { 200: t.Object({ ciphertext: t.String(), closed: t.Literal(true) }), ...errorResponses(400, 401) },
        detail: detail(
          "closeSandboxJob",
          "Close a job on the sandbox marketplace (later submissions: not_available)",
          "Applications submitted to it afterwards end not_available, as on the real marketplace. Closing it again changes nothing.",
        ),
      },
    )
    .post("/freelancers/:freelancerId/connects", async ({ params, body }) => ({ freelancer: await setConnects(deps, params.freelancerId, body.connects) }), {
      params: FreelancerIdParams,
      body: SetConnectsBody,
      response: { 200: t.Object({ freelancer: FreelancerView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "setSandboxConnects",
        "Set a sandbox freelancer's Connects balance",
        "A submission that costs more Connects than the balance ends insufficient_connects.",
      ),
    })
    .post(
      "/accounts/:accountId/session",
      async ({ params, body }) => ({ session: await setSession(deps, params.accountId, body.valid, body.restorable ?? true) }),
      {
        params: AccountIdParams,
        body: SetSessionBody,
        response: { 200: t.Object({ session: SessionView }), ...errorResponses(400, 401, 404) },
        detail: detail(
          "setSandboxSession",
          "Invalidate or restore an account's sandbox session (invalid: submissions are logged_out)",
          "With restorable true (default) the driver's reconnect brings an invalid session back, as a refreshed login would; false keeps it logged out.",
        ),
      },
    )
    .get("/submissions/:applicationId", async ({ params }) => ({ submission: await submissionView(deps, params.applicationId) }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ submission: SubmissionView }), ...errorResponses(401, 404) },
      detail: detail(
        "getSandboxSubmission",
        "A proposal the sandbox received, with the outcome model's plan for it",
        "What the model read (fit, post age, bid ratio, proposals, boost, client, letter), each stage's probability and its planned delay or null (never). 404 for an unknown submission.",
      ),
    })
    .post("/submissions/:applicationId/view", async ({ params }) => ({ engagement: await forceEngagement(deps, params.applicationId, "view") }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ engagement: EngagementView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "viewSandboxSubmission",
        "Make the client view an applied proposal now",
        "The next engagement sync reports it as viewed. 404 for an unknown submission, 400 for one that is not applied.",
      ),
    })
    .post("/submissions/:applicationId/reply", async ({ params }) => ({ engagement: await forceEngagement(deps, params.applicationId, "reply") }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ engagement: EngagementView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "replySandboxSubmission",
        "Make the client reply to an applied proposal now (implies viewed)",
        "The next engagement sync reports it as viewed and replied. 404 for an unknown submission, 400 for one that is not applied.",
      ),
    })
    .post("/submissions/:applicationId/interview", async ({ params }) => ({ engagement: await forceEngagement(deps, params.applicationId, "interview") }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ engagement: EngagementView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "interviewSandboxSubmission",
        "Make the client invite an applied proposal to an interview now (implies viewed and replied)",
        "The next engagement sync reports the interview. 404 for an unknown submission, 400 for one that is not applied.",
      ),
    })
    .post("/submissions/:applicationId/hire", async ({ params }) => ({ engagement: await forceEngagement(deps, params.applicationId, "hire") }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ engagement: EngagementView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "hireSandboxSubmission",
        "Make the client hire an applied proposal now (implies viewed, replied and interviewed)",
        "The next engagement sync reports the hire. 404 for an unknown submission, 400 for one that is not applied or that the client already passed on.",
      ),
    })
    .post("/submissions/:applicationId/lose", async ({ params }) => ({ engagement: await forceEngagement(deps, params.applicationId, "lose") }), {
      params: ApplicationIdParams,
      response: { 200: t.Object({ engagement: EngagementView }), ...errorResponses(400, 401, 404) },
      detail: detail(
        "loseSandboxSubmission",
        "Make the client pass on an applied proposal now (closed the job or hired someone else)",
        "The next engagement sync reports it as lost. 404 for an unknown submission, 400 for one that is not applied or already hired.",
      ),
    })
    .post(
      "/accounts/:accountId/freelancers",
      async ({ params, body, set }) => {
        const freelancer = await addFreelancer(deps, params.accountId, body);
        set.status = 201;
        return { freelancer };
      },
      {
        params: AccountIdParams,
        body: AddFreelancerBody,
        response: { 201: t.Object({ freelancer: FreelancerView }), ...errorResponses(400, 401, 404) },
        detail: detail(
          "addSandboxFreelancer",
          "Link another sandbox freelancer to an agency account",
          "400 for a solo account (it applies as its own freelancer only) or a name the account already uses. Besides its default profile it gets one specialized profile per `profiles` entry.",
        ),
      },
    )
    .get(
      "/accounts/:accountId/freelancers",
      async ({ params }) => {
        await requireAccount(deps, params.accountId);
        return { freelancers: (await listFreelancers(deps, params.accountId)).map(toView) };
      },
      {
        params: AccountIdParams,
        response: { 200: t.Object({ freelancers: t.Array(FreelancerView) }), ...errorResponses(401, 404) },
        detail: detail(
          "listSandboxFreelancers",
          "An account's sandbox freelancers with Connects, country and Job Success Score",
          "Each with its profiles; profileId is what apply accepts.",
        ),
      },
    );
}
