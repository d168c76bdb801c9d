import type { SignalRules } from "./signal-rules";
import { foldForTokens, holdsTokens, tokenize } from "../../lib/text";
import { normalizeCountry } from "../../lib/countries";
import type { NormalizedJob } from "../jobs/normalize";
import type { Platform } from "../../db/enums";
import { hasDeliverableWebhook } from "./admit";
import type { FeedRow } from "./repo";

/**
 * Matching semantics (README "Matching"): the text is title + description +
 * skill labels; keywords match case-insensitively as whole words or phrases
 * (`go` never matches `good`, `react native` is a phrase) and a trailing `*`
 * makes the last word a prefix (`develop*`). `includes` needs at least one
 * hit, any `excludes` hit drops the job. Numeric filters pass jobs that do not
 * carry the value, except where the spec says otherwise (see passesFilters).
 */
export interface Term {
  tokens: string[];
  /** The last token matches as a prefix. */
  prefix: boolean;
  /** Index of this term in a FeedIndex's registry (shared by every feed using the same keyword), -1 outside an index. */
  id: number;
}

export function parseTerm(keyword: string): Term | null {
  const trimmed = keyword.trim();
  const prefix = trimmed.endsWith("*");
  const tokens = tokenize(prefix ? trimmed.slice(0, -1) : trimmed);
  return tokens.length > 0 ? { tokens, prefix, id: -1 } : null;
}

export interface CompiledFeed {
  id: string;
  accountId: string;
  createdAtTs: number;
  minScore: number;
  profilePrompt: string;
  notificationsMuted: boolean;
  /** hasDeliverableWebhook (admit.ts): match events are worth delivering. */
  hasWebhook: boolean;
  /** The notification channels the feed sends its matches to (feed_channels), each a target of its own. */
  channelIds: readonly string[];
  applyMode: FeedRow["applyMode"];
  /** What the feed does with each signal a job carries (signal-rules.ts), and whether favoured clients pass under minScore. */
  signalRules: SignalRules;
  alertFavoured: boolean;
  includes: Term[];
  excludes: Term[];
  minHourlyRate: number | null;
  minFixedPrice: number | null;
  clientMinSpent: number | null;
  countryMode: FeedRow["countryFilterMode"];
  countries: Set<string>;
  platforms: Set<Platform> | null;
  emailFoundOnly: boolean;
  jobTypes: Set<string> | null;
  usOnlyMode: FeedRow["usOnlyMode"];
  paymentVerifiedOnly: boolean;
  clientMinRating: number | null;
  clientMinReviews: number | null;
}

/** A feed as the index takes it: the row, and its channel ids (none when left out). */
export type IndexedFeedRow = FeedRow & { channelIds?: readonly string[] };

/** `intern` lets an index share one Term object per distinct keyword, so each is tested once per job. */
export function compileFeed(row: IndexedFeedRow, intern: (keyword: string) => Term | null = parseTerm): CompiledFeed {
  const terms = (list: string[]) => list.map(intern).filter((t): t is Term => t !== null);
  const countries = row.countryFilterMode === "include" ? row.includedCountries : row.excludedCountries;
  return {
    id: row.id,
    accountId: row.accountId,
    createdAtTs: row.createdAtTs,
    minScore: row.minScore,
    profilePrompt: row.profilePrompt,
    notificationsMuted: row.notificationsMuted,
    hasWebhook: hasDeliverableWebhook(row),
    channelIds: row.channelIds ?? [],
    applyMode: row.applyMode,
    signalRules: (row.signalRules ?? {}) as SignalRules,
    alertFavoured: row.alertFavoured ?? true,
    includes: terms(row.includes),
    excludes: terms(row.excludes),
    minHourlyRate: row.minHourlyRate,
    minFixedPrice: row.minFixedPrice,
    clientMinSpent: row.clientMinSpent,
    countryMode: row.countryFilterMode,
    countries: new Set(countries.map((c) => normalizeCountry(c)).filter((c): c is string => c !== null)),
    platforms: row.platforms && row.platforms.length > 0 ? new Set(row.platforms as Platform[]) : null,
    emailFoundOnly: row.emailFound === "email_found",
    jobTypes: row.jobTypes.length > 0 ? new Set(row.jobTypes) : null,
    usOnlyMode: row.usOnlyMode,
    paymentVerifiedOnly: row.paymentVerifiedOnly,
    clientMinRating: row.clientMinRating,
    clientMinReviews: row.clientMinReviews,
  };
}

/** A job's text, tokenized once and shared by every feed it is tested against. */
/** What a feed's keywords are tested on: a job's tokens (JobText) or its text searched on demand (ScannedText). */
export interface KeywordText {
  matches(term: Term): boolean;
}

/**
 * A job's text searched for each keyword as it is asked (holdsTokens), without tokenizing it all: for testing a
 * few keywords on many jobs (the feed preview), where building each job's JobText is most of the time. It
 * answers as JobText does (a property test checks).
 */
export class ScannedText implements KeywordText {
  private readonly parts: string[];
  /** Each part folded on its first need: a keyword found in the title leaves the description as it is. */
  private readonly folded: (string | undefined)[] = [];

  constructor(job: Pick<NormalizedJob, "title" | "description" | "skills">) {
    this.parts = [job.title, job.description, ...job.skills];
  }

  matches(term: Term): boolean {
    for (let i = 0; i < this.parts.length; i++) {
      const part = (this.folded[i] ??= foldForTokens(this.parts[i]!));
      if (holdsTokens(part, term.tokens, term.prefix)) return true;
    }
    return false;
  }
}

export class JobText implements KeywordText {
  readonly tokens: string[];
  /**
   * Each distinct token with where it occurs: the keys answer single words, the positions phrases. Built at
   * once, in one pass: a set of the words and positions built on a phrase's first need hashed every token
   * twice (docs/performance.md, 'Why the code is as it is').
   */
  readonly positions = new Map<string, number[]>();
  private sorted: string[] | null = null;

  constructor(job: Pick<NormalizedJob, "title" | "description" | "skills">) {
    const tokens: string[] = [];
    // A separator token after each part so a phrase cannot run from the title into the description.
    const add = (part: string) => {
      for (const t of tokenize(part)) tokens.push(t);
      tokens.push("\u0000");
    };
    add(job.title);
    add(job.description);
    for (const skill of job.skills) add(skill);
    this.tokens = tokens;
    for (let i = 0; i < tokens.length; i++) {
      const list = this.positions.get(tokens[i]!);
      if (list) list.push(i);
      else this.positions.set(tokens[i]!, [i]);
    }
  }

  has(token: string): boolean {
    return this.positions.has(token);
  }

  matches(term: Term): boolean {
    return termMatches(term, this);
  }

  /** Where `token` occurs, in order. */
  positionsOf(token: string): number[] {
    return this.positions.get(token) ?? [];
  }

  /** Whether some token starts with `prefix` (binary search over the sorted unique tokens). */
  hasPrefix(prefix: string): boolean {
    this.sorted ??= [...this.positions.keys()].sort();
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.sorted.length && this.sorted[lo]!.startsWith(prefix);
  }
}

function tokenAt(text: JobText, i: number, want: string, isPrefix: boolean): boolean {
  const t = text.tokens[i];
  return t !== undefined && (isPrefix ? t.startsWith(want) : t === want);
}

export function termMatches(term: Term, text: JobText): boolean {
  const { tokens, prefix } = term;
  if (tokens.length === 1) return prefix ? text.hasPrefix(tokens[0]!) : text.has(tokens[0]!);
  // Cheap rejection: every full (non-prefix) word of the phrase must occur somewhere.
  const last = tokens.length - 1;
  for (let k = 0; k < tokens.length; k++) if (!(k === last && prefix) && !text.has(tokens[k]!)) return false;
  for (const start of text.positionsOf(tokens[0]!)) {
    let ok = true;
    for (let k = 1; k < tokens.length && ok; k++) ok = tokenAt(text, start + k, tokens[k]!, k === last && prefix);
    if (ok) return true;
  }
  return false;
}

/**
 * The filters a feed runs before its keywords, named as the API spells them (a country filter by the list its mode
 * reads), in the order they are tried, cheapest first: the feed preview counts a job under the first that drops it.
 */
export type FieldFilter =
  | "platforms"
  | "emailFound"
  | "excludedCountries"
  | "includedCountries"
  | "minHourlyRate"
  | "minFixedPrice"
  | "clientMinSpent"
  | "jobTypes"
  | "usOnlyMode"
  | "paymentVerifiedOnly"
  | "clientMinRating"
  | "clientMinReviews";

/** What the field filters read of a job: the normalized job, or an archived row's filter columns. */
export type FilterableJob = Pick<
  NormalizedJob,
  | "platform"
  | "emailFound"
  | "clientCountry"
  | "jobType"
  | "hourlyMin"
  | "hourlyMax"
  | "fixedBudget"
  | "clientTotalSpent"
  | "usOnly"
  | "paymentVerified"
  | "hasClientStats"
  | "clientRating"
  | "clientReviews"
>;

/** The first field filter (every filter except the keywords) that drops the job, or null when it passes them all. */
export function droppingFilter(feed: CompiledFeed, job: FilterableJob): FieldFilter | null {
  if (feed.platforms && !feed.platforms.has(job.platform)) return "platforms";
  if (feed.emailFoundOnly && !job.emailFound) return "emailFound";
  if (feed.countries.size > 0) {
    if (feed.countryMode === "exclude") {
      if (job.clientCountry && feed.countries.has(job.clientCountry)) return "excludedCountries";
    } else if (!job.clientCountry || !feed.countries.has(job.clientCountry)) {
      return "includedCountries"; // include mode: an unknown country cannot be confirmed, so it is dropped
    }
  }
  if (feed.minHourlyRate !== null && job.jobType === "HOURLY") {
    const rate = job.hourlyMax ?? job.hourlyMin; // the upper end when given: what the client may pay
    if (rate !== null && rate < feed.minHourlyRate) return "minHourlyRate";
  }
  if (feed.minFixedPrice !== null && job.jobType === "FIXED" && job.fixedBudget !== null && job.fixedBudget < feed.minFixedPrice) return "minFixedPrice";
  if (feed.clientMinSpent !== null && job.clientTotalSpent !== null && job.clientTotalSpent < feed.clientMinSpent) return "clientMinSpent";
  if (job.platform !== "marketplace") return null; // the remaining filters are marketplace-only
  if (feed.jobTypes && job.jobType && !feed.jobTypes.has(job.jobType)) return "jobTypes";
  if (feed.usOnlyMode === "include" && job.usOnly !== true) return "usOnlyMode"; // unconfirmed restrictions are dropped too
  if (feed.usOnlyMode === "exclude" && job.usOnly === true) return "usOnlyMode";
  if (feed.paymentVerifiedOnly && job.paymentVerified === false) return "paymentVerifiedOnly"; // unknown payment status still enters
  if (job.hasClientStats) {
    if (feed.clientMinRating !== null && feed.clientMinRating > 0) {
      if (job.clientReviews === 0) return "clientMinRating"; // no reviews = unrated, below any floor above 0
      if (job.clientRating !== null && job.clientRating < feed.clientMinRating) return "clientMinRating";
    }
    if (feed.clientMinReviews !== null && job.clientReviews !== null && job.clientReviews < feed.clientMinReviews) return "clientMinReviews";
  }
  return null;
}

/** Every filter except the keywords, in the order cheapest first. */
export function passesFilters(feed: CompiledFeed, job: FilterableJob): boolean {
  return droppingFilter(feed, job) === null;
}

export interface MatchableJob extends NormalizedJob {
  firstSeenAtTs: number;
}

/** Per-job memo of term results by term id: 0 = not tested yet, 1 = present, 2 = absent. */
type TermMemo = Uint8Array | null;

function termHit(term: Term, text: KeywordText, memo: TermMemo): boolean {
  if (!memo || term.id < 0) return text.matches(term);
  let r = memo[term.id]!;
  if (r === 0) memo[term.id] = r = text.matches(term) ? 1 : 2;
  return r === 1;
}

/** The whole decision for one feed; the index below must agree with it (a property test checks). */
export function matchesFeed(feed: CompiledFeed, job: MatchableJob, text: JobText = new JobText(job), memo: TermMemo = null): boolean {
  if (feed.createdAtTs > job.firstSeenAtTs) return false; // no backfill: only jobs first seen after the feed existed
  return passesFilters(feed, job) && droppingKeywords(feed, text, memo) === null;
}

/** Whether the keywords drop the job: "includes" when none of them occurs, "excludes" when one of those does, else null. */
export function droppingKeywords(feed: Pick<CompiledFeed, "includes" | "excludes">, text: KeywordText, memo: TermMemo = null): "includes" | "excludes" | null {
  if (feed.includes.length > 0) {
    let hit = false;
    for (const t of feed.includes) if ((hit = termHit(t, text, memo))) break;
    if (!hit) return "includes";
  }
  for (const t of feed.excludes) if (termHit(t, text, memo)) return "excludes";
  return null;
}

/**
 * All feeds, indexed so a job is tested only against feeds that can match it:
 * feeds without `includes` (always candidates), and feeds with an include term
 * whose first word occurs in the job (exact words in a map; one-word prefixes
 * by binary search in the job's sorted words). Feeds live in numbered slots
 * and candidates are marked in a byte array, so no string hashing happens per
 * candidate; keywords are interned, so each distinct keyword is tested once
 * per job however many feeds use it. 1 job against 10,000 feeds: see
 * `bun run bench:match`.
 */
export class FeedIndex {
  /**
   * Whether every feed of the database is in. A server's index starts empty and unloaded, so start-up does not wait
   * for compiling every feed (docs/performance.md, 'Why the code is as it is'): syncFeedIndex loads it before the first
   * match. Writes before that are kept (the load reads the same committed rows); a match before it is a bug.
   */
  private loaded: boolean;
  private readonly slots: (CompiledFeed | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private readonly noIncludes = new Set<number>();
  private readonly byWord = new Map<string, number[]>();
  private readonly byPrefix = new Map<string, number[]>();
  private readonly terms = new Map<string, Term>();

  constructor(opts: { loaded?: boolean } = {}) {
    this.loaded = opts.loaded ?? true;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /** Makes the index hold exactly `rows` (every feed of the database), and counts it as loaded. */
  load(rows: readonly IndexedFeedRow[]): void {
    const live = new Set(rows.map((r) => r.id));
    for (const id of this.ids()) if (!live.has(id)) this.remove(id);
    for (const row of rows) this.upsert(row);
    this.loaded = true;
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** The ids of every indexed feed. */
  ids(): string[] {
    return [...this.slotOf.keys()];
  }

  get(id: string): CompiledFeed | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.slots[slot];
  }

  private intern = (keyword: string): Term | null => {
    const key = keyword.trim().toLowerCase();
    let term = this.terms.get(key);
    if (!term) {
      const parsed = parseTerm(keyword);
      if (!parsed) return null;
      term = { ...parsed, id: this.terms.size };
      this.terms.set(key, term);
    }
    return term;
  };

  upsert(row: IndexedFeedRow): void {
    this.remove(row.id);
    const feed = compileFeed(row, this.intern);
    const slot = this.freeSlots.pop() ?? this.slots.length;
    this.slots[slot] = feed;
    this.slotOf.set(feed.id, slot);
    if (feed.includes.length === 0) {
      this.noIncludes.add(slot);
      return;
    }
    for (const term of feed.includes) {
      const first = term.tokens[0]!;
      const map = term.prefix && term.tokens.length === 1 ? this.byPrefix : this.byWord;
      const list = map.get(first);
      if (list) list.push(slot);
      else map.set(first, [slot]);
    }
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const feed = this.slots[slot]!;
    this.slots[slot] = undefined;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
    this.noIncludes.delete(slot);
    for (const term of feed.includes) {
      const first = term.tokens[0]!;
      const map = term.prefix && term.tokens.length === 1 ? this.byPrefix : this.byWord;
      const list = map.get(first);
      if (!list) continue;
      const left = list.filter((s) => s !== slot);
      if (left.length) map.set(first, left);
      else map.delete(first);
    }
  }

  match(job: MatchableJob): CompiledFeed[] {
    if (!this.loaded) throw new Error("The feed index was matched before it was loaded: call syncFeedIndex first");
    const text = new JobText(job);
    const memo = new Uint8Array(this.terms.size);
    const marked = new Uint8Array(this.slots.length);
    const candidates: number[] = [...this.noIncludes];
    const mark = (slots: number[]) => {
      for (const s of slots) {
        if (marked[s] === 0) {
          marked[s] = 1;
          candidates.push(s);
        }
      }
    };
    for (const word of text.positions.keys()) {
      const slots = this.byWord.get(word);
      if (slots) mark(slots);
    }
    for (const [prefix, slots] of this.byPrefix) if (text.hasPrefix(prefix)) mark(slots);
    const out: CompiledFeed[] = [];
    for (const s of candidates) {
      const feed = this.slots[s]!;
      if (matchesFeed(feed, job, text, memo)) out.push(feed);
    }
    return out;
  }
}
