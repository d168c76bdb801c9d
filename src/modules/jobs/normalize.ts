/**
 * Job normaliser: validates an incoming job document and extracts the columns
 * the feed filters run on. Every ingested job passes through here, so it is a
 * pure function over plain property reads (no cloning, regexes compiled once).
 *
 * Each field is read from all its locations (docs/reference/marketplace-data.md
 * §1.6) in one priority order: authenticated details, public details, search
 * tile (`jobTile.job` + `upworkHistoryData.client`), then feed-tile style
 * top-level fields. Values that are null, `ExecutionAborted` or unusable fall
 * through to the next location. Tri-state rules follow §1.7.
 */
import { normalizeCountry } from "../../lib/countries";
import { sha256Hex } from "../../lib/hash";
import { CIPHERTEXT_RE, CIPHERTEXT_RULE } from "../../lib/ids";
import { checkWebUrl } from "../../lib/web-url";
import { PLATFORMS, type JobType, type Platform } from "../../db/enums";
import type { JobDocument } from "../../sources/document";
import {
  currencyCode,
  detailRoots,
  first,
  firstNum,
  firstStr,
  idStr,
  isAborted,
  isCount,
  isNonNegative,
  isPositive,
  isRating,
  jobType as jobTypeOf,
  num,
  obj,
  paymentVerified,
  str,
  timestamp,
  type Obj,
} from "../../lib/json-readers";

export interface NormalizedJob {
  ciphertext: string;
  jobUid: string | null;
  platform: Platform;
  title: string;
  description: string;
  skills: string[];
  url: string;
  jobType: JobType | null;
  hourlyMin: number | null;
  hourlyMax: number | null;
  fixedBudget: number | null;
  currency: string | null;
  clientCountry: string | null;
  clientTotalSpent: number | null;
  paymentVerified: boolean | null;
  clientRating: number | null;
  clientReviews: number | null;
  hasClientStats: boolean;
  usOnly: boolean | null;
  contactEmails: string[];
  emailFound: boolean;
  publishTimeTs: number | null;
  companyId: string | null;
  engagementWeeks: number | null;
  engagementLabel: string | null;
  screeningQuestions: { position: number; question: string }[];
  exploredAt: number | null;
}

/** A value the normaliser left out instead of rejecting the job, and why; ingest archives the field as null. */
export interface NormalizeNote {
  field: "url";
  note: string;
}

export type NormalizeResult = { ok: true; job: NormalizedJob; notes: NormalizeNote[] } | { ok: false; error: string };

const MAX_TITLE_LENGTH = 500;
const MAX_DESCRIPTION_LENGTH = 100_000;
const MAX_CIPHERTEXT_LENGTH = 100;
const MAX_URL_LENGTH = 2048;
const MAX_EMAILS = 20;

type Maybe = Obj | undefined;

/** The value when it carries information: not undefined, null or aborted. */
function present(v: unknown): unknown {
  return v === null || v === undefined || isAborted(v) ? undefined : v;
}

const anyNumber = () => true;

export function normalizeJob(doc: unknown, opts?: { nowTs?: number }): NormalizeResult {
  try {
    return normalizeUnchecked(doc, opts);
  } catch (err) {
    // Property reads cannot throw on JSON, but a caller may pass objects with throwing getters.
    return { ok: false, error: `document could not be read: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function normalizeUnchecked(input: unknown, opts?: { nowTs?: number }): NormalizeResult {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: "document must be a JSON object" };
  }
  const doc = input as JobDocument & Obj;

  const platformValue = doc.platform;
  if (platformValue !== undefined && platformValue !== null && !PLATFORMS.includes(platformValue as Platform)) {
    return { ok: false, error: `platform must be one of ${PLATFORMS.join(", ")}` };
  }
  const platform: Platform = (platformValue as Platform | null | undefined) ?? "marketplace";

  const title = typeof doc.title === "string" ? doc.title.trim() : "";
  if (title === "") return { ok: false, error: "title must be a non-empty string" };
  if (title.length > MAX_TITLE_LENGTH) return { ok: false, error: `title must be at most ${MAX_TITLE_LENGTH} characters` };
  const description = typeof doc.description === "string" ? doc.description.trim() : "";
  if (description === "") return { ok: false, error: "description must be a non-empty string" };
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return { ok: false, error: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters` };
  }
  if (doc.url !== undefined && doc.url !== null && typeof doc.url !== "string") return { ok: false, error: "url must be a string" };
  let url = str(doc.url);
  if (url !== undefined && url.length > MAX_URL_LENGTH) return { ok: false, error: `url must be at most ${MAX_URL_LENGTH} characters` };
  const notes: NormalizeNote[] = [];
  if (url !== undefined) {
    // A javascript: or data: link is not worth losing the job over: it is left out, as if none were given.
    const checked = checkWebUrl(url);
    if ("problem" in checked) {
      notes.push({ field: "url", note: `url dropped: ${checked.problem}` });
      url = undefined;
    }
  }

  // The sections, each possibly absent. `opening.job` is the auth body's job; the
  // public body keeps the same fields directly on `opening`.
  const { auth, pub } = detailRoots(doc);
  const authOpening = obj(auth?.opening);
  const authJob = obj(authOpening?.job);
  const pubOpening = obj(pub?.opening);
  const authBuyer = obj(auth?.buyer);
  const authInfo = obj(authBuyer?.info);
  const pubBuyer = obj(pub?.buyer);
  const tile = obj(obj(doc.jobTile)?.job);
  const tileClient = obj(obj(doc.upworkHistoryData)?.client);
  const client = obj(doc.client);

  const authJobInfo = obj(authJob?.info) ?? obj(authOpening?.info);
  const pubInfo = obj(pubOpening?.info);

  // Ciphertext and identity.
  const cipherCandidates = [authJobInfo?.ciphertext, pubInfo?.ciphertext, tile?.ciphertext, tile?.cipherText, doc.ciphertext];
  const rawCipher = cipherCandidates.find((c) => present(c) !== undefined);
  let ciphertext: string;
  if (rawCipher !== undefined) {
    if (typeof rawCipher !== "string" || !rawCipher.startsWith("~")) return { ok: false, error: 'ciphertext must be a string starting with "~"' };
    if (rawCipher.length > MAX_CIPHERTEXT_LENGTH) return { ok: false, error: `ciphertext must be at most ${MAX_CIPHERTEXT_LENGTH} characters` };
    if (!CIPHERTEXT_RE.test(rawCipher)) return { ok: false, error: `ciphertext must be ${CIPHERTEXT_RULE}` };
    ciphertext = rawCipher;
  } else if (platform === "marketplace") {
    return { ok: false, error: "ciphertext is required for a marketplace job (jobTile.job.ciphertext, opening.info.ciphertext or ciphertext)" };
  } else {
    const key = firstStr([doc.id]) ?? url;
    if (key === undefined) return { ok: false, error: `id or url is required for a ${platform} job` };
    const digest = sha256Hex(`${platform}:${key}`);
    ciphertext = `~${platform === "web" ? "w" : "p"}${digest.slice(0, 20)}`;
  }

  const jobUid = platform === "marketplace" ? marketplaceUid(ciphertext, [authJobInfo?.id, pubInfo?.id, tile?.id, doc.id]) : null;

  // Job type and budget. A fixed job's 0–0 hourly stub and an hourly job's 0.0
  // budget are dropped by the `> 0` rule; a positive value of the other kind is
  // dropped too, because the filters compare hourly rates only on hourly jobs.
  const jobType = jobTypeOf(authJobInfo?.type) ?? jobTypeOf(pubInfo?.type) ?? jobTypeOf(tile?.jobType) ?? jobTypeOf(doc.type) ?? jobTypeOf(doc.jobType);
  const authBudgetInfo = obj(authJob?.extendedBudgetInfo);
  const pubBudgetInfo = obj(pubOpening?.extendedBudgetInfo);
  const feedHourly = obj(doc.hourlyBudget);
  let hourlyMin = firstNum(
    [authBudgetInfo?.hourlyBudgetMin, pubBudgetInfo?.hourlyBudgetMin, tile?.hourlyBudgetMin, feedHourly?.min, doc.hourlyBudgetMin],
    isPositive,
  );
  let hourlyMax = firstNum(
    [authBudgetInfo?.hourlyBudgetMax, pubBudgetInfo?.hourlyBudgetMax, tile?.hourlyBudgetMax, feedHourly?.max, doc.hourlyBudgetMax],
    isPositive,
  );
  const authBudget = obj(authJob?.budget);
  const pubBudget = obj(pubOpening?.budget);
  const tileFixed = obj(tile?.fixedPriceAmount);
  const feedAmount = obj(doc.amount);
  let fixedBudget = firstNum([authBudget?.amount, pubBudget?.amount, tileFixed?.amount, doc.amount, doc.fixedBudget], isPositive);
  if (jobType === "FIXED") hourlyMin = hourlyMax = null;
  if (jobType === "HOURLY") fixedBudget = null;
  // The first code given decides; one that is not three letters makes the currency unknown rather than falling through.
  const currency = currencyCode(
    firstStr([authBudget?.currencyCode, pubBudget?.currencyCode, tileFixed?.isoCurrencyCode, feedAmount?.currencyCode, feedAmount?.currency, doc.currency]),
  );

  // Client.
  const authStats = obj(authInfo?.stats);
  const pubStats = obj(pubBuyer?.stats);
  const clientLocation = obj(client?.location);
  let clientCountry: string | null = null;
  for (const c of [obj(authInfo?.location)?.country, obj(pubBuyer?.location)?.country, tileClient?.country, clientLocation?.country, client?.country]) {
    clientCountry = typeof c === "string" ? normalizeCountry(c) : null;
    if (clientCountry !== null) break;
  }
  const clientTotalSpent = firstNum([authStats?.totalCharges, pubStats?.totalCharges, tileClient?.totalSpent, client?.totalSpent], isNonNegative);
  const paymentVerifiedValue = first(
    [
      authBuyer?.isPaymentMethodVerified,
      obj(pub?.buyerExtra)?.isPaymentMethodVerified,
      pubBuyer?.isPaymentMethodVerified,
      tileClient?.paymentVerificationStatus,
      client?.paymentVerificationStatus,
      client?.paymentVerified,
    ],
    paymentVerified,
  );
  const clientRating = firstNum([authStats?.score, pubStats?.score, tileClient?.totalFeedback, client?.totalFeedback, client?.rating], isRating);
  const clientReviews = firstNum([authStats?.feedbackCount, pubStats?.feedbackCount, tileClient?.totalReviews, client?.totalReviews], isCount);
  // "No stats on record" lets a job through the rating filter, so a stats object
  // whose every value is null counts as no stats, like a missing one.
  const hasClientStats = clientRating !== null || clientReviews !== null || hasAnyValue(authStats) || hasAnyValue(pubStats);
  const companyId = firstStr([obj(authInfo?.company)?.companyId, obj(pubBuyer?.company)?.companyId, client?.companyOrgUid, tileClient?.companyOrgUid]) ?? null;

  const usOnly = usOnlyOf(doc, auth, authOpening, pub);

  // Timing and engagement.
  const publishTimeTs = firstNum(
    [
      authJob?.publishTime,
      authJob?.postedOn,
      pubOpening?.publishTime,
      pubOpening?.postedOn,
      tile?.publishTime,
      tile?.createTime,
      doc.publishedOn,
      doc.publishedDateTime,
      doc.publishTime,
      doc.jobTs,
      doc.createdOn,
    ],
    anyNumber,
    timestamp,
  );
  const durations = [
    authJob?.engagementDuration,
    pubOpening?.engagementDuration,
    tile?.hourlyEngagementDuration,
    tile?.fixedPriceEngagementDuration,
    doc.engagementDuration,
  ].map(obj);
  const engagementWeeks = firstNum(
    durations.map((d) => d?.weeks),
    isNonNegative,
  );
  const engagementLabel = firstStr([...durations.map((d) => d?.label), doc.durationLabel]) ?? null;

  const screeningQuestions = questionsOf(doc.screeningQuestions);
  const exploredAt = timestamp(doc.exploredAt) ?? (typeof opts?.nowTs === "number" && Number.isFinite(opts.nowTs) ? opts.nowTs : null);

  const skills = skillsOf(doc.ontologySkills, obj(authJob?.sandsData), obj(pubOpening?.sandsData));
  const contactEmails = extractEmails(typeof doc.contactEmail === "string" ? `${doc.contactEmail}\n${description}` : description);

  const marketplaceUrl = platform === "marketplace" ? `https://www.upwork.com/jobs/${ciphertext}` : "";
  const questions = screeningQuestions.length > 0 ? screeningQuestions : questionsOf(authOpening?.questions);
  const job: NormalizedJob = {
    ciphertext,
    jobUid,
    platform,
    title,
    description,
    skills,
    url: url ?? marketplaceUrl,
    jobType,
    hourlyMin,
    hourlyMax,
    fixedBudget,
    currency,
    clientCountry,
    clientTotalSpent,
    paymentVerified: paymentVerifiedValue,
    clientRating,
    clientReviews,
    hasClientStats,
    usOnly,
    contactEmails,
    emailFound: contactEmails.length > 0,
    publishTimeTs,
    companyId,
    engagementWeeks,
    engagementLabel,
    screeningQuestions: questions,
    exploredAt,
  };
  return { ok: true, job, notes };
}

const DIGITS = /^\d{1,30}$/;

/** Numeric opening id: an explicit numeric id, else the digits of a current `~02<id>` ciphertext. */
function marketplaceUid(ciphertext: string, ids: unknown[]): string | null {
  const id = ids.map(idStr).find((v) => v !== undefined && DIGITS.test(v));
  if (id !== undefined) return id;
  const rest = ciphertext.slice(3);
  return ciphertext.startsWith("~02") && DIGITS.test(rest) ? rest : null;
}

function hasAnyValue(o: Maybe): boolean {
  if (o === undefined) return false;
  for (const k in o) if (present(o[k]) !== undefined) return true;
  return false;
}

/** Country list entries may be names, codes or `{name}` / `{twoLetterAbbreviation}` objects. */
function countryList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v) {
    const o = obj(item);
    const text = o ? (str(o.twoLetterAbbreviation) ?? str(o.code) ?? str(o.name)) : str(item);
    if (text !== undefined) out.push(normalizeCountry(text) ?? text);
  }
  return out;
}

/**
 * One restriction source → true (mandatory and only the US), false (present
 * but not US-only), null (US named but whether it is mandatory is not said),
 * undefined (the source says nothing about location).
 */
function restriction(mandatory: unknown, countries: unknown, states: unknown, fallbackCountry?: unknown): boolean | null | undefined {
  const flag = typeof mandatory === "boolean" ? mandatory : undefined;
  let list = countryList(countries);
  if ((list === undefined || list.length === 0) && typeof present(fallbackCountry) === "string") list = countryList([fallbackCountry]);
  const stateCount = Array.isArray(states) ? states.filter((s) => present(s) !== undefined).length : 0;
  const onlyUs = list !== undefined && list.length > 0 && list.every((c) => c === "US");
  const noCountries = list === undefined || list.length === 0;
  // States are US states, so a states restriction is a US one unless countries say otherwise.
  const usRestriction = onlyUs || (stateCount > 0 && noCountries);
  if (flag === true) return usRestriction;
  if (flag === false) return false;
  if (usRestriction) return null;
  if (list !== undefined || countries === null) return false;
  return undefined;
}

function usOnlyOf(doc: Obj, auth: Maybe, authOpening: Maybe, pub: Maybe): boolean | null {
  for (const q of [obj(authOpening?.qualifications), obj(auth?.qualifications), obj(pub?.qualifications)]) {
    const r = q && restriction(q.locationCheckRequired, q.countries, q.states, obj(q.location)?.country);
    if (typeof r === "boolean") return r;
  }
  const selection = obj(obj(doc.contractorSelection)?.location);
  const r =
    (selection && restriction(selection.localCheckRequired, selection.countries, selection.states)) ??
    // Feed tiles and the official search: only the keys that are actually there count.
    restriction(doc.prefFreelancerLocationMandatory, doc.prefFreelancerLocation, undefined) ??
    restriction(doc.preferredFreelancerLocationMandatory, doc.preferredFreelancerLocation, undefined);
  return r ?? null;
}

function questionsOf(v: unknown): { position: number; question: string }[] {
  if (!Array.isArray(v)) return [];
  const out: { position: number; question: string }[] = [];
  for (let i = 0; i < v.length; i++) {
    const q = obj(v[i]);
    const question = str(q?.question);
    if (q === undefined || question === undefined) continue;
    const position = num(q.position);
    // Upwork's position is stored unchanged; only a missing one falls back to the list order.
    out.push({ position: position !== null && Number.isInteger(position) ? position : i, question });
  }
  return out;
}

function skillsOf(ontologySkills: unknown, ...sands: Maybe[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      const o = obj(item);
      const label = str(o?.prefLabel) ?? str(o?.freeText);
      if (label === undefined) continue;
      const key = label.toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        out.push(label);
      }
    }
  };
  add(ontologySkills);
  for (const s of sands) {
    if (s === undefined) continue;
    add(s.ontologySkills);
    add(s.additionalSkills);
  }
  return out;
}

// Obfuscated separators: "[at]", "(at)", "{at}", "<at>", and the same for "dot".
const OBFUSCATED_AT = /\s*[[({<]\s*at\s*[\])}>]\s*/gi;
const OBFUSCATED_DOT = /\s*[[({<]\s*dot\s*[\])}>]\s*/gi;
const HAS_OBFUSCATION = /[[({<]\s*(?:at|dot)\s*[\])}>]/i;
const LOCAL_PART = /^[a-z0-9%+_-]+(?:\.[a-z0-9%+_-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^[a-z]{2,24}$/;
// "logo@2x.png", "icon@3x.webp", "pkg@1.0.js": file names and package specs, not mail domains.
const FILE_EXTENSIONS = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "svg",
  "webp",
  "ico",
  "bmp",
  "tif",
  "tiff",
  "avif",
  "css",
  "js",
  "mjs",
  "cjs",
  "jsx",
  "ts",
  "tsx",
  "json",
  "map",
  "html",
  "htm",
  "xml",
  "yml",
  "yaml",
  "lock",
  "txt",
  "pdf",
  "mp4",
  "mov",
]);

function isLocalChar(c: number): boolean {
  // a-z A-Z 0-9 . _ % + -
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
}
function isDomainChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 45;
}

/**
 * E-mail addresses in free text, lower-cased and deduplicated. Scans around each
 * "@" instead of running one big regex over the text, which keeps long
 * descriptions cheap; a candidate must have a dotted domain with an alphabetic
 * TLD, so "node@18", "@mentions" and "user@localhost" are not addresses.
 */
function extractEmails(text: string): string[] {
  if (HAS_OBFUSCATION.test(text)) text = text.replace(OBFUSCATED_AT, "@").replace(OBFUSCATED_DOT, ".");
  const found: string[] = [];
  let at = text.indexOf("@");
  while (at !== -1 && found.length < MAX_EMAILS) {
    let start = at;
    while (start > 0 && isLocalChar(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && isDomainChar(text.charCodeAt(end))) end++;
    // Sentence punctuation after an address ("mail me at a@b.com.") is not part of it.
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
    let local = text.slice(start, at);
    while (local.startsWith(".")) local = local.slice(1);
    const email = `${local}@${text.slice(at + 1, end)}`.toLowerCase();
    if (isEmail(local.toLowerCase(), email.slice(local.length + 1)) && !found.includes(email)) found.push(email);
    at = text.indexOf("@", at + 1);
  }
  return found;
}

function isEmail(local: string, domain: string): boolean {
  if (local.length === 0 || local.length > 64 || domain.length > 253 || !LOCAL_PART.test(local)) return false;
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1]!;
  if (!TLD.test(tld) || FILE_EXTENSIONS.has(tld)) return false;
  return labels.every((l) => DOMAIN_LABEL.test(l));
}
