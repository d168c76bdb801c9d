/**
 * Seeded randomness and the sandbox's company pool. Everything here is a pure
 * function of its arguments: a company is rebuilt from (seed, k) on every call
 * rather than cached, so documents never share mutable state.
 */
import { iso } from "../../lib/time";
import * as cat from "./catalog";
import type { Country, Niche } from "./catalog";

/** Distinct clients per seed: small enough that each posts several jobs in a few thousand. */
export const COMPANY_POOL_SIZE = 300;

export const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Before this, work-history jobs use the old hex ciphertexts that don't convert to an id (§1.1). */
const HEX_CIPHER_BEFORE = Date.UTC(2019, 0, 1);

// ---------- hashing and seeded randomness ----------

/** FNV-1a over the key with a murmur3 finaliser; `salt` gives independent streams. */
function hash32(key: string, salt: number): number {
  let h = (0x811c9dc5 ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const ID_FLOOR = 1_400_000_000_000_000_000n;
const ID_SPAN = 600_000_000_000_000_000n;

/** A 19-digit numeric id (the marketplace's job/company id format) from two 32-bit hashes of the key. */
export function numericId(key: string): string {
  const wide = (BigInt(hash32(key, 1)) << 32n) | BigInt(hash32(key, 2));
  return (ID_FLOOR + (wide % ID_SPAN)).toString();
}

/** sfc32, seeded from hashes of a key. Small, fast and good enough for test data. */
export class Rng {
  private s: [number, number, number, number];
  constructor(key: string) {
    this.s = [hash32(key, 11), hash32(key, 12), hash32(key, 13), hash32(key, 14)];
    for (let i = 0; i < 12; i++) this.next();
  }
  /** Uniform in [0, 1). */
  next(): number {
    const [a, b, c, d] = this.s;
    const t = (((a + b) | 0) + d) | 0;
    this.s = [b ^ (b >>> 9), (c + (c << 3)) | 0, (((c << 21) | (c >>> 11)) + t) | 0, (d + 1) | 0];
    return (t >>> 0) / 4294967296;
  }
  int = (lo: number, hi: number) => lo + Math.floor(this.next() * (hi - lo + 1));
  range = (lo: number, hi: number) => lo + this.next() * (hi - lo);
  chance = (p: number) => this.next() < p;
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  weighted<T>(items: readonly T[], weight: (item: T) => number): T {
    let left = this.next() * items.reduce((sum, item) => sum + weight(item), 0);
    for (const item of items) if ((left -= weight(item)) < 0) return item;
    return items[items.length - 1]!;
  }
  /** n distinct items in random order (a partial Fisher–Yates shuffle of a copy). */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = items.slice();
    for (let i = 0; i < Math.min(n, copy.length); i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }
  hex = (length: number) => Array.from({ length }, () => Math.floor(this.next() * 16).toString(16)).join("");
}

// ---------- small formatting helpers ----------

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const roundTo = (n: number, step: number) => Math.round(n / step) * step;
export const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
/** Tile money: "750.0", "8098.49". */
export const money = (n: number) => (Number.isInteger(n) ? n.toFixed(1) : String(round2(n)));
export const fill = (template: string, vars: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
export const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

// ---------- the company pool ----------

export interface Company {
  index: number;
  id: string;
  name: string;
  domain: string;
  country: Country;
  city: [name: string, utcOffsetHours: number, zone: string];
  industry: [profile: string, phrase: string];
  size: number;
  enterprise: boolean;
  /** Payment method verified; null when the marketplace doesn't say. */
  paymentVerified: boolean | null;
  /** False for the ~10 % of clients whose stats object is absent entirely. */
  statsShown: boolean;
  financialPrivacy: boolean;
  stats: Record<"totalAssignments" | "activeAssignmentsCount" | "hoursCount" | "feedbackCount" | "score" | "totalJobsWithHires" | "totalCharges", number>;
  avgHourlyRate: number | null;
  contractDate: string;
  /** The kinds of work this client posts, so its jobs and history look coherent. */
  niches: Niche[];
  postedCount: number;
  otherOpenJobs: { id: string; ciphertext: string; title: string; type: string; isPtcPrivate: boolean }[];
  workHistory: Record<string, unknown>[];
  /** jobAuthDetails often returns the company name as null (§1.1). */
  nameHiddenInAuth: boolean;
}

const NAME_COMBOS = cat.NAME_PREFIX.length * cat.NAME_CORE.length * cat.NAME_KIND.length;

function nicheTitle(rng: Rng, niche: Niche): string {
  const vars = { skill: niche.skills[0]!, skill2: niche.skills[1]!, product: rng.pick(niche.products) };
  return fill(rng.pick(niche.titles), vars);
}

/**
 * Company k of the seed's pool. Rebuilt on every call (cheap) rather than cached,
 * so no state is shared between documents. Dates count back from nowTs's day.
 */
function companyAt(seed: number, k: number, nowTs: number): Company {
  const rng = new Rng(`company|${seed}|${k}`);
  const today = Math.floor(nowTs / DAY) * DAY;
  // A stride coprime with NAME_COMBOS walks every name once, so names in the pool are unique.
  const nameIndex = (hash32(`names|${seed}`, 0) + k * 2467) % NAME_COMBOS;
  const prefix = cat.NAME_PREFIX[nameIndex % cat.NAME_PREFIX.length]!;
  const core = cat.NAME_CORE[Math.floor(nameIndex / cat.NAME_PREFIX.length) % cat.NAME_CORE.length]!;
  const kind = cat.NAME_KIND[Math.floor(nameIndex / (cat.NAME_PREFIX.length * cat.NAME_CORE.length))]!;
  const country = rng.weighted(cat.COUNTRIES, (c) => c.weight);
  const newClient = rng.chance(0.22);
  // New clients verify payment less often; overall ≈ 75 % verified, 15 % unverified, 10 % unknown.
  const p = rng.next();
  const paymentVerified = newClient ? (p < 0.55 ? true : p < 0.85 ? false : null) : p < 0.8 ? true : p < 0.91 ? false : null;
  const niches = rng.sample(cat.NICHES, rng.int(1, 3));

  let stats = { totalAssignments: 0, activeAssignmentsCount: 0, hoursCount: 0, feedbackCount: 0, score: 0, totalJobsWithHires: 0, totalCharges: 0 };
  let avgHourlyRate: number | null = null;
  let postedCount = rng.int(1, 3);
  if (!newClient) {
    const withHires = 1 + Math.floor(60 * rng.next() ** 2.2);
    const totalAssignments = withHires + rng.int(0, withHires);
    const active = rng.int(0, Math.min(4, totalAssignments));
    const ended = totalAssignments - active;
    const feedbackCount = ended === 0 ? 0 : rng.int(Math.ceil(ended * 0.5), ended);
    const score = feedbackCount === 0 ? 0 : round2(rng.chance(0.2) ? rng.range(3, 4.5) : rng.range(4.5, 5));
    const totalCharges = round2(totalAssignments * rng.range(80, 3000));
    avgHourlyRate = round2(rng.range(12, 75));
    const hoursCount = Math.round(((totalCharges * rng.range(0.2, 0.8)) / avgHourlyRate) * 10) / 10;
    stats = { totalAssignments, activeAssignmentsCount: active, hoursCount, feedbackCount, score, totalJobsWithHires: withHires, totalCharges };
    postedCount = withHires + rng.int(1, 25);
  }
  const otherOpenJobs = Array.from({ length: rng.int(0, newClient ? 1 : 4) }, (_, j) => {
    const id = numericId(`open|${seed}|${k}|${j}`);
    return { id, ciphertext: `~02${id}`, title: nicheTitle(rng, rng.pick(niches)), type: rng.chance(0.5) ? "HOURLY" : "FIXED", isPtcPrivate: false };
  });
  const contractTs = today - (newClient ? rng.int(0, 45) : rng.int(120, 4000)) * DAY;
  const company: Company = {
    index: k,
    id: numericId(`company|${seed}|${k}`),
    name: `${prefix}${core} ${kind}`,
    domain: `${prefix}${core}${kind}`.toLowerCase() + rng.pick(cat.DOMAIN_TLDS),
    country,
    city: rng.pick(country.cities),
    industry: rng.pick(cat.INDUSTRIES),
    size: rng.pick([1, 1, 2, 5, 10, 25, 50, 200]),
    enterprise: rng.chance(0.03),
    paymentVerified,
    statsShown: !rng.chance(0.11),
    financialPrivacy: rng.chance(0.04),
    stats,
    avgHourlyRate,
    contractDate: iso(contractTs),
    niches,
    postedCount: Math.max(postedCount, otherOpenJobs.length + 1),
    otherOpenJobs,
    workHistory: [],
    nameHiddenInAuth: rng.chance(0.5),
  };
  company.workHistory = newClient ? [] : workHistory(rng, seed, company, contractTs, today);
  return company;
}

function workHistory(rng: Rng, seed: number, company: Company, contractTs: number, today: number): Record<string, unknown>[] {
  const count = Math.min(company.stats.totalAssignments, rng.int(2, 8));
  const entries = Array.from({ length: count }, (_, i) => {
    const active = i < company.stats.activeAssignmentsCount;
    const hourly = rng.chance(0.55);
    const startTs = active
      ? Math.max(contractTs, today - rng.int(5, 150) * DAY + rng.int(0, DAY - 1))
      : contractTs + Math.floor(rng.next() * (today - 30 * DAY - contractTs));
    // Closed contracts end before today (established clients joined at least 120 days ago).
    const endTs = active ? null : Math.min(startTs + rng.int(3, 180) * DAY, today - rng.int(1, 20) * DAY) + rng.int(0, DAY - 1);
    const rate = hourly ? rng.int(15, 90) : 0;
    const hours = hourly ? round2(rng.range(2, 400)) : 0;
    const isPrivate = rng.chance(0.12);
    const legacy = startTs < HEX_CIPHER_BEFORE;
    const jobId = isPrivate ? null : legacy ? String(rng.int(100_000_000, 399_999_999)) : numericId(`history|${seed}|${company.index}|${i}`);
    const closedScore = () => round2(rng.chance(0.8) ? rng.range(4.5, 5) : rng.range(3, 4.5));
    return {
      status: active ? "ACTIVE" : "CLOSED",
      startDate: iso(startTs),
      endDate: endTs === null ? null : iso(endTs),
      totalCharge: hourly ? round2(rate * hours) : round2(rng.range(50, 4000)),
      totalHours: hours,
      jobInfo: {
        title: nicheTitle(rng, rng.pick(company.niches)),
        id: jobId,
        access: isPrivate ? "PRIVATE" : "PUBLIC_INDEX",
        type: hourly ? "HOURLY" : "FIXED",
        ciphertext: isPrivate ? null : legacy ? `~01${rng.hex(16)}` : `~02${jobId}`,
      },
      contractorInfo: {
        contractorName: `${rng.pick(cat.FIRST_NAMES)} ${String.fromCharCode(65 + rng.int(0, 25))}.`,
        accessType: "PUBLIC_INDEX",
        ciphertext: `~01${rng.hex(18)}`,
      },
      rate: { amount: rate },
      feedback: !active && rng.chance(0.8) ? { score: closedScore(), comment: rng.pick(cat.FEEDBACK_TO_FREELANCER) } : null,
      feedbackToClient:
        !active && company.stats.feedbackCount > 0 && rng.chance(0.85)
          ? { feedbackSuppressed: false, score: round2(clamp(company.stats.score + rng.range(-0.5, 0.3), 1, 5)), comment: rng.pick(cat.FEEDBACK_TO_CLIENT) }
          : null,
    };
  });
  return entries.sort((x, y) => (x.startDate < y.startDate ? 1 : x.startDate > y.startDate ? -1 : 0));
}

/** A client for one job. Skewed: low-numbered companies post more, as busy clients do. */
export function pickCompany(rng: Rng, seed: number, nowTs: number): Company {
  return companyAt(seed, Math.floor(COMPANY_POOL_SIZE * rng.next() ** 1.6), nowTs);
}
