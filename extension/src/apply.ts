/**
 * Part 2's page logic, pure over the adapter's DOM interface so unit tests run it on fixture pages: what an apply
 * page says (a form to fill, or an outcome), filling the form from a proposal.submit task, what the page says after
 * a submit, and reading "my proposals" and the profiles page. Every selector and text pattern comes from the
 * adapter's table; the service worker (companion.ts) drives the tab and the content script runs these on the page.
 */
import {
  ATTRIBUTES,
  all,
  classifyPage,
  type DomDocument,
  type DomElement,
  first,
  PATHS,
  readApplyForm,
  type ApplyFormFacts,
  sitePath,
  TEXT_PATTERNS,
  textOf,
} from "./adapter";
import type { FreelancerEntry, PageOutcome, SubmitOp } from "./tasks";

/** The element parts filling needs; `notify` fires the input/change events a page's framework listens to. */
interface Field extends DomElement {
  value: string;
  tagName: string;
}
interface Choice extends DomElement {
  value: string;
  selected: boolean;
}
export type Notify = (el: DomElement) => void;

const VISIBLE_TEXT_MAX = 65_536;
const MESSAGE_MAX = 2000;
const cut = (s: string, n = MESSAGE_MAX) => s.slice(0, n);

/** The apply form's address for a job URL (the marketplace's or the sandbox's), or null when the URL is not a job page. */
export function applyUrlOf(jobUrl: string, sandboxOrigins: readonly string[]): string | null {
  const path = sitePath(jobUrl, sandboxOrigins);
  const cipher = path === null ? undefined : PATHS.job.exec(path)?.[1];
  if (!cipher || path === null) return null;
  const url = new URL(jobUrl);
  const prefix = url.pathname.slice(0, url.pathname.length - path.length);
  return `${url.origin}${prefix}/nx/proposals/job/${cipher}/apply/`;
}

/** The "my proposals" page next to an apply or job URL. */
export function proposalsUrlOf(jobUrl: string, sandboxOrigins: readonly string[]): string | null {
  const apply = applyUrlOf(jobUrl, sandboxOrigins);
  return apply ? apply.replace(/\/nx\/proposals\/job\/[^/]+\/apply\/$/, "/nx/proposals") : null;
}

export type ApplyPage = { kind: "form"; facts: ApplyFormFacts } | { kind: "outcome"; outcome: PageOutcome };

/** The words of a page that refuses the proposal (alert, error box and headings), for classification and the message. */
function refusalText(doc: DomDocument): { alert: string; heading: string } {
  return { alert: textOf(first(doc, "applyRefusal")) || textOf(first(doc, "applyError")), heading: textOf(first(doc, "pageHeading")) };
}

/** Connects numbers from the page: its Required/Available lines, or the sandbox's "Needs N Connects; M available". */
function connectsOf(facts: ApplyFormFacts, boost: number, text: string): { required: number; available: number } | null {
  const m = TEXT_PATTERNS.connectsNumbers.exec(text);
  if (m) return { required: Number(m[1]), available: Number(m[2]) };
  if (facts.requiredConnects !== null && facts.availableConnects !== null)
    return { required: facts.requiredConnects + boost, available: facts.availableConnects };
  return null;
}

/**
 * What a page the tab shows means for a submission, before or after the click. `expectForm`: the form is what should
 * be there (before filling); after a submit, leaving /apply/ is success (research §3.3 step 9).
 */
export function readApplyPage(
  doc: DomDocument,
  href: string,
  sandboxOrigins: readonly string[],
  visibleText: string,
  opts: { boostBids: number; afterSubmit: boolean },
): ApplyPage | { kind: "waiting" } {
  const path = sitePath(href, sandboxOrigins);
  const unrecognised = (message: string): ApplyPage => ({
    kind: "outcome",
    outcome: { page: "unrecognised", message: cut(message), visibleText: cut(visibleText, VISIBLE_TEXT_MAX), url: href },
  });
  if (path === null) return unrecognised(`The tab left the marketplace (${href})`);
  const kind = classifyPage(doc, path);
  if (kind === "login") return { kind: "outcome", outcome: { page: "login_redirect", message: "The marketplace showed its login page", url: href } };
  if (kind === "challenge") return unrecognised("The marketplace showed a bot check: solve it in this browser, then retry");
  if (kind !== "apply") {
    // Left the apply form after the click: the marketplace took the proposal.
    if (opts.afterSubmit) {
      return { kind: "outcome", outcome: { page: "submitted", message: textOf(first(doc, "applySubmitted")) || undefined, url: href } };
    }
    return unrecognised(`The apply address led to another page (${path})`);
  }
  const facts = readApplyForm(doc, href, sandboxOrigins);
  const { alert, heading } = refusalText(doc);
  const said = `${heading} ${alert}`;
  const connects = connectsOf(facts, opts.boostBids, alert);
  if (facts.needsMoreConnects || TEXT_PATTERNS.moreConnects.test(alert) || (connects && connects.required > connects.available)) {
    if (connects) return { kind: "outcome", outcome: { page: "not_enough_connects", ...connects, message: alert || undefined, url: href } };
    return unrecognised(`The page says more Connects are needed but shows no numbers: ${alert || "(no text)"}`);
  }
  if (!facts.hasCoverLetter) {
    if (TEXT_PATTERNS.notEligible.test(said)) return { kind: "outcome", outcome: { page: "not_eligible", message: cut(alert || heading), url: href } };
    if (TEXT_PATTERNS.unavailable.test(said)) return { kind: "outcome", outcome: { page: "job_unavailable", message: cut(alert || heading), url: href } };
    return unrecognised(alert || heading || "The apply form was not found on the page");
  }
  // The form again after a submit: the page's error says why (the user may fix it in review mode).
  if (opts.afterSubmit) return facts.error ? unrecognised(facts.error) : { kind: "waiting" };
  return { kind: "form", facts };
}

/** The most Connects the server takes in one report (its schema refuses more): a count read beyond it is left out. */
const CONNECTS_MAX = 1000;
const isCount = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n >= 0 && n <= CONNECTS_MAX;

/** The most Connects a balance report may say (the server's schema refuses more). */
const BALANCE_MAX = 100_000;

/**
 * A submitted outcome with what it cost: the form's "Required Connects to submit", read before filling, and the boost
 * the companion typed in. Left out when the form showed no count (or one out of range): the funnel then says unknown
 * rather than a guess. In review mode the boost is what the box held at the user's click (content.ts reports it).
 * With the form's "Available Connects" too, what is left after the proposal (the server keeps it as the balance).
 */
export function withConnects(
  outcome: PageOutcome,
  form: { requiredConnects?: number; availableConnects?: number; boostBids?: number } | undefined,
): PageOutcome {
  if (outcome.page !== "submitted" || !isCount(form?.requiredConnects)) return outcome;
  const boost = form.boostBids ?? 0;
  if (!isCount(boost)) return outcome;
  const costed = { ...outcome, connectsRequired: form.requiredConnects, boostConnects: boost };
  const left = form.availableConnects === undefined ? undefined : form.availableConnects - form.requiredConnects - boost;
  return left !== undefined && Number.isInteger(left) && left >= 0 && left <= BALANCE_MAX ? { ...costed, connectsAvailable: left } : costed;
}

/** The boost box's text as a count: empty is no boost; anything but a whole number in range is unreadable (null). */
export function boostTyped(value: string): number | null {
  const text = value.trim();
  if (text === "") return 0;
  return /^\d+$/.test(text) && isCount(Number(text)) ? Number(text) : null;
}

/** A question's label without the "0/5000 characters" counter (research §3.2). */
const questionText = (group: DomElement) => textOf(first(group, "applyQuestionLabel")).replace(/\s*\d+\s*\/\s*\d+\s*characters?\s*$/i, "");

function setValue(el: DomElement, value: string, notify?: Notify): void {
  const field = el as Field;
  if (field.tagName.toUpperCase() === "DIV")
    field.textContent = value; // a contenteditable answer box
  else field.value = value;
  notify?.(el);
}

/** Picks the option whose value or text is `wanted`; false when none is. */
function choose(select: DomElement, wanted: string, notify?: Notify): boolean {
  const options = Array.from(select.querySelectorAll("option")) as unknown as Choice[];
  const pick = options.find((o) => o.getAttribute("value") === wanted) ?? options.find((o) => textOf(o) === wanted);
  if (!pick) return false;
  for (const o of options) if (o !== pick && o.selected) o.selected = false;
  pick.selected = true;
  notify?.(select);
  return true;
}

export interface FillResult {
  /** The fields filled, by adapter name, for the review highlight and the test. */
  filled: string[];
  /** Why the form cannot be sent as the task asks; empty when it can. */
  problems: string[];
  /**
   * Screening questions the form asks and the task does not answer (a job captured from a search tile has no
   * questions on the server). Review mode leaves them to the user; auto mode does not send a form with blank answers.
   */
  unanswered: string[];
}

/**
 * Fills the apply form from a proposal.submit task: profile, rate or milestone (one milestone: the fixed bid),
 * duration, boost (left empty when 0, research §3.6), cover letter, and screening answers by position.
 */
export function fillApplyForm(doc: DomDocument, op: SubmitOp, notify?: Notify): FillResult {
  const filled: string[] = [];
  const problems: string[] = [];
  const profile = first(doc, "applyProfile");
  if (profile) {
    if (choose(profile, op.profileId, notify)) filled.push("applyProfile");
    else problems.push(`The form does not offer profile ${op.profileId}`);
  }
  const hourly = first(doc, "applyHourlyRate");
  const fixed = first(doc, "applyFixedBid");
  if (hourly) {
    if (op.bid.hourlyRate !== null) {
      setValue(hourly, op.bid.hourlyRate.toFixed(2), notify);
      filled.push("applyHourlyRate");
    } else problems.push("The form asks for an hourly rate and the proposal has none");
  } else if (fixed) {
    if (op.bid.fixedBid !== null) {
      setValue(fixed, op.bid.fixedBid.toFixed(2), notify);
      filled.push("applyFixedBid");
    } else problems.push("The form asks for a fixed bid and the proposal has none");
  }
  const duration = first(doc, "applyDuration");
  if (duration && op.bid.timeline) {
    if (choose(duration, op.bid.timeline, notify)) filled.push("applyDuration");
    else problems.push(`The form does not offer the duration "${op.bid.timeline}"`);
  }
  const boost = first(doc, "applyBoost");
  if (op.bid.boostBids > 0) {
    if (boost) {
      setValue(boost, String(op.bid.boostBids), notify);
      filled.push("applyBoost");
    } else problems.push(`The form offers no boost; the proposal bids ${op.bid.boostBids} Connects`);
  }
  const letter = first(doc, "applyCoverLetter");
  if (letter) {
    setValue(letter, op.coverLetter, notify);
    filled.push("applyCoverLetter");
  } else problems.push("The cover letter box was not found");
  const groups = all(doc, "applyQuestionGroup").filter((g) => !first(g, "applyCoverLetter") && first(g, "applyQuestionInput"));
  const questions = groups.map((g) => first(g, "applyQuestionInput")!);
  for (const { position, answer } of op.answers) {
    const box = questions[position];
    if (box) {
      setValue(box, answer, notify);
      filled.push(`applyQuestions[${position}]`);
    } else problems.push(`The form has no screening question at position ${position}`);
  }
  const unanswered = groups
    .map((g, position) => ({ position, question: questionText(g) }))
    .filter(({ position }) => !op.answers.some((a) => a.position === position))
    .map(({ position, question }) => `${position}: ${question}`);
  return { filled, problems, unanswered };
}

export interface ProposalEntry {
  ciphertext: string;
  proposalId: string | null;
  status: string | null;
  viewed: boolean;
  replied: boolean;
}

/** The proposals "my proposals" lists: job ciphertext (attribute, else the job link), status and engagement. */
export function readProposals(doc: DomDocument): ProposalEntry[] {
  const list = first(doc, "proposalList") ?? doc;
  return all(list, "proposalItem").flatMap((item) => {
    const link = first(item, "proposalJobLink")?.getAttribute("href") ?? "";
    const ciphertext = item.getAttribute(ATTRIBUTES.proposalJob) ?? /~0[0-9a-f]{2,40}/i.exec(link)?.[0];
    if (!ciphertext) return [];
    return [
      {
        ciphertext,
        proposalId: item.getAttribute(ATTRIBUTES.proposalId),
        status: item.getAttribute(ATTRIBUTES.proposalStatus),
        viewed: item.getAttribute(ATTRIBUTES.proposalViewed) === "true",
        replied: item.getAttribute(ATTRIBUTES.proposalReplied) === "true",
      },
    ];
  });
}

/** A sent proposal for the job: an item for its ciphertext that is not a refusal the sandbox also lists. */
export function proposalFor(entries: ProposalEntry[], ciphertext: string): ProposalEntry | null {
  return entries.find((e) => e.ciphertext === ciphertext && isSent(e)) ?? null;
}

/** An entry for a proposal that was sent (the sandbox also lists refused attempts, with their status). */
export const isSent = (entry: ProposalEntry) => entry.status === null || entry.status === "applied";

/** The jobs of the proposals "my proposals" shows as sent, once each: what the server checks reported outcomes against. */
export const sentJobs = (entries: ProposalEntry[]) => [...new Set(entries.filter(isSent).map((e) => e.ciphertext))];

/** The freelancers and profiles the profiles page lists (freelancers.list). */
export function readFreelancers(doc: DomDocument): FreelancerEntry[] {
  const byId = new Map<string, FreelancerEntry>();
  const num = (v: string | null) => (v === null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));
  for (const item of all(doc, "profileItem")) {
    const id = item.getAttribute(ATTRIBUTES.freelancerId);
    const profileId = item.getAttribute(ATTRIBUTES.profileId);
    if (!id || !profileId) continue;
    let f = byId.get(id);
    if (!f) {
      f = {
        id,
        name: item.getAttribute(ATTRIBUTES.freelancerName) ?? id,
        avatarUrl: null,
        baseHourlyRate: num(item.getAttribute(ATTRIBUTES.freelancerRate)),
        profiles: [],
      };
      byId.set(id, f);
    }
    f.profiles.push({
      type: item.getAttribute(ATTRIBUTES.profileType) === "specialization" ? "specialization" : "default",
      name: item.getAttribute(ATTRIBUTES.profileName) ?? textOf(item),
      hourlyRate: num(item.getAttribute(ATTRIBUTES.profileRate)),
      currency: item.getAttribute(ATTRIBUTES.profileCurrency) || "USD",
      profileId,
    });
  }
  return [...byId.values()];
}

/**
 * Whether a read of "my proposals" may happen now (issue 20: at least `gapMs` between reads, at most `perDay` a day):
 * the cached read when it was taken after `freshAfter`; else a read, after `waitMs`; "spent" when the day's reads are used.
 */
export function proposalsReadPlan(
  state: { lastReadAt: number | null; readsToday: number },
  nowTs: number,
  freshAfter: number,
  limits: { gapMs: number; perDay: number },
): "cached" | "spent" | { waitMs: number } {
  if (state.lastReadAt !== null && state.lastReadAt > freshAfter) return "cached";
  if (state.readsToday >= limits.perDay) return "spent";
  return { waitMs: state.lastReadAt === null ? 0 : Math.max(0, state.lastReadAt + limits.gapMs - nowTs) };
}
