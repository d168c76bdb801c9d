/**
 * The client jobs record (`GET /api/clients/{companyId}/jobs`), built from the
 * archived documents of one company. Pure: no I/O, no clock (time is `nowTs`).
 *
 * Where the fields come from (docs/reference/marketplace-data.md §1.3–1.5):
 * - buyer: `jobAuthDetails.buyer.info` (or `buyer` itself) and
 *   `jobPubDetails.buyer`, each field taken from the freshest document that
 *   can read it, authenticated before public within a document. Search/feed
 *   tile summaries (`upworkHistoryData.client`, `client`) are a last resort
 *   only, because they are lossy (ISO-3 countries, hidden spend) and mixing
 *   them into detail stats would blend two kinds of snapshot.
 * - openJobs: the archived jobs still open, plus the freshest
 *   `buyer.jobs.openJobs` entries that were never archived.
 * - workHistory: `jobAuthDetails.buyer.workHistory` of every document, merged.
 * Values that are null, `ExecutionAborted`, or unusable count as unknown and
 * fall through to the next source, as in jobs/normalize.ts.
 */
import type { Static } from "@sinclair/typebox";
import { isoOrNull } from "../../lib/time";
import { normalizeJob, type NormalizedJob } from "../jobs/normalize";
import type { BuyerSchema, ClientJobsRecordSchema, ClientOpenJobSchema, WorkHistoryEntrySchema } from "./schema";
import {
  count,
  detailRoots,
  first,
  idStr,
  isNonNegative,
  isoTime,
  isRating,
  jobType,
  numIf,
  obj,
  paymentVerified,
  str,
  timestamp,
  type Obj,
} from "../../lib/json-readers";

export interface CompanyDocument {
  document: unknown;
  exploredAtTs: number;
  /** Known closed (e.g. the sandbox closed it). */
  closed: boolean;
}

export type ClientJobsRecord = Static<typeof ClientJobsRecordSchema>;
type ClientBuyer = Static<typeof BuyerSchema>;
type ClientOpenJob = Static<typeof ClientOpenJobSchema>;
type WorkHistoryEntry = Static<typeof WorkHistoryEntrySchema>;

type Maybe = Obj | undefined;

// Readers: lib/json-readers.ts. The record's fields are null when unknown, hence the `?? null` on string reads.
const nonNegative = (v: unknown) => numIf(v, isNonNegative);
const score = (v: unknown) => numIf(v, isRating);

// ---------- one document, read once ----------

/** A buyer section holder: the details' `buyer` (or `buyer.info`), or a tile summary mapped onto the same keys. */
interface BuyerSource {
  location: Maybe;
  stats: Maybe;
  company: Maybe;
  jobs: Maybe;
  avgHourlyJobsRate: unknown;
  paymentVerified: unknown[];
}

interface DocView {
  exploredAtTs: number; // -Infinity when unknown, so such documents rank oldest
  closed: boolean;
  richness: number; // tie-break between equally fresh documents: auth 2, public 1, tile 0
  details: BuyerSource[]; // auth before public
  tiles: BuyerSource[];
  companyId: string | null;
  job: NormalizedJob | null;
  status: string | null;
  workHistory: unknown[];
}

function detailSource(buyer: Maybe, verifiedValues: unknown[]): BuyerSource | null {
  if (buyer === undefined) return null;
  return {
    location: obj(buyer.location),
    stats: obj(buyer.stats),
    company: obj(buyer.company),
    jobs: obj(buyer.jobs),
    avgHourlyJobsRate: buyer.avgHourlyJobsRate,
    paymentVerified: verifiedValues,
  };
}

/** Search and feed tiles name the same facts differently (§1.2, §1.5); map them onto the details' keys. */
function tileSource(client: Maybe): BuyerSource | null {
  if (client === undefined) return null;
  return {
    location: { country: client.country ?? obj(client.location)?.country },
    stats: {
      score: client.totalFeedback ?? client.rating,
      feedbackCount: client.totalReviews,
      totalCharges: client.totalSpent,
      totalJobsWithHires: client.totalHires,
    },
    company: { companyId: client.companyOrgUid },
    jobs: { postedCount: client.totalPostedJobs },
    avgHourlyJobsRate: undefined,
    paymentVerified: [client.paymentVerificationStatus, client.paymentVerified],
  };
}

function viewOf(input: CompanyDocument): DocView {
  const doc = obj(input.document) ?? {};
  const { auth, pub } = detailRoots(doc);
  const authBuyer = obj(auth?.buyer);
  const pubBuyer = obj(pub?.buyer);
  const authVerified = [authBuyer?.isPaymentMethodVerified];
  const pubVerified = [obj(pub?.buyerExtra)?.isPaymentMethodVerified, pubBuyer?.isPaymentMethodVerified];
  // The real auth body nests the profile under buyer.info; some captures flatten it onto buyer.
  const details = [detailSource(obj(authBuyer?.info), authVerified), detailSource(authBuyer, authVerified), detailSource(pubBuyer, pubVerified)].filter(
    (s): s is BuyerSource => s !== null,
  );
  const tiles = [tileSource(obj(obj(doc.upworkHistoryData)?.client)), tileSource(obj(doc.client))].filter((s): s is BuyerSource => s !== null);

  const normalized = normalizeJob(doc);
  const job = normalized.ok ? normalized.job : null;
  const companyId = job?.companyId ?? first([...details, ...tiles], (s) => idStr(s.company?.companyId));
  const status = str(obj(obj(auth?.opening)?.job)?.status) ?? str(obj(pub?.opening)?.status) ?? null;
  const history = authBuyer?.workHistory ?? obj(authBuyer?.info)?.workHistory;
  const exploredAtTs = Number.isFinite(input.exploredAtTs) ? input.exploredAtTs : (timestamp(doc.exploredAt) ?? -Infinity);
  return {
    exploredAtTs,
    closed: input.closed === true,
    richness: auth ? 2 : pub ? 1 : 0,
    details,
    tiles,
    companyId,
    job,
    status,
    workHistory: Array.isArray(history) ? history : [],
  };
}

// ---------- the record ----------

/**
 * docs: every archived document whose company id is companyId, in any order.
 * Returns null when docs is empty (or none of them belongs to the company).
 */
export function buildClientRecord(companyId: string, docs: CompanyDocument[], nowTs: number): ClientJobsRecord | null {
  // A document that names a different company must never leak into this one's record.
  const views = docs.map(viewOf).filter((v) => v.companyId === null || v.companyId === companyId);
  if (views.length === 0) return null;
  // Freshest first; equal times put the richer document first; the job ciphertext makes the order independent of input order.
  views.sort((a, b) => b.exploredAtTs - a.exploredAtTs || b.richness - a.richness || cmp(a.job?.ciphertext ?? "", b.job?.ciphertext ?? ""));

  const freshest = views[0]!.exploredAtTs;
  const lastSyncedAt = Number.isFinite(freshest) ? Math.round(freshest) : Math.round(nowTs);
  const buyer = buyerOf(companyId, views);
  const openJobs = openJobsOf(views);
  const workHistory = workHistoryOf(views);

  const jobsPosted = buyer.postedCount;
  const hires = buyer.stats.totalJobsWithHires;
  // Fields may come from different snapshots, so clamp: hires can never exceed jobs posted.
  const hireRate = jobsPosted === null || hires === null || jobsPosted === 0 ? null : Math.min(1, Math.round((hires / jobsPosted) * 10_000) / 10_000);
  const reviews = buyer.stats.feedbackCount;
  return {
    companyId,
    lastSyncedAt,
    buyer,
    openJobs,
    workHistory,
    stats: {
      jobsPosted,
      hires,
      hireRate,
      totalSpent: buyer.stats.totalCharges.amount,
      avgHourlyRatePaid: buyer.avgHourlyJobsRate.amount,
      // The marketplace reports score 0 for a client nobody has reviewed; that is "unrated", not a 0 average.
      avgFeedback: reviews === 0 ? null : buyer.stats.score,
      openJobs: openJobs.length,
      reviews,
    },
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Each field: the freshest document's details that can read it, then (only if no details can) the freshest tile. */
function buyerOf(companyId: string, views: DocView[]): ClientBuyer {
  const sources = [...views.flatMap((v) => v.details), ...views.flatMap((v) => v.tiles)];
  const read = <T>(f: (s: BuyerSource) => T | null | undefined) => first(sources, f);
  return {
    company: {
      name: read((s) => str(s.company?.name)),
      companyId: read((s) => idStr(s.company?.companyId)) ?? companyId,
      contractDate: read((s) => isoTime(s.company?.contractDate)),
    },
    location: {
      city: read((s) => str(s.location?.city)),
      country: read((s) => str(s.location?.country)),
      countryTimezone: read((s) => str(s.location?.countryTimezone)),
    },
    stats: {
      totalAssignments: read((s) => count(s.stats?.totalAssignments)),
      score: read((s) => score(s.stats?.score)),
      totalCharges: { amount: read((s) => nonNegative(s.stats?.totalCharges)) },
      feedbackCount: read((s) => count(s.stats?.feedbackCount)),
      totalJobsWithHires: read((s) => count(s.stats?.totalJobsWithHires)),
      hoursCount: read((s) => nonNegative(s.stats?.hoursCount)),
    },
    avgHourlyJobsRate: { amount: read((s) => nonNegative(s.avgHourlyJobsRate)) },
    postedCount: read((s) => count(s.jobs?.postedCount)),
    openCount: read((s) => count(s.jobs?.openCount)),
    paymentVerified: read((s) => first(s.paymentVerified, paymentVerified)),
  };
}

function openJobsOf(views: DocView[]): ClientOpenJob[] {
  // The freshest readable `buyer.jobs.openJobs` list (an empty list is an answer too).
  const listed =
    first(
      views.flatMap((v) => v.details),
      (s) => {
        const list = s.jobs?.openJobs;
        return Array.isArray(list) ? (list as unknown[]) : null;
      },
    ) ?? [];
  const listEntries = listed.map(listEntryOf).filter((e): e is ClientOpenJob => e !== null);
  const listByKey = new Map<string, ClientOpenJob>();
  for (const e of listEntries) for (const k of keysOf(e)) if (!listByKey.has(k)) listByKey.set(k, e);

  // Archived jobs, one per ciphertext, judged by their freshest document; closure is sticky.
  const archived = new Map<string, { view: DocView; closed: boolean; status: string | null }>();
  for (const v of views) {
    if (v.job === null) continue;
    const seen = archived.get(v.job.ciphertext);
    if (seen === undefined) archived.set(v.job.ciphertext, { view: v, closed: v.closed, status: v.status });
    else {
      seen.closed ||= v.closed;
      seen.status ??= v.status;
    }
  }
  const archivedKeys = new Set<string>();
  const open: ClientOpenJob[] = [];
  for (const { view, closed, status } of archived.values()) {
    const job = view.job!;
    const entry: ClientOpenJob = {
      id: job.jobUid,
      ciphertext: job.ciphertext,
      title: job.title,
      type: job.jobType,
      publishTime: isoOrNull(job.publishTimeTs),
      budget: { hourlyMin: job.hourlyMin, hourlyMax: job.hourlyMax, fixedAmount: job.fixedBudget, currency: job.currency },
      isPtcPrivate: null,
    };
    for (const k of keysOf(entry)) archivedKeys.add(k);
    if (closed || (status !== null && status.toUpperCase() !== "ACTIVE")) continue;
    const match = keysOf(entry)
      .map((k) => listByKey.get(k))
      .find((e) => e !== undefined);
    if (match) {
      entry.isPtcPrivate = match.isPtcPrivate;
      entry.id ??= match.id;
      entry.type ??= match.type;
    }
    open.push(entry);
  }
  const seen = new Set(archivedKeys);
  for (const e of listEntries) {
    const keys = keysOf(e);
    if (keys.some((k) => seen.has(k))) continue;
    for (const k of keys) seen.add(k);
    open.push(e);
  }
  // Newest first; list-only jobs have no publish time and go last, in a stable order.
  return open.sort((a, b) => cmp(b.publishTime ?? "", a.publishTime ?? "") || cmp(a.ciphertext ?? a.id ?? "", b.ciphertext ?? b.id ?? ""));
}

/** Identity keys of a job: by ciphertext and by id, so either one matches. A current `~02<id>` ciphertext implies its id. */
function keysOf(e: { id: string | null; ciphertext: string | null }): string[] {
  const keys: string[] = [];
  if (e.ciphertext !== null) keys.push(`c:${e.ciphertext}`);
  const id = e.id ?? (e.ciphertext !== null && /^~02\d+$/.test(e.ciphertext) ? e.ciphertext.slice(3) : null);
  if (id !== null) keys.push(`i:${id}`);
  return keys;
}

function listEntryOf(item: unknown): ClientOpenJob | null {
  const o = obj(item);
  if (o === undefined) return null;
  const id = idStr(o.id) ?? null;
  const ciphertext = str(o.ciphertext) ?? str(o.cipherText) ?? null;
  if (id === null && ciphertext === null) return null;
  return {
    id,
    ciphertext,
    title: str(o.title) ?? null,
    type: jobType(o.type),
    publishTime: null,
    budget: { hourlyMin: null, hourlyMax: null, fixedAmount: null, currency: null },
    isPtcPrivate: typeof o.isPtcPrivate === "boolean" ? o.isPtcPrivate : null,
  };
}

function feedbackOf(v: unknown): { score: number | null; comment: string | null } | null {
  const o = obj(v);
  if (o === undefined) return null;
  const s = score(o.score);
  const comment = str(o.comment) ?? null;
  return s === null && comment === null ? null : { score: s, comment };
}

function historyEntryOf(item: unknown): { entry: WorkHistoryEntry; key: string } | null {
  const o = obj(item);
  if (o === undefined) return null;
  const jobInfo = obj(o.jobInfo);
  const contractor = obj(o.contractorInfo);
  const entry: WorkHistoryEntry = {
    title: str(jobInfo?.title) ?? null,
    status: str(o.status) ?? null,
    startDate: isoTime(o.startDate),
    endDate: isoTime(o.endDate),
    totalCharge: nonNegative(o.totalCharge),
    totalHours: nonNegative(o.totalHours),
    rate: nonNegative(o.rate),
    contractorName: str(contractor?.contractorName) ?? null,
    jobCiphertext: str(jobInfo?.ciphertext) ?? null,
    feedbackGiven: feedbackOf(o.feedback),
    feedbackReceived: feedbackOf(o.feedbackToClient),
  };
  // A job with several hires has one contract per freelancer, so the freelancer is part of the identity when known.
  const who = str(contractor?.ciphertext) ?? entry.contractorName ?? "";
  let key: string;
  if (entry.jobCiphertext !== null) key = `c|${entry.jobCiphertext}|${who}`;
  else if (entry.title !== null || entry.startDate !== null) key = `t|${entry.title ?? ""}|${entry.startDate ?? ""}|${who}`;
  else if (Object.values(entry).every((x) => x === null)) return null;
  else key = `x|${JSON.stringify(entry)}`;
  return { entry, key };
}

const isOpenContract = (e: WorkHistoryEntry) => e.endDate === null && (e.status === null || e.status.toUpperCase() === "ACTIVE");

function workHistoryOf(views: DocView[]): WorkHistoryEntry[] {
  // Views are freshest first, so the first copy of a contract is its latest state (charges, status, feedback).
  const byKey = new Map<string, WorkHistoryEntry>();
  for (const v of views) {
    for (const item of v.workHistory) {
      const read = historyEntryOf(item);
      if (read !== null && !byKey.has(read.key)) byKey.set(read.key, read.entry);
    }
  }
  return [...byKey.entries()]
    .sort(([ka, a], [kb, b]) => Number(isOpenContract(b)) - Number(isOpenContract(a)) || cmp(b.startDate ?? "", a.startDate ?? "") || cmp(ka, kb))
    .map(([, e]) => e);
}
