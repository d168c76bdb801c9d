/**
 * The sandbox marketplace's website, under /sandbox/site/…, with the real marketplace's URL forms
 * (/jobs/~02…, /nx/search/jobs/, /nx/find-work/…, /nx/proposals/job/~02…/apply/, /nx/proposals,
 * /ab/account-security/login), and /nx/profiles, the freelancers and profiles the account may propose with (the
 * companion's freelancers.list reads it; no public source documents a real page for that). It is what the browser companion is tested against, and a demo.
 *
 * Who the browser is comes from a signed cookie set by the login page (session.ts); whether that session still
 * works is the sandbox's own session row, so `POST /admin/sandbox/accounts/:id/session {valid:false}` sends the
 * browser to the login page, as an expired marketplace session would. Logging in again restores it. Any page
 * answers with the bot-check page when asked (`?challenge=1`). A proposal sent through the apply form is decided
 * and recorded by the same code as the sandbox driver's submissions (receiveSubmission).
 */
import { Elysia } from "elysia";
import type { RoutePolicy } from "../../../http/route-policy";
import { newId } from "../../../lib/ids";
import { isForeignSignIn, readCookie, signInFormToken } from "../../../http/form-guard";
import type { SubmitRequest } from "../../driver";
import { accountKind, budgetOfDocument, listFreelancers, receiveSubmission, type SandboxDeps } from "../driver";
import * as repo from "../repo";
import * as rules from "../rules";
import { findJob, searchJobs, type SiteJob, type SiteJobsConfig } from "./jobs";
import { SITE_COOKIE, siteSigner } from "./session";
import * as views from "./views";

export const SITE_PATH = "/sandbox/site";
/** The login form's double-submit token (http/form-guard.ts). */
const LOGIN_COOKIE = "sbx_login";

export interface SiteDeps extends SandboxDeps {
  config: SandboxDeps["config"] & { sandboxSeed: number; sandboxJobsPerMinute: number; secretKey: string | null };
}

const HIDDEN = { detail: { hide: true }, policy: { public: true, formBody: true } satisfies RoutePolicy };
// Inline handlers open the confirmation modal; nothing else runs, nothing is loaded from elsewhere.
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
const PROPOSALS_SHOWN = 100;

type Set = { status?: number | string; headers: Record<string, string | number> };

function send(set: Set, body: string, status = 200): string {
  set.status = status;
  Object.assign(set.headers, PAGE_HEADERS);
  return body;
}

function redirectTo(set: Set, location: string): string {
  set.status = 303;
  set.headers.location = location;
  set.headers["cache-control"] = "no-store";
  return "";
}

const field = (body: unknown, name: string): string => {
  const v = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === "string" ? v : "";
};

/** Only a path on this site may be a login's destination: never another origin. */
function safeRedirect(raw: string): string {
  return raw.startsWith(`${SITE_PATH}/`) && !raw.startsWith("//") && !raw.includes("\\") ? raw : `${SITE_PATH}/nx/find-work/most-recent`;
}

export function sandboxSiteRoutes(deps: SiteDeps) {
  const signer = siteSigner(deps.config.secretKey);
  const jobsConfig: SiteJobsConfig = { seed: deps.config.sandboxSeed, jobsPerMinute: deps.config.sandboxJobsPerMinute };

  /**
   * The account whose session this browser holds, or null when it holds none, the sandbox invalidated it, or the
   * key it signed in with has been revoked.
   */
  async function sessionOf(request: Request): Promise<string | null> {
    const session = signer.read(readCookie(request, SITE_COOKIE), deps.clock.now());
    if (session === null || !(await deps.sandboxPorts.accounts.isKeyActive(session.accountId, session.keyId))) return null;
    const row = await repo.findSession(deps.db, session.accountId);
    return row && !row.valid ? null : session.accountId;
  }

  const chromeOf = (request: Request, accountId: string | null): views.Chrome => ({
    base: `${new URL(request.url).origin}${SITE_PATH}`,
    signedInAs: accountId,
  });
  const loginRedirect = (request: Request, set: Set) => {
    const url = new URL(request.url);
    return redirectTo(set, `${SITE_PATH}/ab/account-security/login?redir=${encodeURIComponent(url.pathname + url.search)}`);
  };
  const challenged = (request: Request, set: Set): string | null => {
    const url = new URL(request.url);
    if (url.searchParams.get("challenge") !== "1") return null;
    url.searchParams.delete("challenge");
    return send(set, views.challengePage(chromeOf(request, null), url.pathname + url.search), 403);
  };

  /**
   * What every signed-in page checks first: a challenge asked for (?challenge=1), then the session. The
   * account, or the page to answer instead (the challenge, or the login redirect).
   */
  async function visitor(request: Request, set: Set): Promise<{ accountId: string } | { page: string }> {
    const challenge = challenged(request, set);
    if (challenge !== null) return { page: challenge };
    const accountId = await sessionOf(request);
    return accountId ? { accountId } : { page: loginRedirect(request, set) };
  }

  /** The apply form's view of a job for this account: Connects, profiles and questions. */
  async function applyView(accountId: string, job: SiteJob) {
    const freelancers = await listFreelancers(deps, accountId);
    const own = freelancers[0]!;
    const normalized = deps.sandboxPorts.normalizeJob(job.doc);
    const budget = budgetOfDocument(deps.sandboxPorts.normalizeJob, job.doc, normalized.ok ? normalized.job.jobType : null);
    return {
      doc: job.doc,
      connectsRequired: rules.connectsPrice(job.doc, budget),
      connectsAvailable: own.freelancer.connects,
      profiles: freelancers.flatMap(({ freelancer, profiles }) =>
        profiles.map((p) => ({ profileId: p.profileId, label: `${freelancer.name} — ${p.name}`, hourlyRate: p.hourlyRate, freelancerId: freelancer.id })),
      ),
      questions: normalized.ok ? normalized.job.screeningQuestions : [],
      freelancer: own.freelancer,
      normalized: normalized.ok ? normalized.job : null,
    };
  }

  /** Why this account cannot apply to the job at all (closed, too old, not eligible), or null. */
  async function refusal(job: SiteJob, view: Awaited<ReturnType<typeof applyView>>): Promise<{ title: string; message: string } | null> {
    const unavailable = rules.unavailableReason(
      { closed: await repo.isJobClosed(deps.db, job.ciphertext), publishTimeTs: view.normalized?.publishTimeTs ?? null, document: job.doc },
      deps.clock.now(),
    );
    if (unavailable) return { title: "This job is no longer available", message: unavailable };
    const ineligible = rules.ineligibleReason({ usOnly: view.normalized?.usOnly ?? null, document: job.doc }, view.freelancer);
    if (ineligible) return { title: "You are not eligible to apply", message: ineligible };
    return null;
  }

  const findSiteJob = (request: Request, ciphertext: string) => findJob(jobsConfig, ciphertext, deps.clock.now(), chromeOf(request, null).base);

  return new Elysia({ prefix: SITE_PATH })
    .get("/", ({ set }) => redirectTo(set, `${SITE_PATH}/nx/search/jobs/`), HIDDEN)
    .get(
      "/nx/search/jobs/",
      async ({ request, set, query }) => {
        const who = await visitor(request, set);
        if ("page" in who) return who.page;
        const { accountId } = who;
        const q = typeof query.q === "string" ? query.q.slice(0, 200) : "";
        const chrome = chromeOf(request, accountId);
        const found = searchJobs(jobsConfig, q, deps.clock.now(), chrome.base);
        return send(
          set,
          views.searchPage(
            chrome,
            q,
            found.map((j) => j.doc),
            q ? `Jobs matching "${q}"` : "Newest jobs",
          ),
        );
      },
      HIDDEN,
    )
    .get(
      "/nx/find-work/:feed",
      async ({ request, set }) => {
        const who = await visitor(request, set);
        if ("page" in who) return who.page;
        const { accountId } = who;
        const chrome = chromeOf(request, accountId);
        const found = searchJobs(jobsConfig, "", deps.clock.now(), chrome.base);
        return send(
          set,
          views.searchPage(
            chrome,
            "",
            found.map((j) => j.doc),
            "Most recent",
          ),
        );
      },
      HIDDEN,
    )
    .get(
      "/jobs/:ciphertext",
      async ({ request, set, params }) => {
        const challenge = challenged(request, set);
        if (challenge !== null) return challenge;
        const accountId = await sessionOf(request);
        const chrome = chromeOf(request, accountId);
        const job = findSiteJob(request, params.ciphertext);
        if (!job) return send(set, views.notFoundPage(chrome), 404);
        if (job.isPrivate) return send(set, views.privateJobPage(chrome), 403);
        const closed = await repo.isJobClosed(deps.db, job.ciphertext);
        return send(set, views.jobPage(chrome, job.doc, { authenticated: accountId !== null, closed }));
      },
      HIDDEN,
    )
    .get(
      "/ab/account-security/login",
      ({ request, set, query }) =>
        send(
          set,
          views.loginPage(
            chromeOf(request, null),
            safeRedirect(typeof query.redir === "string" ? query.redir : ""),
            signInFormToken(request, set, LOGIN_COOKIE, SITE_PATH),
          ),
        ),
      HIDDEN,
    )
    .post(
      "/ab/account-security/login",
      async ({ request, set, body }) => {
        const redir = safeRedirect(field(body, "redir"));
        const token = signInFormToken(request, set, LOGIN_COOKIE, SITE_PATH);
        // Login CSRF: a page on another site posting its own key would make the victim's companion submit
        // through the attacker's sandbox account.
        if (isForeignSignIn(request, field(body, "csrf"), LOGIN_COOKIE)) {
          return send(
            set,
            views.loginPage(chromeOf(request, null), redir, token, "This login form did not come from this site, or it has expired. Log in again below."),
            403,
          );
        }
        const caller = await deps.sandboxPorts.accounts.authenticate(field(body, "password").trim() || null);
        if (!caller) return send(set, views.loginPage(chromeOf(request, null), redir, token, "That password is not one of your jobpilot API keys."), 401);
        // Logging in again is how a user restores a session the sandbox invalidated.
        await repo.upsertSession(deps.db, { accountId: caller.accountId, valid: true, restorable: true, updatedAtTs: deps.clock.now() });
        const secure = request.url.startsWith("https:") ? "; Secure" : "";
        set.headers["set-cookie"] =
          `${SITE_COOKIE}=${signer.issue({ accountId: caller.accountId, keyId: caller.keyId }, deps.clock.now())}; HttpOnly; SameSite=Lax; Path=${SITE_PATH}${secure}`;
        return redirectTo(set, redir);
      },
      HIDDEN,
    )
    .get(
      "/nx/proposals/job/:ciphertext/apply/",
      async ({ request, set, params }) => {
        const who = await visitor(request, set);
        if ("page" in who) return who.page;
        const { accountId } = who;
        const chrome = chromeOf(request, accountId);
        const job = findSiteJob(request, params.ciphertext);
        if (!job || job.isPrivate)
          return send(set, views.applyRefusedPage(chrome, "This job is no longer available", "This job was not found or is private."), 404);
        const view = await applyView(accountId, job);
        const refused = await refusal(job, view);
        if (refused) return send(set, views.applyRefusedPage(chrome, refused.title, refused.message));
        return send(set, views.applyPage(chrome, view));
      },
      HIDDEN,
    )
    .post(
      "/nx/proposals/job/:ciphertext/apply/",
      async ({ request, set, params, body }) => {
        const accountId = await sessionOf(request);
        if (!accountId) return loginRedirect(request, set);
        const chrome = chromeOf(request, accountId);
        const job = findSiteJob(request, params.ciphertext);
        if (!job || job.isPrivate)
          return send(set, views.applyRefusedPage(chrome, "This job is no longer available", "This job was not found or is private."), 404);
        const view = await applyView(accountId, job);
        const values = Object.fromEntries(
          ["profileId", "hourlyRate", "fixedBid", "timeline", "coverLetter", "boostBids", ...view.questions.map((q) => `answer_${q.position}`)].map((n) => [
            n,
            field(body, n),
          ]),
        );
        const again = (error: string, status = 400) => send(set, views.applyPage(chrome, { ...view, error, values }), status);
        const profile = view.profiles.find((p) => p.profileId === values.profileId);
        if (!profile) return again("Choose a profile to propose with.");
        const hourly = view.normalized?.jobType === "HOURLY";
        const amount = Number((hourly ? values.hourlyRate : values.fixedBid)!.replace(/[$,\s]/g, ""));
        if (!(amount > 0) || amount > 1_000_000) return again(hourly ? "Enter your hourly rate." : "Enter the milestone amount.");
        const boost = values.boostBids!.trim() === "" ? 0 : Number(values.boostBids);
        if (!Number.isInteger(boost) || boost < 0 || boost > 1000) return again("The boost bid must be a whole number of Connects.");
        if (!values.coverLetter!.trim()) return again("Write a cover letter.");
        if (field(body, "confirmed") !== "yes") return again("Confirm that the proposal cannot be edited after it is sent.");

        const req: SubmitRequest = {
          // The marketplace's own proposal id: the sandbox records form submissions under it, as the driver does under ours.
          applicationId: `sbx_${newId()}`,
          accountId,
          freelancerId: profile.freelancerId,
          profileId: profile.profileId,
          job: {
            ciphertext: job.ciphertext,
            url: job.doc.url ?? `${chrome.base}/jobs/${job.ciphertext}`,
            title: job.doc.title,
            jobType: view.normalized?.jobType ?? null,
            document: job.doc,
            publishTimeTs: view.normalized?.publishTimeTs ?? null,
            usOnly: view.normalized?.usOnly ?? null,
          },
          coverLetter: values.coverLetter!,
          bid: { hourlyRate: hourly ? amount : null, fixedBid: hourly ? null : amount, timeline: values.timeline ?? "", boostBids: boost },
          answers: view.questions.map((q) => ({ position: q.position, answer: values[`answer_${q.position}`] ?? "" })),
        };
        const outcome = await receiveSubmission(deps, req, await accountKind(deps, accountId));
        switch (outcome.status) {
          case "applied":
            return redirectTo(set, `${SITE_PATH}/nx/proposals?submitted=${encodeURIComponent(job.ciphertext)}`);
          case "logged_out":
            return loginRedirect(request, set);
          case "not_available":
            return send(set, views.applyRefusedPage(chrome, "This job is no longer available", outcome.message), 410);
          case "not_eligible":
            return send(set, views.applyRefusedPage(chrome, "You are not eligible to apply", outcome.message), 403);
          case "not_enough_connects":
            return again(`More Connects needed. ${outcome.message}`, 402);
          default:
            return again(outcome.message, 409);
        }
      },
      HIDDEN,
    )
    .get(
      "/nx/profiles",
      async ({ request, set }) => {
        const who = await visitor(request, set);
        if ("page" in who) return who.page;
        const { accountId } = who;
        return send(set, views.profilesPage(chromeOf(request, accountId), await listFreelancers(deps, accountId)));
      },
      HIDDEN,
    )
    .get(
      "/nx/proposals",
      async ({ request, set, query }) => {
        const who = await visitor(request, set);
        if ("page" in who) return who.page;
        const { accountId } = who;
        const rows = await repo.listSubmissionsOfAccount(deps.db, accountId, PROPOSALS_SHOWN);
        const notice = typeof query.submitted === "string" && query.submitted ? "Your proposal was submitted." : undefined;
        return send(
          set,
          views.proposalsPage(
            chromeOf(request, accountId),
            rows.map((r) => ({
              applicationId: r.applicationId,
              jobCiphertext: r.jobCiphertext,
              status: r.status,
              message: r.message,
              submittedAtTs: r.submittedAtTs,
              viewed: r.viewedAtTs !== null,
              replied: r.repliedAtTs !== null,
            })),
            notice,
          ),
        );
      },
      HIDDEN,
    );
}
