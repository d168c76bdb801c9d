import type { Extraction, PageKind } from "./adapter";
import type { ApplyPage, ProposalEntry } from "./apply";
import type { FreelancerEntry, PageOutcome, SubmitOp } from "./tasks";
import type { WorkingHours } from "./working-hours";

/** What the content script tells the service worker about the page it runs in. */
export interface PageReport {
  type: "page";
  href: string;
  extraction: Extraction;
}

/** Review mode: what the apply form's boost box held when the user clicked submit or confirm (the boost they bid). */
export interface BoostReport {
  type: "boost";
  boost: number;
}

/** What the extension keeps in chrome.storage.local (never in a page's storage). */
export interface Settings {
  /** The paired jobpilot server, e.g. "http://127.0.0.1:3000". */
  server?: string;
  /** The companion's own API key, from pairing. */
  apiKey?: string;
  /** Saved searches (marketplace URLs) watch mode reloads. */
  watchUrls?: string[];
  /** Off unless the user turned it on in the options page, after reading the marketplace's rule on automation. */
  watchEnabled?: boolean;
  /** The options page's "I understand the risk" box, ticked when watch mode was saved on. */
  watchRiskAccepted?: boolean;
  /** Minutes between reloads (default and minimum MIN_INTERVAL_MIN; each wait is 1.0–1.4 × this). */
  intervalMin?: number;
  /**
   * Tests only: milliseconds between reloads, overriding intervalMin (the e2e test's fast setting). The options page
   * never writes it; only a test setting storage from the service worker can.
   */
  testIntervalMs?: number;
  /** When the watch tab last loaded a saved search: the next load waits at least the interval after it, whatever asks. */
  watchReloadAt?: number;
  /** Why the last watch turn did or did not reload, for the options page's state line. */
  watchState?: WatchState;
  /** The freelancer's working hours, as the server last answered (null: none set); absent when never read. */
  workingHours?: WorkingHours | null;
  /** When the server was last asked for them (answered or not): asked at most every WORKING_HOURS_REFRESH_MS. */
  workingHoursCheckedAt?: number;
  /**
   * The server refused a capture or a "my proposals" read (429: the governor's companionReadsPerHour): until this time
   * (Unix ms) the companion neither reloads the watch tab nor reads "my proposals"; `readsPausedReason` is the server's words.
   */
  readsPausedUntil?: number;
  readsPausedReason?: string;
  /** Set while the marketplace shows a login or bot-check page: watching waits for the user. */
  needsYou?: "login" | "challenge" | null;
  watchTabId?: number;
  watchIndex?: number;
  sentCount?: number;
  lastStatus?: string;
  /**
   * What the long poll last found (companion.ts): the server answered, could not be reached, refused the key, or
   * refused it because the account paired another companion since (which revoked this one's key).
   */
  connection?: "connected" | "unreachable" | "refused" | "replaced";
  /** Part 2: where the marketplace is (its origin, plus /sandbox/site for the sandbox), from the last page or task seen. */
  siteBase?: string;
  /** Never twice: every application this browser opened an apply form for, by application id. */
  ledger?: Record<string, LedgerEntry>;
  /** The last read of "my proposals" (`at`: when it began) and the day's count of reads (throttled: a minimum gap, a daily cap). */
  proposalsRead?: { at: number; entries: ProposalEntry[] };
  proposalReads?: { day: string; count: number };
  /** Tests only: milliseconds between "my proposals" reads, overriding the 60 s minimum. */
  testReadGapMs?: number;
  /** Tests only: wait this long after clicking submit before reading the result (the e2e restarts the browser in between). */
  testOutcomeDelayMs?: number;
}

/**
 * One application in the ledger. `state` moves opening → filled → review | submitting → submitted | ended; only
 * submitted and ended are final. A retry of an entry in any other state reads "my proposals" before anything else.
 */
export interface LedgerEntry {
  taskId: string;
  ciphertext: string;
  jobUrl: string;
  state: "opening" | "filled" | "review" | "submitting" | "submitted" | "ended" | "abandoned";
  /** What the page said when the attempt ended without a proposal. */
  outcome?: PageOutcome;
  tabId?: number;
  /**
   * Review mode: when the wait for the user's click ends, and the boost (for the Connects check), so a restarted worker
   * can watch on. The boost is the one filled in, then what the box held at the user's click (reported with the outcome).
   */
  reviewUntil?: number;
  boostBids?: number;
  /** What the form said submitting costs ("Required Connects to submit"), read before filling: reported with a submitted outcome. */
  requiredConnects?: number;
  /** The form's "Available Connects", read with them: less the cost, the balance reported with a submitted outcome. */
  availableConnects?: number;
  at: number;
  /** Its last change: a "my proposals" read from before it cannot tell whether that step sent anything. */
  touchedAt?: number;
}

/** "My proposals" is read at most once a minute and 50 times a day (issue 20): a person does not reload it more. */
export const PROPOSALS_READ_GAP_MS = 60_000;
export const PROPOSALS_READS_PER_DAY = 50;

/**
 * Watch mode's floor: the marketplace counts a tool that reloads searches "faster or more frequently than a human
 * could" as a bot, so a saved search is reloaded at most every 15 minutes, jitter only adding to that.
 */
export const MIN_INTERVAL_MIN = 15;
export const DEFAULT_INTERVAL_MIN = 15;
/** Each wait is the interval times 1.0–1.4: human-looking irregularity that never goes under the floor. */
export const INTERVAL_JITTER = 0.4;
/** The working hours are read from the server at most this often. */
export const WORKING_HOURS_REFRESH_MS = 15 * 60_000;

/** What the last watch turn found: reloaded, or waiting for working hours, for the user at the browser, or for usable hours. */
export type WatchState = "watching" | "outside-hours" | "idle" | "locked" | "bad-hours" | "capped";

/** What the service worker asks the content script of a submission's tab (part 2). */
export type CompanionCommand =
  | { type: "companion.read"; apply?: { boostBids: number; afterSubmit: boolean } }
  | { type: "companion.fill"; op: SubmitOp }
  | { type: "companion.highlight"; filled: string[] }
  | { type: "companion.submit" };

/** The content script's reading of its page. */
export interface PageRead {
  pageId: string;
  href: string;
  kind: PageKind;
  apply?: ApplyPage | { kind: "waiting" };
  proposals?: ProposalEntry[];
  freelancers?: FreelancerEntry[];
}
