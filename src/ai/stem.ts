/**
 * Word normalisation for the local scorer: which tokens carry meaning, and a
 * compact Porter-style English stemmer so that "developer", "developing" and
 * "development" meet as one stem and "dashboards" meets "dashboard".
 *
 * The stemmer follows the shape of Porter's algorithm (measure-based suffix
 * steps) with a few relaxations that suit job text: "-ly" after common
 * letters, "-er" on short stems ("tester" → "test") and a final "e" always
 * dropped, so "scraper", "scraping" and "scrape" meet. Technical names
 * ("node", "rails", "kubernetes") and tokens with digits, `+` or `#` ("k8s",
 * "c++", "c#") are never stemmed. Prompt and job go through the same function,
 * so an odd stem ("engin") is harmless: both sides produce it.
 *
 * Also here, being knowledge about words rather than scoring: term weights
 * (heuristic and IDF), the small word lists the scorer uses to read
 * negations in a prompt, and `stemsOf` for maintaining corpus statistics.
 */
import { tokenize } from "../lib/text";

/** Longest text read from one field; a 100 KB description is read whole. */
export const MAX_TEXT_CHARS = 120_000;

/** English function words: they say nothing about which job fits. Matched on the raw token. */
const STOPWORDS = new Set(
  (
    "a about above after again against all almost along already also although always am among an and another any anybody anyone " +
    "anything anyway anywhere are around as at be became because become been before being below between both but by can cannot " +
    "could d did didn do does doesn doing don done down during each either else enough etc even ever every everyone everything " +
    "few for from further get gets getting got had has have having he her here hers herself him himself his how however i ie if " +
    "in into is isn it its itself just least less let ll m may me might mine more most much must my myself neither no nobody " +
    "none nor not nothing now of off often on once one only onto or other others otherwise our ours ourselves out over own per " +
    "perhaps please quite rather re s same shall she should since so some somebody something sometimes somewhat still such t " +
    "than that the their theirs them themselves then there these they this those though through thus to too toward towards " +
    "under until up upon us ve very via was we well were what whatever when whenever where whether which while who whom whose " +
    "why will with within without won would yet you your yours yourself yourselves early eg"
  ).split(" "),
);

/**
 * Words people put in a profile prompt that describe the wish, not the job:
 * "looking for", "ideal", "years of experience". Matched on the stem, so
 * "prefers", "preferred" and "preferably" all drop.
 */
const FILLER_WORDS =
  "looking look seeking seek ideal ideally job jobs client clients work working experience experienced years year yrs " +
  "prefer prefers preferred preferably want wants wanted someone somebody need needs needed like likes love enjoy " +
  "interested interest role roles position opportunity opportunities gig gigs person candidate kind type thing things " +
  "stuff really lot lots mostly mainly especially particularly including include etc plus bonus nice good great " +
  "strong solid ok okay fine happy willing able ready open welcome im";

/**
 * Words that are real job vocabulary but appear in almost every post
 * ("developer", "senior", "project"). Kept, but weighted low when no corpus
 * statistics are available.
 */
const GENERIC_WORDS =
  "senior junior mid lead developer development engineer engineering programmer expert specialist professional freelancer " +
  "consultant team project build building create make help app apps application applications web website site software " +
  "system solution remote company business product service support tool platform code coding task manage long term short " +
  "full part time hour hourly fixed price budget contract start new existing quality fast small large simple skill skills " +
  "knowledge communication english day week month based level high best top update improve feature page user modern " +
  "current various multiple end front back side longterm shortterm fulltime parttime";

/**
 * Technical names kept exactly as written (never stemmed) and weighted high by
 * the built-in heuristic. Not exhaustive: any token with a digit, `+` or `#`
 * is treated the same way.
 */
const TECH_WORDS =
  "react reactjs angular vue vuejs svelte node nodejs js javascript ts typescript python java ruby rails django flask " +
  "fastapi laravel php go golang rust swift kotlin flutter dart scala elixir haskell clojure perl lua sql nosql postgres " +
  "postgresql mysql sqlite mongodb redis elasticsearch kafka rabbitmq spark hadoop airflow dbt snowflake bigquery aws azure " +
  "gcp docker kubernetes terraform ansible jenkins linux unix bash graphql grpc nextjs nuxt express nestjs tailwind html " +
  "css sass webpack vite jest cypress playwright selenium electron tauri ios android swiftui xamarin unity unreal godot " +
  "solidity ethereum blockchain web3 tensorflow pytorch keras pandas numpy scipy opencv llm llms gpt openai langchain nlp " +
  "shopify wordpress woocommerce magento webflow wix bubble figma sketch photoshop illustrator excel vba salesforce hubspot " +
  "zapier airtable notion stripe twilio firebase supabase heroku vercel netlify nginx apache devops sre fintech saas " +
  "crm erp seo sem ppc ui ux api apis rest dotnet csharp fsharp matlab stata tableau powerbi looker jira wasm webassembly";

/** Tokens whose one-letter or everyday spelling is ambiguous in prose ("go live"): description-only matches count less. */
export const AMBIGUOUS = new Set(["go", "c", "r", "ts", "swift", "rust", "rest", "express", "unity", "bubble", "sketch", "notion", "spark"]);

/**
 * Spellings of one technology that should match each other. Kept out of
 * stemming (stemsOf("k8s") stays "k8s") and applied when matching.
 */
const ALIAS_GROUPS: string[][] = [
  ["js", "javascript"],
  ["ts", "typescript"],
  ["go", "golang"],
  ["k8s", "kubernetes"],
  ["postgres", "postgresql"],
  ["react", "reactjs"],
  ["node", "nodejs"],
  ["vue", "vuejs"],
  ["c#", "csharp"],
  ["llm", "llms"],
  ["api", "apis"],
];

const TECH = new Set(TECH_WORDS.split(" "));

// ---------------------------------------------------------------- stemmer

function isConsonant(w: string, i: number): boolean {
  const ch = w[i];
  if (ch === "a" || ch === "e" || ch === "i" || ch === "o" || ch === "u") return false;
  if (ch === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's measure m: the number of vowel-consonant runs in w[0, end). */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    while (i < end && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

/** consonant-vowel-consonant at the end of w[0, end), last not w/x/y: "hop" → "hope". */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  const last = w[end - 1];
  return isConsonant(w, end - 3) && !isConsonant(w, end - 2) && isConsonant(w, end - 1) && last !== "w" && last !== "x" && last !== "y";
}

type Rule = readonly [suffix: string, replacement: string];
/** Rules grouped by the suffix's last letter, in their original order: a word is checked only against rules that can match. */
type RuleTable = Map<string, Rule[]>;

function byLastLetter(rules: readonly Rule[]): RuleTable {
  const table: RuleTable = new Map();
  for (const rule of rules) {
    const last = rule[0][rule[0].length - 1]!;
    table.set(last, [...(table.get(last) ?? []), rule]);
  }
  return table;
}

/** Applies the first rule whose suffix matches, if the remaining stem has measure > min. */
function applyRules(w: string, table: RuleTable, min: number): string {
  const rules = table.get(w[w.length - 1]!);
  if (!rules) return w;
  for (let i = 0; i < rules.length; i++) {
    const [suffix, replacement] = rules[i]!;
    if (!w.endsWith(suffix)) continue;
    const stemEnd = w.length - suffix.length;
    return measure(w, stemEnd) > min ? w.slice(0, stemEnd) + replacement : w;
  }
  return w;
}

const STEP2 = byLastLetter([
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
]);
const STEP3 = byLastLetter([
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
]);
const STEP4 = byLastLetter(
  ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"]
    // Longest suffix first, so "ement" is tried before "ment" and "ent".
    .sort((a, b) => b.length - a.length)
    .map((suffix) => [suffix, ""] as const),
);
/** Letters after which "-li" (from "-ly") is a suffix: "monthly", "hourly", "friendly"; not "family" or "apply". */
const LI_ENDING = new Set(["c", "d", "e", "g", "h", "k", "m", "n", "r", "t"]);

/** Stems one lower-case a–z word. */
function porterStem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;

  // Step 1a: plurals.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);

  // Step 1b: -ed, -ing.
  if (w.endsWith("eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else {
    const cut = w.endsWith("ed") ? 2 : w.endsWith("ing") ? 3 : 0;
    if (cut && hasVowel(w, w.length - cut) && w.length - cut >= 2) {
      w = w.slice(0, -cut);
      if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
      else if (w.length > 2 && w[w.length - 1] === w[w.length - 2] && isConsonant(w, w.length - 1) && !"lsz".includes(w[w.length - 1]!)) {
        w = w.slice(0, -1);
      } else if (measure(w, w.length) === 1 && endsCvc(w, w.length)) w += "e";
    }
  }

  // Step 1c: terminal y after a vowel-bearing stem becomes i. (Never within the first two letters: the scorer relies on
  // a stem starting with its word's first two letters.)
  if (w.length > 2 && w.endsWith("y") && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i";

  // Step 2 (plus "-ly"): double suffixes to single ones.
  const before2 = w;
  w = applyRules(w, STEP2, 0);
  if (w === before2 && w.endsWith("li") && w.length > 4 && LI_ENDING.has(w[w.length - 3]!) && measure(w, w.length - 2) > 0) {
    w = w.slice(0, -2);
  }

  // Step 3.
  w = applyRules(w, STEP3, 0);

  // Step 4: drop derivational suffixes from stems of measure > 1 ("-er" also from short stems: "tester").
  for (const [suffix] of STEP4.get(w[w.length - 1]!) ?? []) {
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    const m = measure(w, end);
    const ok = suffix === "ion" ? m > 1 && (w[end - 1] === "s" || w[end - 1] === "t") : m > 1 || (suffix === "er" && m === 1 && end >= 4);
    if (ok) w = w.slice(0, end);
    break;
  }

  // Step 5: final e and double l.
  if (w.endsWith("e") && measure(w, w.length - 1) >= 1) w = w.slice(0, -1);
  if (w.endsWith("ll") && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------- tokens → stems

const ASCII_WORD = /^[a-z]+$/;
/** Bare numbers, also "5+": "8 years" says nothing once "years" is filler. */
const DIGITS = /^[0-9]+[+#]*$/;
/** One-letter tokens that are languages; every other single letter is noise ("e.g.", "i.e."). */
const ONE_LETTER_TERMS = new Set(["c", "r"]);
const MAX_STEMMED_LENGTH = 30;

const memo = new Map<string, string>();
const MEMO_LIMIT = 50_000;

/** The stem of one token, keeping technical tokens intact; no stopword handling. */
function stemWord(token: string): string {
  if (token.length > MAX_STEMMED_LENGTH || !ASCII_WORD.test(token) || TECH.has(token)) return token;
  const word = americanSpelling(token);
  // "news" is not the plural of "new": stemming it so made every news site match "new site builds".
  return KEEP_S.has(word) ? word : porterStem(word);
}

/** Words whose final "s" is not a plural. */
export const KEEP_S = new Set(["news", "series", "species", "physics", "mathematics", "economics", "logistics", "ethics", "aws", "ios", "js"]);

const BRITISH_IZE =
  /^(optim|organ|custom|visual|priorit|real|recogn|standard|util|minim|maxim|monet|summar|synchron|author|categor|final|special|personal|local|initial|serial|normal|sanit|modern|central|emphas|capital|digit|memor|stabil|character|industrial|commercial|global|container|virtual|tokens?|moderni|anonym|parameter|rational|harmon|revital)is(e|es|ed|ing|er|ers|ation|ations)$/;
const BRITISH_OUR = /^(colo|behavio|favo|flavo|hono|labo|neighbo|humo|harbo|endeavo)ur(s|ed|ing|ite|ites|ful)?$/;
const BRITISH_WHOLE = new Map([
  ["analyse", "analyze"],
  ["analysed", "analyzed"],
  ["analysing", "analyzing"],
  ["catalogue", "catalog"],
  ["catalogues", "catalogs"],
  ["centre", "center"],
  ["centres", "centers"],
  ["licence", "license"],
  ["licences", "licenses"],
  ["programme", "program"],
  ["programmes", "programs"],
  ["dialogue", "dialog"],
  ["defence", "defense"],
  ["travelling", "traveling"],
  ["modelling", "modeling"],
  ["labelling", "labeling"],
  ["cancelled", "canceled"],
]);

/** The American spelling of a British one ("optimisation" → "optimization", "colour" → "color"), so both meet. */
export function americanSpelling(token: string): string {
  const whole = BRITISH_WHOLE.get(token);
  if (whole) return whole;
  if (token.length > 5 && token.includes("is")) {
    const m = BRITISH_IZE.exec(token);
    if (m) return `${m[1]}iz${m[2]}`;
  }
  if (token.endsWith("ur") || token.includes("our")) {
    const m = BRITISH_OUR.exec(token);
    if (m) return `${m[1]}r${m[2] ?? ""}`;
  }
  return token;
}

const FILLER_STEMS = new Set(FILLER_WORDS.split(" ").map(stemWord));
export const GENERIC_STEMS = new Set(GENERIC_WORDS.split(" ").map(stemWord));

/**
 * The content stem of a token from `tokenize`, or "" when it carries no
 * meaning (stopword, filler, bare number, stray letter). Memoised because job
 * text repeats the same few thousand words.
 */
export function contentStem(token: string): string {
  const known = memo.get(token);
  if (known !== undefined) return known;
  let stem = "";
  if (STOPWORDS.has(token) || DIGITS.test(token)) stem = "";
  else if (token.length === 1 && !ONE_LETTER_TERMS.has(token)) stem = "";
  else {
    const s = stemWord(token);
    stem = FILLER_STEMS.has(s) ? "" : s;
  }
  if (token.length <= MAX_STEMMED_LENGTH) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(token, stem);
  }
  return stem;
}

/** stem → the stems of its other spellings ("k8s" → ["kubernetes"]). */
export const ALIASES = new Map<string, string[]>();
for (const group of ALIAS_GROUPS) {
  const stems = group.map(stemWord);
  for (const s of stems)
    ALIASES.set(
      s,
      stems.filter((o) => o !== s),
    );
}

/** A technology name or a token with a digit, `+` or `#` ("k8s", "c++"). */
export function isTechnical(token: string): boolean {
  return TECH.has(token) || /[0-9+#]/.test(token);
}

/**
 * A technology's name as written ("react", "k8s", "c++", "ga4"), not a bare number: what the claim check holds
 * a letter to. Domains ("saas", "fintech") are not technologies a freelancer claims to use.
 */
export function isTechName(token: string): boolean {
  if (DOMAIN_WORDS.has(token)) return false;
  return TECH.has(token) || (/[a-z]/.test(token) && /[a-z][0-9]|[+#]/.test(token));
}
const DOMAIN_WORDS = new Set(["saas", "fintech", "crm", "erp", "api", "apis", "rest", "ui", "ux", "seo", "sem", "ppc", "devops", "sre", "llm", "llms", "web3"]);

/** Heuristic weight of a prompt term when no corpus statistics exist: technical and long words above short common ones. */
export function heuristicWeight(stem: string, token: string): number {
  if (GENERIC_STEMS.has(stem)) return 0.5;
  if (isTechnical(token)) return 2.4;
  if (token.length <= 3) return 1.8; // what survives the stopword list at this length is mostly acronyms: sql, seo, ux
  let weight = 1;
  if (stem.length >= 6) weight += 0.3;
  if (stem.length >= 8) weight += 0.3;
  if (stem.length >= 10) weight += 0.3;
  return weight;
}

/** Corpus size at which IDF and the heuristic weigh equally: a tiny archive gives noisy IDF. */
const IDF_HALF_DOCS = 20;

/**
 * A term's weight given corpus statistics: IDF = ln((N+1)/(df+1)) + 1, blended
 * with the heuristic weight while the archive is small. Odd statistics (NaN,
 * negative, df > N, a throwing docFreq) fall back gracefully.
 */
export function corpusWeight(stem: string, heuristic: number, stats?: { totalDocs: number; docFreq(stem: string): number }): number {
  const n = stats && Number.isFinite(stats.totalDocs) && stats.totalDocs > 0 ? stats.totalDocs : 0;
  if (n === 0) return heuristic;
  // A technology's spellings share one frequency: the most common spelling is the honest estimate.
  let df = 0;
  for (const s of [stem, ...(ALIASES.get(stem) ?? [])]) {
    try {
      const d = Number(stats!.docFreq(s));
      if (Number.isFinite(d) && d > df) df = d;
    } catch {
      // An unreadable frequency counts as unseen.
    }
  }
  const idf = Math.log((n + 1) / (Math.min(df, n) + 1)) + 1;
  const share = n / (n + IDF_HALF_DOCS);
  return share * idf + (1 - share) * heuristic;
}

// ---------------------------------------------------------------- prompt words

export const NEGATORS = new Set([
  "no",
  "not",
  "without",
  "avoid",
  "avoiding",
  "except",
  "excluding",
  "exclude",
  "never",
  "nor",
  "neither",
  "none",
  "nothing",
  "dislike",
]);
/** "don't", "won't": the tokenizer splits them into "don" + "t". */
export const NEGATED_AUX = new Set(["don", "doesn", "didn", "won", "wouldn", "isn", "aren", "can"]);
/** "not only", "no more than", "no problem": not a negation of what follows. */
export const NOT_A_NEGATION = new Set([
  "only",
  "just",
  "necessarily",
  "limited",
  "exclusively",
  "less",
  "more",
  "fewer",
  "later",
  "longer",
  "matter",
  "problem",
]);
/** Words that end a negative scope: contrast always, wishes once the scope has a term ("no PHP, want React"). */
export const CONTRAST = new Set(["but", "however", "though", "although", "whereas", "instead", "rather", "yet", "while"]);
export const WISH = new Set(
  "want wants like love prefer prefers preferred preferably ideally ideal looking seeking need needs plus bonus ok okay fine welcome great good only especially mainly mostly".split(
    " ",
  ),
);
/** "node.js", "vue.js": the "js" belongs to the name before it. */
export const JS_OWNERS = new Set(["node", "vue", "react", "next", "express", "nest", "three", "d3", "angular", "ember", "backbone", "alpine", "svelte"]);

// Sentence and clause ends; "." and ":" only before whitespace so "node.js" survives.
export const CLAUSE_BREAK = /[;!?\n\r()[\]{}]|[.:](?=\s|$)|\s[-–—]+\s/u;
export const LIST_BREAK = /[/|•·]/;

/**
 * A negation may run on past a comma only through a list closed by "or"/"nor"
 * or a final ", and …" ("avoid crypto, gambling or adult content"), and only
 * through short items without a wish in them. Returns the last segment it covers.
 */
export function listEnd(segments: string[][][], from: number): number {
  for (let j = from + 1; j < segments.length; j++) {
    const tokens = segments[j]!.flat();
    const content = tokens.filter((t) => contentStem(t)).length;
    if (content > 3 || tokens.some((t) => WISH.has(t) || CONTRAST.has(t))) return from;
    if (tokens.includes("or") || tokens.includes("nor") || tokens[0] === "and") return j;
  }
  return from;
}

// ---------------------------------------------------------------- hyphenated words and stemsOf

/** "front-end" → "frontend", "no-code" → "nocode": a hyphenated word is one term (digits stay apart: "8-year"). */
export const HYPHEN_JOIN = /(\p{L}[\p{L}\p{N}]*)-(?=\p{L})/gu;
export const HYPHENATED = /\p{L}[\p{L}\p{N}]*(?:-\p{L}[\p{L}\p{N}]*)+/gu;

/** The stems a text contributes (after stopwords), for maintaining CorpusStats. */
export function stemsOf(text: string): Set<string> {
  const stems = new Set<string>();
  const source = typeof text === "string" ? text.slice(0, MAX_TEXT_CHARS) : "";
  for (const raw of tokenize(source)) {
    const stem = contentStem(raw);
    if (stem) stems.add(stem);
  }
  // Hyphenated words also count joined, as the scorer reads "front-end" in a prompt.
  for (const [word] of source.matchAll(HYPHENATED)) {
    const stem = contentStem(tokenize(word).join(""));
    if (stem) stems.add(stem);
  }
  return stems;
}
