import type { OutcomeCheck } from "../../db/enums";
import type { ProposalsList } from "../../marketplace/driver";
import type { EngagementTracker } from "../../sources/marketplace-api/tracker";
import type { TaskContext } from "../../worker/worker";
import { jobSummaries } from "../jobs/repo";
import { advanceFromReading } from "./funnel";
import * as repo from "./repo";
import { driverOfApplication, type ApplicationsDeps } from "./service";

export const SYNC_TASK = "apply.sync";
const BATCH = 200;

/** A "my proposals" read vouches only for outcomes that settled this long before it began: the list may lag a click. */
export const OUTCOME_CHECK_MARGIN_MS = 60_000;
/** Outcomes that settled longer than this before the read are not checked: the page may have archived them by then. */
export const OUTCOME_CHECK_MAX_AGE_MS = 7 * 24 * 60 * 60_000;
const CHECK_ACCOUNTS = 100;
const CHECK_BATCH = 500;

/**
 * The sync task (enqueued by the scheduler): asks each applied proposal's
 * own driver (the one it was submitted through) whether the client viewed, replied, interviewed, hired or passed,
 * oldest check first, until the proposal has an outcome. Stages never go back; lastCheckedAt moves on every check. With a
 * tracker (the marketplace's official API), real submissions are read there
 * first and the driver is asked only about what the API does not list.
 */
export async function syncEngagement(deps: ApplicationsDeps, _payload: unknown, _ctx: TaskContext, tracker: EngagementTracker | null = null): Promise<void> {
  const due = await repo.dueForSync(deps.db, BATCH);
  // Proposals that went to the real marketplace (not the sandbox) are read from the official API when it is connected.
  const real = due.filter((app) => app.driver !== "sandbox");
  let fromApi = new Map<string, { viewed: boolean; replied: boolean }>();
  if (tracker && real.length) {
    try {
      fromApi = await tracker.engagementByJob(real.map((app) => app.jobCiphertext));
    } catch (err) {
      deps.log.warn("engagement read from the marketplace API failed; asking the drivers", { tracker: tracker.name, err: err as Error });
    }
  }
  for (const app of due) {
    const api = app.driver !== "sandbox" ? fromApi.get(app.jobCiphertext) : undefined;
    if (api) {
      // The API has no view time: viewedAt becomes the first sync that saw it (recordEngagement keeps the first).
      await advanceFromReading(deps, app.id, { viewed: api.viewed, replied: api.replied, viewedAt: null });
      continue;
    }
    try {
      // The driver it was sent with: only it knows the proposal, whatever the account applies through now.
      const seen = await driverOfApplication(deps, app).engagement(app.id, app.accountId);
      // Written with the outcome events it calls for, in one transaction (funnel.ts holds the rule).
      if (seen) await advanceFromReading(deps, app.id, seen);
    } catch (err) {
      deps.log.warn("engagement sync failed", { queueId: app.id, err: err as Error });
    }
  }
  await checkReportedOutcomes(deps);
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * With the browser companion, an outcome (and so a charge) rests on what the browser reported. Each one is checked
 * once against the first "my proposals" list the driver's client reported after it settled: charged as applied but
 * not listed, or listed though reported not applied, is flagged on the application and in the log for a person to
 * look at. Nothing is refunded or charged here: the list can lag, miss a page, or list a proposal sent by hand.
 */
export async function checkReportedOutcomes(deps: ApplicationsDeps): Promise<void> {
  const drivers = Object.entries(deps.drivers).flatMap(([name, driver]) => (driver.proposalsList ? [name] : []));
  const now = deps.clock.now();
  for (const { accountId, driver } of await repo.accountsWithUncheckedOutcomes(deps.db, drivers, now - OUTCOME_CHECK_MAX_AGE_MS, CHECK_ACCOUNTS)) {
    try {
      const list = await deps.drivers[driver]!.proposalsList!(accountId);
      if (list) await checkAgainst(deps, accountId, driver, list);
    } catch (err) {
      deps.log.warn("outcome check against my proposals failed", { accountId, driver, err: err as Error });
    }
  }
}

async function checkAgainst(deps: ApplicationsDeps, accountId: string, driver: string, list: ProposalsList): Promise<void> {
  const apps = await repo.uncheckedOutcomes(
    deps.db,
    accountId,
    driver,
    list.readAt - OUTCOME_CHECK_MAX_AGE_MS,
    list.readAt - OUTCOME_CHECK_MARGIN_MS,
    CHECK_BATCH,
  );
  if (apps.length === 0) return;
  const site = originOf(list.url);
  const jobs = await jobSummaries(
    deps.db,
    apps.map((a) => a.jobCiphertext),
  );
  for (const app of apps) {
    // A list read on one site (the marketplace, or the sandbox website) says nothing of a job on another.
    const url = jobs.get(app.jobCiphertext)?.url;
    if (!url || originOf(url) !== site) continue;
    const listed = list.jobs.has(app.jobCiphertext);
    let check: OutcomeCheck = "confirmed";
    if (app.status === "applied" && !listed) check = "not_listed";
    // Listed: unless another application of the job is live (applied, or still being sent), this one reached it.
    else if (app.status !== "applied" && listed && !(await repo.liveApplication(deps.db, accountId, app.jobCiphertext))) check = "listed_not_applied";
    if (!(await repo.recordOutcomeCheck(deps.db, app.id, check, deps.clock.now())) || check === "confirmed") continue;
    deps.log.warn("reported outcome disagrees with my proposals; flagged for review, nothing refunded or charged", {
      applicationId: app.id,
      accountId,
      driver,
      status: app.status,
      check,
      proposalsReadAt: list.readAt,
    });
  }
}
