/**
 * The companion client (issue 20): while paired, the service worker holds the long poll to
 * GET /api/v1/companion/tasks and answers each task on POST …/tasks/:id/outcome.
 *
 * Two lanes, each one task at a time: submissions (one apply tab, never two at once) and reads (lookup,
 * engagement, freelancers, reconnect). The poll keeps running while a submission waits for review, so the server
 * keeps seeing the companion as connected; a read never touches the apply tab.
 *
 * Never twice: before opening an apply form the ledger (chrome.storage.local) records the application id; a task
 * for an id already in the ledger answers from it, or reads "my proposals" first when the last attempt did not end.
 */
import { MARKETPLACE_ORIGIN, SANDBOX_PREFIX, sitePath } from "./adapter";
import { applyUrlOf, type FillResult, proposalFor, proposalsReadPlan, proposalsUrlOf, type ProposalEntry, sentJobs, withConnects } from "./apply";
import { type CompanionCommand, type LedgerEntry, type PageRead, PROPOSALS_READ_GAP_MS, PROPOSALS_READS_PER_DAY, type Settings } from "./messages";
import { readsPause, readsPaused } from "./watch";
import { type EngagementAnswer, type LookupResult, type PageOutcome, PROPOSALS_LIST_MAX, type SubmitOp, type Task } from "./tasks";

const POLL_WAIT_MS = 25_000;
/** How long a page may take to load and answer before the attempt counts as unrecognised. */
const PAGE_WAIT_MS = 30_000;
const STEP_MS = 250;

const load = () => chrome.storage.local.get(null) as Promise<Settings>;
const save = (patch: Partial<Settings>) => chrome.storage.local.set(patch);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sandbox website counts as the marketplace only on the paired server. */
const sandboxOrigins = (s: Settings) => (s.server ? [new URL(s.server).origin] : []);

async function updateLedger(applicationId: string, patch: Partial<LedgerEntry>): Promise<void> {
  const ledger = { ...((await load()).ledger ?? {}) };
  ledger[applicationId] = { ...ledger[applicationId]!, ...patch, touchedAt: Date.now() };
  await save({ ledger });
}

/** When this service worker started: an attempt of an earlier one may have clicked at any time before it. */
const workerStartedAt = Date.now();

/**
 * Only a read of "my proposals" that began after this can say an unfinished attempt sent nothing: after the attempt's
 * last step, and after the worker that ran it stopped (a read taken during its click may not list it yet).
 */
const settledAfter = (entry: LedgerEntry) => Math.max(entry.touchedAt ?? entry.at, workerStartedAt);

// ---------------------------------------------------------------------------
// Talking to the server

async function api(s: Settings, method: string, path: string, body?: unknown): Promise<Response | null> {
  try {
    return await fetch(`${s.server}${path}`, {
      method,
      headers: { "content-type": "application/json", "x-api-key": s.apiKey! },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
  } catch {
    return null;
  }
}

/** Posts a task's result; retried a few times when the server is unreachable (it keeps the first answer). */
async function answer(taskId: string, type: string, result: unknown): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const s = await load();
    const res = await api(s, "POST", `/api/v1/companion/tasks/${encodeURIComponent(taskId)}/outcome`, { type, result });
    if (res && res.status < 500) {
      // companionReadsPerHour: no more "my proposals" reads (nor watch reloads) until the time the server names.
      if (res.status === 429) await save(readsPause(await res.json().catch(() => null), res.headers.get("retry-after"), Date.now()));
      else if (!res.ok) await save({ lastStatus: `the server refused the answer to ${type}: ${res.status}` });
      return;
    }
    await sleep(2000);
  }
}

// ---------------------------------------------------------------------------
// Tabs

/** Asks the tab's content script; null while the page loads (no script yet) or when the tab is gone. */
async function ask<T>(tabId: number, command: CompanionCommand): Promise<T | null> {
  try {
    return ((await chrome.tabs.sendMessage(tabId, command)) as T) ?? null;
  } catch {
    return null;
  }
}

const tabExists = (tabId: number) =>
  chrome.tabs.get(tabId).then(
    () => true,
    () => false,
  );

/** The tab's page as read by its content script, waiting for a page other than `notPageId`; null on timeout or a closed tab. */
async function readTab(tabId: number, command: CompanionCommand, notPageId?: string, waitMs = PAGE_WAIT_MS): Promise<PageRead | null> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const read = await ask<PageRead>(tabId, command);
    if (read && read.pageId !== notPageId) return read;
    if (!(await tabExists(tabId))) return null;
    await sleep(STEP_MS);
  }
  return null;
}

async function closeTab(tabId: number | undefined): Promise<void> {
  if (tabId !== undefined) await chrome.tabs.remove(tabId).catch(() => {});
}

/** Opens `url` in a background tab, reads it, and closes it. */
async function readPage(url: string): Promise<PageRead | null> {
  const tab = await chrome.tabs.create({ url, active: false });
  try {
    return await readTab(tab.id!, { type: "companion.read" });
  } finally {
    await closeTab(tab.id);
  }
}

// ---------------------------------------------------------------------------
// "My proposals", throttled

const utcDay = (ts: number) => new Date(ts).toISOString().slice(0, 10);

/**
 * The proposals "my proposals" lists, read no more often than the minimum gap and the daily cap allow. A cached read
 * taken after `freshAfter` is used as it is; otherwise this waits out the gap and reads. "login" when the marketplace
 * asks to log in; null when the day's reads are spent or the page could not be read.
 */
async function myProposals(listUrl: string, freshAfter: number): Promise<ProposalEntry[] | "login" | null> {
  const read = await myProposalsRead(listUrl, freshAfter);
  return read === null || read === "login" ? read : read.entries;
}

/** myProposals with the read itself: when it began, as the server's check of reported outcomes needs it. */
async function myProposalsRead(listUrl: string, freshAfter: number): Promise<{ at: number; entries: ProposalEntry[] } | "login" | null> {
  const s = await load();
  const today = utcDay(Date.now());
  const readsToday = s.proposalReads?.day === today ? s.proposalReads.count : 0;
  const plan = proposalsReadPlan({ lastReadAt: s.proposalsRead?.at ?? null, readsToday }, Date.now(), freshAfter, {
    gapMs: s.testReadGapMs && s.testReadGapMs > 0 ? s.testReadGapMs : PROPOSALS_READ_GAP_MS,
    perDay: PROPOSALS_READS_PER_DAY,
  });
  if (plan === "cached") return s.proposalsRead!;
  if (plan === "spent") return null;
  if (plan.waitMs > 0) await sleep(plan.waitMs);
  await save({ proposalReads: { day: today, count: readsToday + 1 } });
  // Dated from when the read began: a proposal sent while the page loads may be missing from it.
  const startedAt = Date.now();
  const read = await readPage(listUrl);
  if (read?.kind === "login") return "login";
  if (!read?.proposals) return null;
  const taken = { at: startedAt, entries: read.proposals };
  await save({ proposalsRead: taken });
  return taken;
}

// ---------------------------------------------------------------------------
// proposal.submit

const RETRY_CHECK = "A previous attempt of this application did not finish";

/** The outcome of a submission: recorded in the ledger, the tab closed, posted. */
async function finish(taskId: string, op: Pick<SubmitOp, "applicationId">, page: PageOutcome, tabId?: number): Promise<void> {
  // The Connects the form showed before the click (kept in the ledger, so a restarted worker still reports them).
  const outcome = withConnects(page, (await load()).ledger?.[op.applicationId]);
  // A login page ends nothing for good: once the user logs in again, the retry (after reading "my proposals") may send it.
  const state = outcome.page === "submitted" ? "submitted" : outcome.page === "login_redirect" ? "abandoned" : "ended";
  await updateLedger(op.applicationId, { state, outcome: state === "ended" ? outcome : undefined, tabId: undefined });
  // A form left open after the attempt ended could still be sent by a stray click: the tab goes.
  await closeTab(tabId);
  await answer(taskId, "proposal.submit", outcome);
}

async function submit(taskId: string, op: SubmitOp): Promise<void> {
  const s = await load();
  const origins = sandboxOrigins(s);
  const entry = s.ledger?.[op.applicationId];
  // Never twice: the ledger answers for an application it saw end; an unfinished one is looked up first.
  if (entry?.state === "submitted") {
    await answer(
      taskId,
      "proposal.submit",
      withConnects({ page: "submitted", message: "Already submitted from this browser (the companion's ledger)" }, entry),
    );
    return;
  }
  if (entry?.state === "ended" && entry.outcome) {
    await answer(taskId, "proposal.submit", entry.outcome);
    return;
  }
  const applyUrl = applyUrlOf(op.job.url, origins);
  if (!applyUrl) {
    await answer(taskId, "proposal.submit", {
      page: "unrecognised",
      message: `The job's address is not a marketplace job page this companion knows: ${op.job.url}`,
      visibleText: "",
    });
    return;
  }
  if (entry) {
    await closeTab(entry.tabId);
    const listed = await myProposals(proposalsUrlOf(op.job.url, origins)!, settledAfter(entry));
    if (listed === "login") {
      await answer(taskId, "proposal.submit", { page: "login_redirect", message: `${RETRY_CHECK}; "my proposals" asks to log in` });
      return;
    }
    if (listed === null) {
      await answer(taskId, "proposal.submit", {
        page: "unrecognised",
        message: `${RETRY_CHECK} and "my proposals" could not be read to check it; not sent again`,
        visibleText: "",
      });
      return;
    }
    if (proposalFor(listed, op.job.ciphertext)) {
      await finish(taskId, op, { page: "submitted", message: "Found on the marketplace's proposals page after an interrupted attempt" });
      return;
    }
  }
  await updateLedger(op.applicationId, { taskId, ciphertext: op.job.ciphertext, jobUrl: op.job.url, state: "opening", at: Date.now() });
  await save({ siteBase: siteBaseOf(op.job.url, origins) ?? s.siteBase });

  const tab = await chrome.tabs.create({ url: applyUrl, active: false });
  const tabId = tab.id!;
  await updateLedger(op.applicationId, { tabId });
  const readCommand = (afterSubmit: boolean): CompanionCommand => ({ type: "companion.read", apply: { boostBids: op.bid.boostBids, afterSubmit } });
  const first = await readTab(tabId, readCommand(false));
  const apply = first?.apply;
  if (!first || !apply || apply.kind === "waiting") {
    await finish(taskId, op, { page: "unrecognised", message: "The apply page did not load within 30 s", visibleText: "", url: applyUrl }, tabId);
    return;
  }
  if (apply.kind === "outcome") return finish(taskId, op, apply.outcome, tabId);
  await updateLedger(op.applicationId, {
    requiredConnects: apply.facts.requiredConnects ?? undefined,
    availableConnects: apply.facts.availableConnects ?? undefined,
    boostBids: op.bid.boostBids,
  });

  const fill = await ask<FillResult & { visibleText: string }>(tabId, { type: "companion.fill", op });
  // Auto mode never sends blank screening answers; in review mode they are the user's to write.
  const problems = fill
    ? [
        ...fill.problems,
        ...(op.mode === "auto" && fill.unanswered.length > 0 ? [`The form asks questions the proposal does not answer (${fill.unanswered.join("; ")})`] : []),
      ]
    : [];
  if (!fill || problems.length > 0) {
    const message = fill ? problems.join("; ") : "The apply page stopped answering while it was filled";
    return finish(taskId, op, { page: "unrecognised", message: message.slice(0, 2000), visibleText: fill?.visibleText ?? "", url: first.href }, tabId);
  }
  await updateLedger(op.applicationId, { state: "filled" });

  if (op.mode === "auto") {
    await updateLedger(op.applicationId, { state: "submitting" });
    const clicked = await ask<{ clicked: boolean; message?: string }>(tabId, { type: "companion.submit" });
    if (!clicked?.clicked) {
      return finish(taskId, op, { page: "unrecognised", message: clicked?.message ?? "The submit button could not be clicked", visibleText: "" }, tabId);
    }
    // Tests only: a pause between the click and reading its result, the window a crash or restart falls into.
    const hold = (await load()).testOutcomeDelayMs ?? 0;
    if (hold > 0) await sleep(hold);
    const after = await readTab(tabId, readCommand(true), first.pageId);
    const outcome: PageOutcome =
      after?.apply?.kind === "outcome"
        ? after.apply.outcome
        : { page: "unrecognised", message: "The page did not change within 30 s of the submit click", visibleText: "", url: after?.href };
    return finish(taskId, op, outcome, tabId);
  }

  // Review mode: the user's click sends it. The tab comes to the front with the filled fields outlined. The ledger
  // holds all a restarted worker needs to watch on before anything tells the user (or the server) that the form waits:
  // Chrome may stop this worker at any moment after that, and the user's click may come at once.
  const reviewUntil = Date.now() + op.reviewTimeoutMs;
  await updateLedger(op.applicationId, { state: "review", reviewUntil, boostBids: op.bid.boostBids });
  await ask(tabId, { type: "companion.highlight", filled: fill.filled });
  await focusTab(tabId);
  const reviewUrl = `chrome-extension://${chrome.runtime.id}/focus.html?application=${encodeURIComponent(op.applicationId)}`;
  await api(await load(), "POST", `/api/v1/companion/tasks/${encodeURIComponent(taskId)}/review`, { reviewUrl });
  return watchReview(taskId, op.applicationId, tabId, op.bid.boostBids, reviewUntil, first.pageId);
}

/**
 * Waits for the user's click in the review tab and reports what the page then says; not_reviewed at the deadline or
 * when the user closes the tab. `pageId`: the filled form's page, so only a page loaded after it counts.
 */
async function watchReview(taskId: string, applicationId: string, tabId: number, boostBids: number, deadline: number, pageId?: string): Promise<void> {
  const op = { applicationId };
  const command: CompanionCommand = { type: "companion.read", apply: { boostBids, afterSubmit: true } };
  let seen = pageId;
  // At least one read, even past the deadline: a worker that restarts late must still see a click made in time.
  for (let once = true; once || Date.now() < deadline; once = false) {
    // Every page the tab loads is read: the form again (the page's error, for the user to fix) waits on.
    const read = await readTab(tabId, command, seen, once ? 5000 : Math.min(5000, deadline - Date.now()));
    if (!read) {
      if (!(await tabExists(tabId))) break; // the user closed the tab: nothing was sent
      continue;
    }
    seen = read.pageId;
    if (read.apply?.kind === "outcome" && read.apply.outcome.page !== "unrecognised") return finish(taskId, op, read.apply.outcome, tabId);
    if (read.apply?.kind === "outcome" && read.kind !== "apply") return finish(taskId, op, read.apply.outcome, tabId);
  }
  return finish(taskId, op, { page: "not_reviewed" }, tabId);
}

/**
 * A service worker that starts while a form waits for review (Chrome stopped the previous one) watches it again;
 * when its tab is gone, "my proposals" says whether the user sent it before that.
 */
export async function resumeReviews(): Promise<void> {
  const s = await load();
  for (const [applicationId, entry] of Object.entries(s.ledger ?? {})) {
    if (entry.state !== "review") continue;
    // An entry without a deadline (written by an older version) is watched once: what the tab shows now decides.
    const { taskId, tabId, reviewUntil = 0, boostBids = 0 } = entry;
    enqueue("submit", async () => {
      if (tabId !== undefined && (await tabExists(tabId))) return watchReview(taskId, applicationId, tabId, boostBids, reviewUntil);
      const listed = await myProposals(proposalsUrlOf(entry.jobUrl, sandboxOrigins(s))!, settledAfter(entry));
      const sent = Array.isArray(listed) && proposalFor(listed, entry.ciphertext) !== null;
      return finish(
        taskId,
        { applicationId },
        sent ? { page: "submitted", message: "Found on the marketplace's proposals page after the review" } : { page: "not_reviewed" },
      );
    });
  }
}

async function focusTab(tabId: number): Promise<void> {
  const tab = await chrome.tabs.update(tabId, { active: true }).catch(() => undefined);
  if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
}

/** Review mode: the boost the user's click sent (content.ts reads the box then), kept for the submission's Connects report. */
export async function noteBoost(tabId: number, boost: number): Promise<void> {
  if (!Number.isInteger(boost) || boost < 0 || boost > 1000) return;
  const found = Object.entries((await load()).ledger ?? {}).find(([, e]) => e.tabId === tabId && e.state === "review");
  if (found) await updateLedger(found[0], { boostBids: boost });
}

/** Brings the review tab of an application to the front (the dashboard's "waiting for your review" link opens focus.html). */
export async function focusApplication(applicationId: string): Promise<boolean> {
  const entry = (await load()).ledger?.[applicationId];
  if (entry?.state !== "review" || entry.tabId === undefined || !(await tabExists(entry.tabId))) return false;
  await focusTab(entry.tabId);
  return true;
}

/** The marketplace's base (origin, plus the sandbox prefix on the sandbox) of a marketplace URL. */
export function siteBaseOf(href: string, origins: readonly string[]): string | null {
  const path = sitePath(href, origins);
  if (path === null) return null;
  const url = new URL(href);
  return url.origin === MARKETPLACE_ORIGIN ? MARKETPLACE_ORIGIN : `${url.origin}${SANDBOX_PREFIX}`;
}

// ---------------------------------------------------------------------------
// Reads

async function lookup(applicationId: string): Promise<LookupResult> {
  const s = await load();
  const entry = s.ledger?.[applicationId];
  if (entry?.state === "submitted") return { lookup: "found", message: "Submitted from this browser (the companion's ledger)" };
  if (entry?.state === "ended" && entry.outcome) return { lookup: "ended", page: entry.outcome };
  // Written before any apply tab opens: no entry, nothing was sent from this browser.
  if (!entry) return { lookup: "none" };
  const listed = await myProposals(proposalsUrlOf(entry.jobUrl, sandboxOrigins(s))!, settledAfter(entry));
  if (listed === "login") return { lookup: "unknown", message: '"My proposals" asks to log in' };
  if (listed === null) return { lookup: "unknown", message: '"My proposals" could not be read (or the day\'s reads are spent)' };
  if (proposalFor(listed, entry.ciphertext)) {
    await updateLedger(applicationId, { state: "submitted" });
    return { lookup: "found", message: "Found on the marketplace's proposals page" };
  }
  // Not sent: its form must not be sent later by a click in a forgotten tab while the server sends it again.
  await closeTab(entry.tabId);
  await updateLedger(applicationId, { state: "abandoned", tabId: undefined });
  return { lookup: "none" };
}

async function engagement(applicationId: string, receivedAt: number): Promise<EngagementAnswer> {
  const s = await load();
  const entry = s.ledger?.[applicationId];
  // Not sent from this browser: nothing it could see.
  if (!entry) return { viewed: false, replied: false };
  // The server refuses these reads past its hourly cap (companionReadsPerHour): the page is not loaded until that frees.
  // The safety reads (lookup, a retried submission's check) still go: they are not counted, and a submission needs them.
  if (readsPaused(s, Date.now())) return { viewed: false, replied: false };
  // A read taken less than the minimum gap before the task came answers it: the sync asks about every proposal at once, one read serves them all.
  const gap = s.testReadGapMs && s.testReadGapMs > 0 ? s.testReadGapMs : PROPOSALS_READ_GAP_MS;
  const listUrl = proposalsUrlOf(entry.jobUrl, sandboxOrigins(s))!;
  const read = await myProposalsRead(listUrl, receivedAt - gap);
  if (read === null || read === "login") return { viewed: false, replied: false };
  const found = proposalFor(read.entries, entry.ciphertext);
  const engaged = { viewed: found?.viewed ?? false, replied: found?.replied ?? false };
  // The whole list goes with the answer: the server checks the outcomes it charged on this browser's word against it.
  // A list too long to send goes without: a cut one would make proposals it left out look missing.
  const jobs = sentJobs(read.entries);
  return jobs.length > PROPOSALS_LIST_MAX ? engaged : { ...engaged, proposals: { readAt: read.at, url: listUrl, jobs } };
}

async function read(task: Task, receivedAt: number): Promise<void> {
  const op = task.operation;
  const s = await load();
  const base = s.siteBase ?? MARKETPLACE_ORIGIN;
  switch (op.type) {
    case "proposal.lookup":
      return answer(task.taskId, op.type, await lookup(op.applicationId));
    case "proposal.engagement":
      return answer(task.taskId, op.type, await engagement(op.applicationId, receivedAt));
    case "freelancers.list": {
      const page = await readPage(`${base}/nx/profiles`);
      // No list to give (a login page, or a site without the page): no answer, so the server keeps what it has.
      if (page?.freelancers && page.freelancers.length > 0) await answer(task.taskId, op.type, { freelancers: page.freelancers });
      return;
    }
    case "session.reconnect": {
      // Whether this browser's marketplace session works: "my proposals" opens without a login or bot-check page.
      const page = await readPage(`${base}/nx/proposals`);
      if (page?.proposals) await save({ proposalsRead: { at: Date.now(), entries: page.proposals } });
      return answer(task.taskId, op.type, { ok: page?.kind === "proposals" });
    }
  }
}

// ---------------------------------------------------------------------------
// The poll

let polling = false;
/**
 * Set when ensurePolling is called while the loop runs: the pairing may have changed since the loop last read it
 * (a key stored while the loop was reading storage, or a new key while a poll with the old one was refused), so
 * the loop reads it again before it stops. Without this, pairing right after the service worker started could
 * wait for the next alarm (30 s) to connect.
 */
let pollAgain = false;
const lanes = { submit: Promise.resolve(), read: Promise.resolve() };

function enqueue(lane: keyof typeof lanes, run: () => Promise<void>): void {
  lanes[lane] = lanes[lane].then(run).catch(async (err) => {
    await save({ lastStatus: `a companion task failed: ${String(err)}` });
  });
}

/** Holds the long poll while paired; one loop per service worker. Safe to call often (the alarm does). */
export async function ensurePolling(): Promise<void> {
  if (polling) {
    pollAgain = true;
    return;
  }
  polling = true;
  try {
    for (;;) {
      pollAgain = false;
      const s = await load();
      if (!s.server || !s.apiKey) {
        if (pollAgain) continue;
        return;
      }
      // Until a poll has come back the server is not known to be reachable: a short one first, so the options page
      // says "connected" (or why not) at once, not after a long poll's 25 s.
      const waitMs = s.connection === "connected" ? POLL_WAIT_MS : 0;
      const res = await api(s, "GET", `/api/v1/companion/tasks?waitMs=${waitMs}`);
      if (!res) {
        // A network error, or a server that does not answer CORS for the extension (an older jobpilot).
        await save({ connection: "unreachable", lastStatus: `could not reach ${s.server}` });
        await sleep(5000);
        continue;
      }
      if (res.status === 401) {
        if (pollAgain || (await load()).apiKey !== s.apiKey) continue;
        // Pairing again (here or in another browser) revokes the key this browser holds: say so, not just "refused".
        const why = await api(s, "GET", "/api/v1/companion/pair/state");
        const state = why?.ok ? ((await why.json().catch(() => null)) as { state?: string } | null)?.state : undefined;
        if (state === "replaced") await save({ connection: "replaced", lastStatus: "the account paired another browser companion, which replaced this one" });
        else await save({ connection: "refused", lastStatus: "the server refused the key: pair again" });
        return;
      }
      if (!res.ok) {
        await sleep(5000);
        continue;
      }
      // Written only when it changes: a poll every 25 s must not churn storage (and the options page) for nothing.
      if (s.connection !== "connected") await save({ connection: "connected", lastStatus: `connected to ${s.server}` });
      const { task } = (await res.json()) as { task: Task | null };
      if (!task) continue;
      const op = task.operation;
      if (op.type === "proposal.submit") enqueue("submit", () => submit(task.taskId, op));
      else {
        const receivedAt = Date.now();
        enqueue("read", () => read(task, receivedAt));
      }
    }
  } finally {
    polling = false;
  }
}
