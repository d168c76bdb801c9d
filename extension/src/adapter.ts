/**
 * The site adapter: every fact the companion reads from (and, in part 2, writes to) the marketplace's pages,
 * in one table, and the pure functions that apply it. When the marketplace changes its markup, this table is
 * the one place to edit. Each entry says where the selector was documented and when it was read there; an
 * entry marked "unverified" comes from nothing better than the sandbox's own pages, which mirror what public
 * sources document. Only a user on the real site can confirm an entry (README, "Reporting a broken selector").
 *
 * The functions take a minimal DOM interface (below), not the browser's lib types, so the same code runs in the
 * content script and, in unit tests, over saved HTML fixtures. They read only; they never send anything.
 */

/** The part of the DOM the adapter uses: a content script passes `document`, tests a parsed fixture. */
export interface DomElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}
export interface DomDocument {
  title: string;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** One row of the table: CSS selectors tried in order, the public place it was documented, and when it was read there. */
export interface SelectorEntry {
  css: readonly string[];
  source: string;
  seen: string;
}

// Where the sources below are: docs/reference/marketplace-data.md cites them by repository and path.
const RESEARCH = "docs/reference/marketplace-data.md";
const TILE_SCRAPER = "repo:richardadonnell/Upwork-Job-Scraper/app-v3/entrypoints/upwork-scraper.content.ts @01786ec";
const SANDBOX_ONLY = "unverified: the sandbox's own page (no public source found)";

/** The marketplace's own origin; the sandbox website is added at run time (see `sitePath`). */
export const MARKETPLACE_ORIGIN = "https://www.upwork.com";
/** Where the sandbox website lives on a jobpilot server; its paths below mirror the marketplace's. */
export const SANDBOX_PREFIX = "/sandbox/site";

/** URL shapes, matched against the path with the sandbox prefix taken off. */
export const PATHS = {
  // research §3.1 (job page with or without a title slug; apply form; login; proposals)
  job: /^\/jobs\/(?:[^/?#]*_)?(~0[0-9a-f]{2,40})\/?$/i,
  apply: /^\/(?:nx|ab)\/proposals\/job\/(~0[0-9a-f]{2,40})\/apply\/?$/i,
  login: /^\/ab\/account-security\/login\/?$/,
  proposals: /^\/nx\/proposals\/?$/,
  // unverified: no public source shows a page listing the freelancer's profiles; the sandbox has one for freelancers.list
  profiles: /^\/nx\/profiles\/?$/,
  // research §2.4 ("Most Recent" at /nx/find-work/most-recent) and the search URL of §3 and the tile scraper
  search: /^\/nx\/search\/jobs\/?$/,
  findWork: /^\/nx\/find-work(?:\/[a-z-]*)?\/?$/,
} as const;

export const SELECTORS = {
  /** The embedded state object (Nuxt's payload); a JSON object, or Nuxt 3's flattened array form. */
  embeddedState: {
    css: ["script#__NUXT_DATA__"],
    source: "a public Python parser of the marketplace's pages (research §1, 'Try __NUXT_DATA__ script tag')",
    seen: "2026-06",
  },
  // Search and "find work" tiles.
  tile: { css: ["article[data-ev-job-uid]", '[data-test="job-tile-list"] article'], source: TILE_SCRAPER, seen: "2026-06" },
  tileTitleLink: { css: ['a[data-test="job-tile-title-link"]', "h2 a[href*='/jobs/']"], source: TILE_SCRAPER, seen: "2026-06" },
  tileDescription: {
    css: ['[data-test="UpCLineClamp JobDescription"] p', '[data-test="job-description-text"]', ".air3-line-clamp-wrapper.clamp p"],
    source: TILE_SCRAPER,
    seen: "2026-06",
  },
  tileJobType: { css: ['[data-test="job-type-label"]'], source: TILE_SCRAPER, seen: "2026-06" },
  tileFixedBudget: { css: ['[data-test="is-fixed-price"] strong'], source: TILE_SCRAPER, seen: "2026-06" },
  tilePublished: { css: ['[data-test="job-pubilshed-date"]'], source: `${TILE_SCRAPER} (the marketplace's own spelling)`, seen: "2026-06" },
  tileSkill: { css: ['[data-test="token"] span'], source: TILE_SCRAPER, seen: "2026-06" },
  tilePaymentVerified: { css: ['[data-test="payment-verified"]'], source: TILE_SCRAPER, seen: "2026-06" },
  tileTotalSpent: { css: ['[data-test="total-spent"] strong'], source: TILE_SCRAPER, seen: "2026-06" },
  tileClientCountry: {
    css: ['[data-test="location"]'],
    source: "repo:dmitrii-fediuk/vm/s/Upwork/project/list.js (JobInfoClient > location, 2025-03-18)",
    seen: "2026-06",
  },
  // Job page (DOM fallback when no embedded state).
  jobTitle: {
    css: ['[data-test="job-title"]', ".job-details-content h4", "h1"],
    source: "public extension parsers quoted in the code search (.job-details-content h4)",
    seen: "2026-06",
  },
  jobDescription: {
    css: ['[data-test="Description"]', '[data-test="job-description"]'],
    source: "public extension parsers quoted in the code search ([data-test=Description])",
    seen: "2026-06",
  },
  jobAboutClient: { css: ['[data-test="about-client-container"]'], source: SANDBOX_ONLY, seen: "2026-06" },
  jobClientCountry: { css: ['[data-qa="client-location"] strong'], source: SANDBOX_ONLY, seen: "2026-06" },
  jobClientSpent: { css: ['[data-qa="client-spend"] span'], source: SANDBOX_ONLY, seen: "2026-06" },
  jobPrivate: { css: ['[data-test="job-private"]'], source: `${SANDBOX_ONLY}; the real page's text says "private" (research §3.3 step 5)`, seen: "2026-06" },
  jobUnavailable: { css: [".up-alert-danger", ".up-alert-error", ".fe-proposal-job-details-error"], source: `${RESEARCH} §3.3 step 5`, seen: "2026-06" },
  // Pages that need the user.
  loginForm: { css: ["input#login_username", "input#login_password"], source: `${RESEARCH} §3.1 (login page fields)`, seen: "2026-06" },
  challenge: {
    css: ['iframe[src*="challenges.cloudflare.com"]', "#challenge-form", "#challenge-running"],
    source: `${RESEARCH} §3.1 (a bot looks for the Cloudflare iframe)`,
    seen: "2026-06",
  },
  // The apply form (read here; part 2 fills and submits it).
  applyCoverLetter: { css: ['[data-test="cover-letter-textarea"]', 'textarea[name="coverLetter"]'], source: `${RESEARCH} §3.2`, seen: "2026-06" },
  applyQuestions: { css: [".fe-proposal-job-questions textarea"], source: `${RESEARCH} §3.3 step 6`, seen: "2026-06" },
  applyQuestionLabel: { css: ["label", ".up-label"], source: `${RESEARCH} §3.3 step 6 (nearest label inside the question group)`, seen: "2026-06" },
  applyQuestionGroup: { css: [".fe-proposal-question", ".up-form-group"], source: `${RESEARCH} §3.3 step 6`, seen: "2026-06" },
  applyHourlyRate: { css: ['input[data-test="hourly-rate-input"]', "#step-rate"], source: SANDBOX_ONLY, seen: "2026-06" },
  applyFixedBid: { css: ['input[data-test="milestone-amount-input"]', 'input[data-test="fixed-bid-input"]'], source: SANDBOX_ONLY, seen: "2026-06" },
  applyDuration: { css: ['select[data-test="duration-select"]'], source: SANDBOX_ONLY, seen: "2026-06" },
  applyProfile: { css: ['select[data-test="profile-select"]'], source: SANDBOX_ONLY, seen: "2026-06" },
  applyBoost: { css: ['input[placeholder="Connects"]'], source: `${RESEARCH} §3.2 / §3.6 (boost bid input)`, seen: "2026-06" },
  applySubmit: { css: ['button[data-test="submit-proposal"]', "button.up-btn-primary"], source: `${RESEARCH} §3.2`, seen: "2026-06" },
  applyConfirmCheckbox: {
    css: ['.up-modal input[type="checkbox"]', '[role="dialog"] input[type="checkbox"]'],
    source: `${RESEARCH} §3.2 (a visible checkbox)`,
    seen: "2026-06",
  },
  applyConfirm: { css: ['button[data-test="confirm-submit"]', ".up-modal-footer button.up-btn-primary"], source: `${RESEARCH} §3.2`, seen: "2026-06" },
  applyMoreConnects: {
    css: [".fe-proposal-more-connects-needed-dialog", '[class*="more-connects-needed"]'],
    source: `${RESEARCH} §3.3 step 4`,
    seen: "2026-06",
  },
  applyError: { css: [".up-alert-danger", ".up-alert-error", '[role="alert"]'], source: `${RESEARCH} §3.3 step 9`, seen: "2026-06" },
  // Part 2 (submitting): the page that answers an apply URL when the job cannot take this proposal, and its heading.
  applyRefusal: { css: [".fe-proposal-job-details-error", ".up-alert-danger", ".up-alert-error"], source: `${RESEARCH} §3.3 step 5`, seen: "2026-11" },
  pageHeading: { css: ["h1", "h2"], source: `${RESEARCH} §3.3 step 5 (h1, h2 are read with the alerts)`, seen: "2026-11" },
  applyQuestionInput: { css: ["textarea", 'div[contenteditable="true"]'], source: `${RESEARCH} §3.2 (a textarea per question)`, seen: "2026-11" },
  applySubmitted: { css: ['[data-test="proposal-submitted"]', ".up-alert-success"], source: `${SANDBOX_ONLY}; the real site shows a toast`, seen: "2026-11" },
  // "My proposals".
  proposalList: { css: ['[data-test="proposal-list"]'], source: "research §3.1 (an MCP server scrapes it on /nx/proposals)", seen: "2026-06" },
  proposalItem: { css: ['[data-test="proposal-item"]'], source: SANDBOX_ONLY, seen: "2026-06" },
  /** A proposal item's job link, when the item has no data-job-ciphertext (the real list's markup is not documented). */
  proposalJobLink: { css: ['a[href*="/jobs/"]'], source: SANDBOX_ONLY, seen: "2026-11" },
  // The freelancer's profiles (freelancers.list): the sandbox's page; no public source documents the real one.
  profileItem: { css: ['[data-test="freelancer-profile"]'], source: SANDBOX_ONLY, seen: "2026-11" },
} as const satisfies Record<string, SelectorEntry>;

export type SelectorName = keyof typeof SELECTORS;

/** Text patterns read from the page (research §3.3 step 4 and §3.4). */
export const TEXT_PATTERNS = {
  requiredConnects: /Required\s+Connects\s+to\s+submit\D*(\d+)/i,
  availableConnects: /Available\s+Connects\s*[:-]?\s*(\d+)/i,
  unavailable: /no longer available|closed|access denied|not found|private/i,
  challengeTitle: /^just a moment/i,
  // Part 2: what an apply page's alert says (research §3.4; the eligibility wording is not verified there).
  notEligible: /not eligible|only accept(?:s|ing)? (?:proposals|freelancers)|located in the (?:U\.S\.|United States)|Job Success Score of at least/i,
  moreConnects: /more Connects needed|not enough Connects|buy (?:additional )?Connects/i,
  /** The sandbox's own "Needs 24 Connects; 6 available" sentence. */
  connectsNumbers: /Needs\s+(\d+)\s+Connects;\s*(\d+)\s+available/i,
} as const;

/**
 * Attributes read from "my proposals" items and the sandbox's profile items. unverified: the sandbox's own
 * markup (research §3.1 names only the list's data-test); on the real site an item without them is matched by its job link.
 */
export const ATTRIBUTES = {
  proposalJob: "data-job-ciphertext",
  proposalId: "data-proposal-id",
  proposalStatus: "data-status",
  proposalViewed: "data-viewed",
  proposalReplied: "data-replied",
  freelancerId: "data-freelancer-id",
  freelancerName: "data-freelancer-name",
  freelancerRate: "data-freelancer-rate",
  profileId: "data-profile-id",
  profileType: "data-profile-type",
  profileName: "data-profile-name",
  profileRate: "data-profile-rate",
  profileCurrency: "data-currency",
} as const;

// ---------------------------------------------------------------------------
// Where we are

/**
 * The marketplace path of a URL (the sandbox prefix taken off), or null when the URL is not a marketplace page.
 * `sandboxOrigins` are the jobpilot servers whose /sandbox/site pages count as the marketplace.
 */
export function sitePath(href: string, sandboxOrigins: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.origin === MARKETPLACE_ORIGIN) return url.pathname;
  if (sandboxOrigins.includes(url.origin) && (url.pathname === SANDBOX_PREFIX || url.pathname.startsWith(`${SANDBOX_PREFIX}/`))) {
    return url.pathname.slice(SANDBOX_PREFIX.length) || "/";
  }
  return null;
}

export type PageKind = "job" | "search" | "apply" | "proposals" | "profiles" | "login" | "challenge" | "other";

export function first(root: DomDocument | DomElement, name: SelectorName): DomElement | null {
  for (const css of SELECTORS[name].css) {
    const found = root.querySelector(css);
    if (found) return found;
  }
  return null;
}

export function all(root: DomDocument | DomElement, name: SelectorName): DomElement[] {
  for (const css of SELECTORS[name].css) {
    const found = Array.from(root.querySelectorAll(css));
    if (found.length > 0) return found;
  }
  return [];
}

export const clean = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
export const textOf = (el: DomElement | null) => clean(el?.textContent);

/** What kind of marketplace page this is; login and challenge pages win over the URL (a redirect keeps some paths). */
export function classifyPage(doc: DomDocument, path: string): PageKind {
  if (first(doc, "challenge") || TEXT_PATTERNS.challengeTitle.test(doc.title.trim())) return "challenge";
  if (PATHS.login.test(path) || first(doc, "loginForm")) return "login";
  if (PATHS.apply.test(path)) return "apply";
  if (PATHS.job.test(path)) return "job";
  if (PATHS.search.test(path) || PATHS.findWork.test(path)) return "search";
  if (PATHS.proposals.test(path)) return "proposals";
  if (PATHS.profiles.test(path)) return "profiles";
  return "other";
}

// ---------------------------------------------------------------------------
// The embedded state

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const at = (v: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), v);

/**
 * Nuxt 3 writes its payload flattened (devalue): an array whose first item is the root and whose other items
 * are referenced by index; wrappers such as ["Reactive", i] mark reactive values. A plain JSON object is taken
 * as it is. Cycles and unknown wrappers come back as null.
 */
export function unflatten(payload: unknown): unknown {
  if (!Array.isArray(payload)) return payload;
  const values = payload;
  const done = new Map<number, unknown>();
  const visiting = new Set<number>();
  const WRAPPERS = new Set(["Reactive", "ShallowReactive", "Ref", "ShallowRef", "EmptyRef", "EmptyShallowRef"]);
  const hydrate = (index: number): unknown => {
    if (index < 0) return index === -1 ? undefined : null; // devalue's specials (undefined, null, NaN, …)
    if (done.has(index)) return done.get(index);
    if (visiting.has(index)) return null;
    visiting.add(index);
    const v = values[index];
    let out: unknown;
    if (Array.isArray(v)) {
      if (typeof v[0] === "string" && WRAPPERS.has(v[0])) out = typeof v[1] === "number" ? hydrate(v[1]) : null;
      else if (v[0] === "Date" && typeof v[1] === "string") out = v[1];
      else out = v.map((i) => (typeof i === "number" ? hydrate(i) : null));
    } else if (isObj(v)) {
      out = Object.fromEntries(Object.entries(v).map(([k, i]) => [k, typeof i === "number" ? hydrate(i) : null]));
    } else out = v;
    visiting.delete(index);
    done.set(index, out);
    return out;
  };
  return hydrate(0);
}

/** The page's embedded state, decoded; null when there is none or it is not JSON. */
export function embeddedState(doc: DomDocument): unknown {
  const script = first(doc, "embeddedState");
  if (!script?.textContent) return null;
  try {
    return unflatten(JSON.parse(script.textContent));
  } catch {
    return null;
  }
}

/** Every object in `state` that `test` accepts, breadth first; bounded so a huge state cannot stall the page. */
function findAll(state: unknown, test: (o: Obj) => boolean, limit = 50): Obj[] {
  const found: Obj[] = [];
  const queue: unknown[] = [state];
  let visited = 0;
  while (queue.length > 0 && found.length < limit && visited < 20_000) {
    const v = queue.shift();
    visited++;
    if (Array.isArray(v)) queue.push(...v);
    else if (isObj(v)) {
      if (test(v)) found.push(v);
      else queue.push(...Object.values(v));
    }
  }
  return found;
}

// ---------------------------------------------------------------------------
// Jobs

/** The archived job document shape (src/sources/document.ts), as far as the companion fills it. */
export interface CapturedJob {
  id: string;
  title: string;
  description: string;
  platform: "marketplace";
  url: string;
  jobTile: { job: Obj };
  upworkHistoryData?: { client: Obj };
  connectPrice?: number;
  ontologySkills?: { uid: string; prefLabel: string }[];
  jobDetailsResponse?: { data: { jobPubDetails: Obj } };
  authJobDetailsResponse?: { data: { jobAuthDetails: Obj } };
  exploredAt: number;
}

export interface Extraction {
  kind: PageKind;
  jobs: CapturedJob[];
  /** Why nothing was read from a job or search page (private job, no tiles), for the status line. */
  note?: string;
}

const CIPHER = /^~0[0-9a-f]{2,40}$/i;
const openingIdOf = (cipher: string) => (cipher.startsWith("~02") ? cipher.slice(3) : cipher);
const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

function jobUrl(pageOrigin: string, prefix: string, cipher: string): string {
  return `${pageOrigin}${prefix}/jobs/${cipher}`;
}

/** A job document from the job page's details object (authenticated or public shape). */
function fromDetails(details: Obj, authenticated: boolean, url: string, nowTs: number): CapturedJob | null {
  const job = (authenticated ? at(details, "opening", "job") : at(details, "opening")) as Obj | undefined;
  const info = at(job, "info");
  const cipher = str(at(info, "ciphertext"));
  const title = str(at(info, "title"));
  const description = str(at(job, "description"));
  if (!cipher || !CIPHER.test(cipher) || !title || !description) return null;
  const doc: CapturedJob = {
    id: str(at(info, "id")) ?? openingIdOf(cipher),
    title,
    description,
    platform: "marketplace",
    url,
    jobTile: {
      job: {
        id: str(at(info, "id")) ?? openingIdOf(cipher),
        ciphertext: cipher,
        jobType: at(info, "type"),
        publishTime: at(job, "publishTime") ?? at(job, "postedOn"),
      },
    },
    exploredAt: nowTs,
  };
  const skills = at(job, "sandsData", "ontologySkills");
  if (Array.isArray(skills)) {
    doc.ontologySkills = skills.filter(isObj).flatMap((s) => (str(s.prefLabel) ? [{ uid: String(s.id ?? s.uid ?? ""), prefLabel: str(s.prefLabel)! }] : []));
  }
  if (authenticated) doc.authJobDetailsResponse = { data: { jobAuthDetails: details } };
  else doc.jobDetailsResponse = { data: { jobPubDetails: details } };
  return doc;
}

/** A job document from one search result (`userJobSearchV1` shape: title, description, jobTile.job, upworkHistoryData). */
function fromSearchResult(result: Obj, origin: string, prefix: string, nowTs: number): CapturedJob | null {
  const tile = at(result, "jobTile", "job");
  if (!isObj(tile)) return null;
  const cipher = str(tile.ciphertext) ?? str(tile.cipherText);
  const title = str(result.title);
  const description = str(result.description);
  if (!cipher || !CIPHER.test(cipher) || !title || !description) return null;
  const doc: CapturedJob = {
    id: str(result.id) ?? str(tile.id) ?? openingIdOf(cipher),
    title,
    description,
    platform: "marketplace",
    url: jobUrl(origin, prefix, cipher),
    jobTile: { job: { ...tile, ciphertext: cipher } },
    exploredAt: nowTs,
  };
  const client = at(result, "upworkHistoryData", "client");
  if (isObj(client)) doc.upworkHistoryData = { client };
  if (typeof result.connectPrice === "number") doc.connectPrice = result.connectPrice;
  if (Array.isArray(result.ontologySkills)) doc.ontologySkills = result.ontologySkills.filter(isObj) as CapturedJob["ontologySkills"];
  return doc;
}

/** Money as the page prints it ("$1,500", "$10K+ spent") → a number, or undefined. */
export function moneyOf(text: string): number | undefined {
  const m = /\$\s*([\d,]+(?:\.\d+)?)\s*([KM])?/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]!.replace(/,/g, ""));
  const scale = m[2]?.toUpperCase() === "K" ? 1_000 : m[2]?.toUpperCase() === "M" ? 1_000_000 : 1;
  return Number.isFinite(n) ? n * scale : undefined;
}

/** A job document from a tile's DOM, when the page carries no state: what a search tile shows, nothing more. */
function fromTile(tile: DomElement, origin: string, prefix: string, nowTs: number): CapturedJob | null {
  const link = first(tile, "tileTitleLink");
  const href = link?.getAttribute("href") ?? "";
  const cipher = /(~0[0-9a-f]{2,40})/i.exec(href)?.[1];
  const title = textOf(link);
  const description = textOf(first(tile, "tileDescription")) || title;
  if (!cipher || !title) return null;
  const typeText = textOf(first(tile, "tileJobType"));
  const jobType = /hourly/i.test(typeText) ? "HOURLY" : /fixed/i.test(typeText) ? "FIXED" : undefined;
  const job: Obj = { id: openingIdOf(cipher), ciphertext: cipher };
  if (jobType) job.jobType = jobType;
  const hourly = /\$\s*([\d.]+)\s*-\s*\$\s*([\d.]+)/.exec(typeText);
  if (hourly) [job.hourlyBudgetMin, job.hourlyBudgetMax] = [hourly[1], hourly[2]];
  const fixed = moneyOf(textOf(first(tile, "tileFixedBudget")));
  if (jobType === "FIXED" && fixed !== undefined) job.fixedPriceAmount = { amount: String(fixed), isoCurrencyCode: "USD" };
  const published = first(tile, "tilePublished")?.getAttribute("datetime");
  if (published) job.publishTime = published;
  const client: Obj = {};
  if (first(tile, "tilePaymentVerified")) client.paymentVerificationStatus = "VERIFIED";
  const spent = moneyOf(textOf(first(tile, "tileTotalSpent")));
  if (spent !== undefined) client.totalSpent = { amount: String(spent), isoCurrencyCode: "USD" };
  const country = textOf(first(tile, "tileClientCountry"));
  if (country) client.country = country;
  const doc: CapturedJob = {
    id: openingIdOf(cipher),
    title,
    description,
    platform: "marketplace",
    url: jobUrl(origin, prefix, cipher),
    jobTile: { job },
    exploredAt: nowTs,
  };
  if (Object.keys(client).length > 0) doc.upworkHistoryData = { client };
  const skills = all(tile, "tileSkill").map(textOf).filter(Boolean);
  if (skills.length > 0) doc.ontologySkills = skills.map((prefLabel) => ({ uid: "", prefLabel }));
  return doc;
}

/** A job document from the job page's DOM, when it carries no state. */
function fromJobDom(doc: DomDocument, cipher: string, url: string, nowTs: number): CapturedJob | null {
  const title = textOf(first(doc, "jobTitle"));
  const description = textOf(first(doc, "jobDescription"));
  if (!title || !description) return null;
  const job: CapturedJob = {
    id: openingIdOf(cipher),
    title,
    description,
    platform: "marketplace",
    url,
    jobTile: { job: { id: openingIdOf(cipher), ciphertext: cipher } },
    exploredAt: nowTs,
  };
  const about = first(doc, "jobAboutClient");
  if (about) {
    const client: Obj = {};
    const country = textOf(first(about, "jobClientCountry"));
    if (country) client.country = country;
    const spent = moneyOf(textOf(first(about, "jobClientSpent")));
    if (spent !== undefined) client.totalSpent = { amount: String(spent), isoCurrencyCode: "USD" };
    if (Object.keys(client).length > 0) job.upworkHistoryData = { client };
  }
  return job;
}

/**
 * The jobs a marketplace page shows, as archived job documents: the embedded state where the page has one,
 * the DOM otherwise. `href` is the page's address; login and challenge pages, private and unavailable jobs
 * give no jobs.
 */
export function extractJobs(doc: DomDocument, href: string, sandboxOrigins: readonly string[], nowTs: number): Extraction {
  const path = sitePath(href, sandboxOrigins);
  if (path === null) return { kind: "other", jobs: [] };
  const url = new URL(href);
  const prefix = url.origin === MARKETPLACE_ORIGIN ? "" : SANDBOX_PREFIX;
  const kind = classifyPage(doc, path);
  const state = embeddedState(doc);

  if (kind === "job") {
    const cipher = PATHS.job.exec(path)![1]!;
    const canonical = jobUrl(url.origin, prefix, cipher);
    if (first(doc, "jobPrivate")) return { kind, jobs: [], note: "private job: nothing sent" };
    const unavailable = textOf(first(doc, "jobUnavailable"));
    if (unavailable && TEXT_PATTERNS.unavailable.test(unavailable)) return { kind, jobs: [], note: `job not available: ${unavailable}` };
    const auth = findAll(state, (o) => isObj(at(o, "opening", "job", "info")) && isObj(o.buyer), 1)[0];
    const pub = auth ? undefined : findAll(state, (o) => isObj(at(o, "opening", "info")), 1)[0];
    const fromState = auth ? fromDetails(auth, true, canonical, nowTs) : pub ? fromDetails(pub, false, canonical, nowTs) : null;
    const job = fromState ?? fromJobDom(doc, cipher, canonical, nowTs);
    return job ? { kind, jobs: [job] } : { kind, jobs: [], note: "no job data found on the page" };
  }
  if (kind === "search") {
    const results = findAll(state, (o) => isObj(at(o, "jobTile", "job")), 100);
    let jobs = results.flatMap((r) => fromSearchResult(r, url.origin, prefix, nowTs) ?? []);
    if (jobs.length === 0) jobs = all(doc, "tile").flatMap((t) => fromTile(t, url.origin, prefix, nowTs) ?? []);
    return jobs.length > 0 ? { kind, jobs } : { kind, jobs: [], note: "no job tiles found on the page" };
  }
  return { kind, jobs: [] };
}

// ---------------------------------------------------------------------------
// The apply form (part 2 fills it; part 1 reads it for tests and diagnosis)

export interface ApplyFormFacts {
  ciphertext: string | null;
  requiredConnects: number | null;
  availableConnects: number | null;
  needsMoreConnects: boolean;
  hasCoverLetter: boolean;
  rateField: "hourly" | "fixed" | null;
  hasBoost: boolean;
  questions: { position: number; question: string }[];
  submitLabel: string | null;
  error: string | null;
}

/** What the apply form asks for and what it says, read from the page (labels lose a "0/5000 characters" counter). */
export function readApplyForm(doc: DomDocument, href: string, sandboxOrigins: readonly string[]): ApplyFormFacts {
  const path = sitePath(href, sandboxOrigins) ?? "";
  const body = clean(doc.querySelector("body")?.textContent);
  const num = (re: RegExp) => {
    const m = re.exec(body);
    return m ? Number(m[1]) : null;
  };
  const questions = all(doc, "applyQuestionGroup")
    .filter((g) => g.querySelector("textarea") && !first(g, "applyCoverLetter"))
    .map((g, position) => ({ position, question: textOf(first(g, "applyQuestionLabel")).replace(/\s*\d+\s*\/\s*\d+\s*characters?\s*$/i, "") }));
  return {
    ciphertext: PATHS.apply.exec(path)?.[1] ?? null,
    requiredConnects: num(TEXT_PATTERNS.requiredConnects),
    availableConnects: num(TEXT_PATTERNS.availableConnects),
    needsMoreConnects: first(doc, "applyMoreConnects") !== null,
    hasCoverLetter: first(doc, "applyCoverLetter") !== null,
    rateField: first(doc, "applyHourlyRate") ? "hourly" : first(doc, "applyFixedBid") ? "fixed" : null,
    hasBoost: first(doc, "applyBoost") !== null,
    questions,
    submitLabel: textOf(first(doc, "applySubmit")) || null,
    error: textOf(first(doc, "applyError")) || null,
  };
}
