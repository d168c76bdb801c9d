import type { TObject } from "@sinclair/typebox";
import { t } from "elysia";
import { ApplicationParams, ApplyBody, AppliedJobsQuery, OutcomeBody, StatusQuery } from "../applications/model";
import { ClientListQuery, CompanyParams, PutClientListBody } from "../clients/model";
import { CreateFeedBody, FeedJobsQuery, FeedParams, PatchFeedBody } from "../feeds/model";
import { CipherQuery } from "../jobs/model";
import { GenerateProposalBody, JobRefParams, PortfolioImportBody, PortfolioSchema, ProfileIdParams } from "../proposals/model";

/**
 * One MCP tool is one API operation with a description written for an assistant. Its arguments are the
 * operation's path parameters, query and body, described by the very schemas the API validates with (the
 * modules' model.ts), so a tool's schema cannot drift from the route behind it and its validation errors
 * are the API's own messages.
 */
export interface ApiTool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  method: ApiMethod;
  /** The route, with `:name` for the path parameters taken from the arguments. */
  path: string;
  /**
   * For a tool whose arguments pick one of two routes of the same permission (set_portfolio: a JSON document or
   * Markdown): the request to make, or why the arguments fit neither. Without it, `method` and `path` are the request.
   */
  request?: (args: Record<string, unknown>) => ToolRequest | { problem: string };
  /** Reads only: the assistant may call it without asking the user. */
  isReadOnly: boolean;
  /**
   * What the caller's role must allow (modules/members/permissions.ts), the same as the route behind the tool: asked
   * before the call, so the assistant gets the permission's own message rather than a request that half ran.
   */
  permission: string;
  /** A line added after a successful result: what the assistant should do next. */
  next?: (body: Record<string, unknown>) => string;
}

export type ApiMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** One API request of a tool: the route, and the arguments its path, query or body are filled from. */
export interface ToolRequest {
  method: ApiMethod;
  path: string;
  args: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** set_portfolio's arguments as PUT …/portfolio (the JSON document) or POST …/portfolio/import (Markdown). */
function portfolioRequest(args: Record<string, unknown>): ToolRequest | { problem: string } {
  const { portfolio, markdown, ...rest } = args;
  if ((portfolio === undefined) === (markdown === undefined)) {
    return { problem: "Give either portfolio (the JSON document) or markdown (the import format get_portfolio returns), not both" };
  }
  if (markdown !== undefined)
    return { method: "POST", path: "/api/v1/profiles/:profileId/portfolio/import", args: { ...rest, format: "markdown", text: markdown } };
  if (!isObject(portfolio)) return { problem: "portfolio must be an object: { caseStudies, pastClients, skillYears }" };
  return { method: "PUT", path: "/api/v1/profiles/:profileId/portfolio", args: { ...rest, ...portfolio } };
}

/** block_client's and favour_client's arguments as PUT /api/v1/client-lists/{companyId}, the list fixed by the tool. */
const putOnList =
  (list: "blocked" | "favoured") =>
  (args: Record<string, unknown>): ToolRequest => ({ method: "PUT", path: "/api/v1/client-lists/:companyId", args: { ...args, list } });

/** What the client-list tools take: the company id, and an optional reason. */
const ClientListArgs = t.Object({ companyId: CompanyParams.properties.companyId, reason: PutClientListBody.properties.reason });

const COMPANY_ID_FROM =
  "companyId is the client's company id: a job's top-level companyId in a feed alert, or jobDetailsResponse.data.jobPubDetails.buyer.company.companyId from get_job.";

/** Polling advice of the spec (Limits, rule 7). */
const POLLING = "every 5 seconds for the first minute, then every 15 seconds for up to 5 minutes";

export const TOOLS: ApiTool[] = [
  {
    name: "list_feeds",
    title: "List job feeds",
    description:
      "List the user's job feeds. A feed is a saved job search (keyword, budget, client and country filters) plus a profilePrompt that every matching job is scored against (0-10); jobs scoring at least minScore enter the feed. Returns each feed's id, title and settings. Use a feed's id with feed_jobs, update_feed and draft_proposal (feedId), or read the resource jobpilot://feeds/{feedId}/matches.",
    input: t.Object({}),
    method: "GET",
    path: "/api/v1/feeds",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "create_feed",
    title: "Create a job feed",
    description:
      "Create a job feed for the user. title and minScore (0-10) are required. Describe the ideal job in profilePrompt in plain language (skills, kind of client, budget): each matching job is scored against it and only jobs scoring at least minScore enter the feed. Without a profilePrompt no scoring runs and every match scores 5, so minScore must then be 5 or lower. includes/excludes are keywords (whole words or phrases; a trailing * makes a prefix). A new feed only receives jobs first seen after it was created, so it starts empty; check feed_jobs later.",
    input: CreateFeedBody,
    method: "POST",
    path: "/api/v1/feeds",
    isReadOnly: false,
    permission: "feeds",
  },
  {
    name: "update_feed",
    title: "Change a job feed",
    description:
      "Change some settings of one of the user's feeds (feedId from list_feeds); only the fields given change, the others stay as they are. To switch a filter off send null for minHourlyRate, minFixedPrice, clientMinSpent, clientMinRating or clientMinReviews, [] for jobTypes, 'all' for usOnlyMode, false for paymentVerifiedOnly. Set notificationsMuted to pause notifications without losing matches.",
    input: t.Object({ feedId: FeedParams.properties.feedId, ...PatchFeedBody.properties }),
    method: "PATCH",
    path: "/api/v1/feeds/:feedId",
    isReadOnly: false,
    permission: "feeds",
  },
  {
    name: "feed_jobs",
    title: "Jobs matched into a feed",
    description:
      "The jobs matched into one of the user's feeds (feedId from list_feeds), newest first. Each has matchingScore (0-10), scoreReason (why it got that score), read/starred flags and the job's basics: ciphertext, title, url, hourly range or fixed budget, client country, publish time. unread: true lists only jobs the user has not marked read; minScore raises the bar. Pass a job's ciphertext to get_job for the full posting, then draft_proposal and apply.",
    input: t.Object({ feedId: FeedParams.properties.feedId, ...FeedJobsQuery.properties }),
    method: "GET",
    path: "/api/v1/feeds/:feedId/jobs",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "get_job",
    title: "Read a job posting",
    description:
      "The archived job posting by its ciphertext (the ~... id from feed_jobs): title, full description, skills, budget, screening questions (their position is what apply's questionAnswers use), the client's score 0-100 with the facts and red flags behind it (clientScore), the competition so far (proposalActivity: proposals, interviewing, hired) and this user's feed matches. The client's company id, for client_jobs, is in jobDetailsResponse.data.jobPubDetails.buyer.company.companyId.",
    input: CipherQuery,
    method: "GET",
    path: "/api/jobs/by-ciphertext",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "client_jobs",
    title: "A client's jobs and history",
    description:
      "What is known about a client (buyer) by company id: profile, open jobs, past work history with the freelancers' feedback and amounts, and aggregate stats. Use it to judge a client before applying. The company id is in a job posting from get_job.",
    input: CompanyParams,
    method: "GET",
    path: "/api/clients/:companyId/jobs",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "block_client",
    title: "Block a client",
    description: `Put a client on the account's blocked list when the user asks (e.g. "never show me this client again"), with the user's reason if they gave one (at most 500 characters). From then on that client's new jobs never enter any of the account's feeds; each feed's filtered-out view records them with the reason. ${COMPANY_ID_FROM} Moves a favoured client to blocked. Undo with unlist_client.`,
    input: ClientListArgs,
    method: "PUT",
    path: "/api/v1/client-lists/:companyId",
    request: putOnList("blocked"),
    isReadOnly: false,
    permission: "clients",
  },
  {
    name: "favour_client",
    title: "Favour a client",
    description: `Put a client on the account's favoured list when the user asks, with their reason if they gave one (at most 500 characters). A favoured client's jobs are marked in the feeds and can be alerted whatever their score. ${COMPANY_ID_FROM} Moves a blocked client to favoured. Undo with unlist_client.`,
    input: ClientListArgs,
    method: "PUT",
    path: "/api/v1/client-lists/:companyId",
    request: putOnList("favoured"),
    isReadOnly: false,
    permission: "clients",
  },
  {
    name: "unlist_client",
    title: "Take a client off the lists",
    description:
      "Take a client off the account's blocked or favoured list (companyId as client_lists shows it); its new jobs are then treated like any other client's. Fails with 404 when the client is on neither list.",
    input: CompanyParams,
    method: "DELETE",
    path: "/api/v1/client-lists/:companyId",
    isReadOnly: false,
    permission: "clients",
  },
  {
    name: "client_lists",
    title: "Blocked and favoured clients",
    description:
      "The account's blocked and favoured clients, newest first: companyId, list (blocked or favoured), the reason given, when and by which member (addedBy, a member id) each was added. list: 'blocked' or 'favoured' keeps one list. Use it before block_client to see whether the user already judged a client.",
    input: ClientListQuery,
    method: "GET",
    path: "/api/v1/client-lists",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "draft_proposal",
    title: "Draft a cover letter",
    description:
      'Write a cover letter for a job with AI, and answers to screening questions when questions (position + question, from get_job) are given. Costs no credits and submits nothing. Give jobId (the job\'s ciphertext) or jobTitle + jobDescription; feedId uses that feed\'s proposalGenerationPrompt. reasoningEffort low takes about 3-5 s, medium 8-12 s, high 20-30 s. To rewrite a draft the user wants changed, call it again with instruction in their words ("shorter", "mention the Shopify app", "less formal"); every letter for an archived job is kept as a version (proposal_versions). claims lists what the letter says that nothing in the freelancer\'s profile or portfolio backs: tell the user. Show the draft to the user and let them edit it before calling apply.',
    input: GenerateProposalBody,
    method: "POST",
    path: "/api/auto-apply-v2/generate-proposal",
    isReadOnly: true,
    permission: "draft",
  },
  {
    name: "apply",
    title: "Apply to a job",
    description:
      "Submit a proposal (cover letter plus optional bid) to a job on the marketplace for the user. Costs 1 auto-apply credit, charged only when the submission succeeds; a failed application costs nothing. Fails with 402 when the account has no free credit and 409 when the job already has an application processing or applied. Only call it after the user approved the cover letter and bid. jobId is the job's ciphertext; profileId (from freelancers) picks the profile, the primary one when omitted; questionAnswers answer screening questions by position. It answers at once with a queueId while the submission runs in the background: then call application_status with that queueId " +
      `${POLLING}, until applicationStatus is no longer "processing".`,
    input: ApplyBody,
    method: "POST",
    path: "/api/auto-apply-v2/apply",
    isReadOnly: false,
    permission: "send",
    next: (body) =>
      `The application is queued, not yet submitted. Call application_status with queueId "${String(body.queueId)}" ${POLLING}, until applicationStatus is no longer "processing"; the credit is charged only if it ends "applied".`,
  },
  {
    name: "application_status",
    title: "Status of an application",
    description:
      "Where an application stands: give queueId (from apply) or jobId (the job's ciphertext: its latest application), not both. applicationStatus is \"processing\" while it is being submitted (poll again later), then one of: applied (done), failed (see errorMessage), not_available (job closed), not_eligible (the profile does not meet the job's requirements), not_enough_connects, logged_out (temporary; the service reconnects by itself). proposalStatus tells whether the client viewed or replied.",
    input: StatusQuery,
    method: "GET",
    path: "/api/auto-apply-v2/status",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "record_outcome",
    title: "Record what happened to a proposal",
    description:
      "Record what happened to a sent proposal (queueId from apply or applied_jobs) when the user tells you: replied (the client answered), interview, hired (give valueUsd, the contract value: hourly rate × expected hours or the fixed price), lost (the client declined, hired someone else or closed the job) or withdrawn. at is when it happened in Unix ms (now when omitted); note keeps the user's words. Stages only move forward: it fails with 409 when the outcome would move the proposal backwards (lost and withdrawn are final; hired can still become lost) or when the application was never sent. Returns the proposal's funnel: stage times, outcome, Connects spent and their cost.",
    input: t.Object({ queueId: ApplicationParams.properties.queueId, ...OutcomeBody.properties }),
    method: "POST",
    path: "/api/v1/applications/:queueId/outcome",
    isReadOnly: false,
    permission: "outcomes",
  },
  {
    name: "applied_jobs",
    title: "Jobs applied to",
    description:
      "The jobs the user applied to or attempted, newest first: title, url, applicationStatus, errorMessage, cover letter, matching score and times. Filter by status (e.g. applied, failed, processing); page with limit (1-200, default 50) and offset.",
    input: AppliedJobsQuery,
    method: "GET",
    path: "/api/auto-apply-v2/applied-jobs",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "freelancers",
    title: "Freelancer profiles",
    description:
      "The freelancers linked to the user's account and their profiles (general and specialized), with hourly rates. A profile's profileId is what apply takes to choose which profile applies; agencies can apply with any of their freelancers.",
    input: t.Object({}),
    method: "GET",
    path: "/api/auto-apply-v2/freelancers",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "proposal_versions",
    title: "Every letter written for a job",
    description:
      "The cover letters written for a job (ciphertext, as draft_proposal's jobId takes it), newest first: each version's number, letter, the instruction it was rewritten with, which writer wrote it, the claims the claim check flagged, and sentApplicationId on the version an application sent. Use it to show the user earlier drafts or pick one back.",
    input: JobRefParams,
    method: "GET",
    path: "/api/v1/jobs/:ciphertext/proposal-versions",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "get_portfolio",
    title: "A freelancer profile's portfolio",
    description:
      "The portfolio of one of the user's freelancer profiles (profileId from freelancers): case studies (title, what was built, client, skills, outcome, link), past clients and years per skill, as JSON and as Markdown in the import format. Cover letters cite the one or two case studies closest to each job, and the claim check flags any claim the portfolio and profile do not back. A profile of another account is not found.",
    input: ProfileIdParams,
    method: "GET",
    path: "/api/v1/profiles/:profileId/portfolio",
    isReadOnly: true,
    permission: "read",
  },
  {
    name: "set_portfolio",
    title: "Replace a freelancer profile's portfolio",
    description:
      "Replace the whole portfolio of one of the user's freelancer profiles (profileId from freelancers) with either portfolio (JSON: caseStudies, pastClients, skillYears; fields left out are emptied) or markdown (the import format get_portfolio returns: '## Title' per case study with '- Built:', '- Client:', '- Skills:', '- Outcome:', '- Link:' lines, a '# Past clients' list and a '# Years of experience' list of '- Skill: years'). To change one case study, get_portfolio first and send it back edited. Only put in what the user says is true: letters may claim it. Returns the portfolio as saved.",
    input: t.Object({
      profileId: ProfileIdParams.properties.profileId,
      portfolio: t.Optional(PortfolioSchema),
      markdown: t.Optional(PortfolioImportBody.properties.text),
    }),
    method: "PUT",
    path: "/api/v1/profiles/:profileId/portfolio",
    request: portfolioRequest,
    isReadOnly: false,
    permission: "freelancers",
  },
];

/** The resource a feed's latest matches are read from. */
export const MATCHES_URI_TEMPLATE = "jobpilot://feeds/{feedId}/matches";
export const matchesUri = (feedId: string) => `jobpilot://feeds/${encodeURIComponent(feedId)}/matches`;
const MATCHES_URI = /^jobpilot:\/\/feeds\/([^/]+)\/matches$/;

/** The feed id of a matches resource URI, or null when the URI is not one. */
export function feedIdOfMatchesUri(uri: string): string | null {
  const m = MATCHES_URI.exec(uri);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}
