/**
 * Signals a job carries (issue 45), computed once at ingest from the job's text, its client's history in the
 * archive and the archive's prices, and stored on the archived job (jobs.signals): shown as flags on cards, alerts
 * and the job's clientScore.flags, and usable as a feed's rules (drop or warn, feeds/signal-rules.ts).
 */

/** The kinds of signal; a feed's signalRules are keyed by these. */
export const SIGNAL_IDS = ["repost", "ghost", "scam", "low-budget"] as const;
export type SignalId = (typeof SIGNAL_IDS)[number];

export interface JobSignal {
  id: SignalId;
  /** For a scam signal: which rule (src/ai/job-signals.ts ids, e.g. "off-platform"). */
  rule?: string;
  /** The flag in words, as cards and alerts show it ("Reposted: near-identical to a job of 12 Nov"). */
  say: string;
  /** For a repost: the earlier job, and whether anyone was hired on it (null: not known). */
  earlier?: { ciphertext: string; url: string; hired: boolean | null };
}

/** Reads a stored signals column back, dropping anything that is not a signal (a column written by an older version). */
export function signalsOf(stored: unknown): JobSignal[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (s): s is JobSignal =>
      !!s && typeof s === "object" && (SIGNAL_IDS as readonly string[]).includes((s as JobSignal).id) && typeof (s as JobSignal).say === "string",
  );
}

// ---------- computing them at ingest ----------
// Each threshold is stated once, here; docs/jobs-and-clients.md ("Signals") names them.

/** A repost is an earlier job of the same client (company id) posted within this many days... */
export const REPOST_WINDOW_DAYS = 30;
/** ...whose text is at least this similar: Jaccard similarity of the word 3-shingles of title + description. */
export const REPOST_MIN_SIMILARITY = 0.7;
/** Words per shingle (shingles() writes three), and the text compared at most (characters of title + description). */
const SHINGLE_WORDS = 3;
const SHINGLE_TEXT_MAX = 5000;
/** Earlier jobs read per client of a batch at most (the newest): bounds a prolific client's cost. */
export const REPOST_CANDIDATES_PER_CLIENT = 12;
/**
 * A first look, on titles alone (Jaccard of their word sets): only an earlier job whose title is at least this
 * alike has its description read and compared, so a client's other jobs cost no document parsing. A repost
 * keeps its title nearly as it was; one rewritten past this is not "near-identical".
 */
export const REPOST_TITLE_PREFILTER = 0.5;

/** A title's words, for the first look; remembered, since a client's recent titles are compared again each batch. */
export function titleWords(title: string): Set<string> {
  let words = titleMemo.get(title);
  if (!words) {
    if (titleMemo.size >= 20_000) titleMemo.clear();
    words = new Set(
      title
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean),
    );
    titleMemo.set(title, words);
  }
  return words;
}
const titleMemo = new Map<string, Set<string>>();
/** Low budget: a fixed price under this share of the median of similar jobs (jobs/price-sample.ts: PRICE_MIN_SAMPLE or more). */
export const LOW_BUDGET_SHARE = 1 / 3;
/** Outsized budget (scam rule "new-client-outsized"): a fixed price at least this many times the median of similar jobs. */
export const OUTSIZED_BUDGET_FACTOR = 3;
/** Urgency words of the "new-client-outsized" rule. */
const URGENCY =
  /\b(?:urgent(?:ly)?|asap|immediately|right away|right now|tonight|by tomorrow|within (?:\d+|twenty[- ]four) hours|need(?:ed)? (?:it )?today|start today)\b/;

const DAY_MS = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const dayOf = (ts: number) => `${new Date(ts).getUTCDate()} ${MONTHS[new Date(ts).getUTCMonth()]}`;
const usd = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;

/** The word shingles of a job's title and description (lower-cased, punctuation dropped); a short text is its words. */
export function shingles(title: string, description: string): Set<string> {
  const words = `${title} ${description}`
    .slice(0, SHINGLE_TEXT_MAX)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const out = new Set<string>();
  if (words.length < SHINGLE_WORDS) {
    for (const w of words) out.add(w);
    return out;
  }
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) out.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

/** |A ∩ B| / |A ∪ B|; two empty sets are not alike. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const s of small) if (large.has(s)) common++;
  return common / (a.size + b.size - common);
}

/** What the signals read of a new job (a NormalizedJob has it all). */
export interface SignalJob {
  ciphertext: string;
  title: string;
  description: string;
  skills: readonly string[];
  jobType: string | null;
  fixedBudget: number | null;
  companyId: string | null;
  publishTimeTs: number | null;
}

/** An earlier job of the same client the repost rule may point at. */
export interface RepostCandidate {
  ciphertext: string;
  url: string;
  postedAtTs: number;
  shingles: ReadonlySet<string>;
  /** Whether anyone was hired on it, as the archive last saw it (null: not known). */
  hired: () => Promise<boolean | null>;
}

export interface SignalContext {
  nowTs: number;
  /** The median fixed budget of the job's similar jobs (price-sample.ts), or null when too few are known. */
  median: (skill: string) => { median: number; n: number } | null;
  mainSkill: string | null;
  /** The client's earlier jobs (same company, REPOST_WINDOW_DAYS), newest first. */
  earlier: readonly RepostCandidate[];
  /** What the document says of the client (client-score.ts). */
  client: { noHires: string | null; withHires: number | null; spent: number | null; paymentVerified: boolean | null };
  /** The job's text scam rules (src/ai/job-signals.ts). */
  textRules: readonly { id: string; say: string }[];
}

/** Every signal of one new job, in SIGNAL_IDS order. Pure but for the candidates' hired() reads. */
export async function signalsOfJob(job: SignalJob, ctx: SignalContext): Promise<JobSignal[]> {
  const out: JobSignal[] = [];
  const postedAt = job.publishTimeTs ?? ctx.nowTs;
  let best: { c: RepostCandidate; sim: number } | null = null;
  // Shingled only when there is something to compare with (most jobs have no earlier job alike).
  const own = ctx.earlier.length > 0 ? shingles(job.title, job.description) : new Set<string>();
  for (const c of ctx.earlier) {
    if (c.ciphertext === job.ciphertext || c.postedAtTs > postedAt || postedAt - c.postedAtTs > REPOST_WINDOW_DAYS * DAY_MS) continue;
    // Jaccard is at most smaller ÷ larger: a pair of sizes too far apart cannot reach the threshold.
    const [small, large] = own.size <= c.shingles.size ? [own.size, c.shingles.size] : [c.shingles.size, own.size];
    if (small < large * REPOST_MIN_SIMILARITY) continue;
    const sim = jaccard(own, c.shingles);
    if (sim >= REPOST_MIN_SIMILARITY && (best === null || sim > best.sim)) best = { c, sim };
  }
  if (best) {
    const hired = await best.c.hired();
    const outcome = hired === null ? "" : hired ? " (someone was hired)" : " (no hire)";
    out.push({
      id: "repost",
      say: `Reposted: near-identical to a job of ${dayOf(best.c.postedAtTs)}${outcome}`,
      earlier: { ciphertext: best.c.ciphertext, url: best.c.url, hired },
    });
  }
  if (ctx.client.noHires !== null) out.push({ id: "ghost", say: `Ghost client: ${ctx.client.noHires.charAt(0).toLowerCase()}${ctx.client.noHires.slice(1)}` });
  for (const r of ctx.textRules) out.push({ id: "scam", rule: r.id, say: `Scam risk: ${r.say}` });
  const price = job.jobType === "FIXED" && job.fixedBudget !== null && job.fixedBudget > 0 && ctx.mainSkill !== null ? ctx.median(ctx.mainSkill) : null;
  if (price && job.fixedBudget !== null) {
    const text = `${job.title} ${job.description}`.toLowerCase();
    const { client } = ctx;
    // A client with nothing behind them, a budget far above the going rate and a rush: the classic bait.
    if (
      job.fixedBudget >= price.median * OUTSIZED_BUDGET_FACTOR &&
      client.paymentVerified === false &&
      (client.spent ?? 0) === 0 &&
      (client.withHires ?? 0) === 0 &&
      URGENCY.test(text)
    ) {
      out.push({
        id: "scam",
        rule: "new-client-outsized",
        say: `Scam risk: new unverified client, urgent, offering ${usd(job.fixedBudget)} against a ${usd(price.median)} median for ${ctx.mainSkill} jobs`,
      });
    }
    if (job.fixedBudget < price.median * LOW_BUDGET_SHARE) {
      out.push({
        id: "low-budget",
        say: `Low budget: ${usd(job.fixedBudget)} against a ${usd(price.median)} median for ${price.n} similar ${ctx.mainSkill} jobs`,
      });
    }
  }
  // SIGNAL_IDS order, so cards and alerts list them alike whatever found them first.
  return out.sort((a, b) => SIGNAL_IDS.indexOf(a.id) - SIGNAL_IDS.indexOf(b.id));
}

/** The flags a card or an alert line shows: "⚠ Reposted: …". */
export function flagLines(signals: readonly JobSignal[]): string[] {
  return signals.map((s) => `⚠ ${s.say}`);
}

/**
 * A client score with the job's signals added to its flags, in words: the job page and GET /api/v1/jobs show one
 * list. The ghost signal is left out, being the score's own "No hires after N jobs posted" flag.
 */
export function withSignalFlags<T extends { flags: string[] }>(score: T, signals: readonly JobSignal[]): T {
  const extra = signals.filter((s) => s.id !== "ghost").map((s) => s.say);
  return extra.length === 0 ? score : { ...score, flags: [...score.flags, ...extra] };
}
