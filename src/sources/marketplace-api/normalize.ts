/**
 * One `marketplaceJobPostingsSearch` edge node (the official API's field names,
 * docs/reference/marketplace-data.md §2.2) → the archived job document our normaliser reads
 * (src/sources/document.ts; field locations from §1.6):
 *
 *   ciphertext, id, type, budgets, publish time → jobTile.job (tile shape: money as strings)
 *   client{location, totalSpent, totalFeedback, totalReviews, verificationStatus} → upworkHistoryData.client
 *   skills{name, prettyName} → ontologySkills{uid, prefLabel}
 *   preferredFreelancerLocation(Mandatory) → jobDetailsResponse.data.jobPubDetails.qualifications
 *
 * Tri-state facts stay tri-state: a field the API left null or out is left out
 * here, so the job normaliser reports "unknown" rather than a guessed false.
 * Pure: no clock, no I/O; the caller passes `exploredAt`.
 */
import type { JobType } from "../../db/enums";
import type { JobDocument, OntologySkill } from "../document";
import { first, idStr, jobType, obj, str, type Obj } from "../../lib/json-readers";

const DIGITS = /^\d+$/;

/** A Money `{rawValue, currency}` (or a bare number / numeric string) → its value as the tiles carry it, a string. */
function moneyValue(v: unknown): string | null {
  const o = obj(v);
  const raw = o ? (o.rawValue ?? o.amount) : v;
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  if (typeof raw === "string" && raw.trim() !== "" && Number.isFinite(Number(raw))) return raw.trim();
  return null;
}

function moneyCurrency(v: unknown): string | undefined {
  const o = obj(v);
  return str(o?.currency) ?? str(o?.currencyCode) ?? str(o?.isoCurrencyCode);
}

const positive = (s: string | null) => s !== null && Number(s) > 0;

/**
 * The `~`-prefixed ciphertext job URLs use. Official answers may give it
 * without the `~`, or give only the numeric opening id; current ciphertexts
 * are `~02` + the id (§1.1). Numeric ids never start with 0, so an all-digit
 * value starting with 0 is already a prefixed ciphertext.
 */
export function ciphertextOf(node: Obj): string | null {
  const cipher = str(node.ciphertext) ?? str(node.cipherText);
  if (cipher !== undefined) {
    if (cipher.startsWith("~")) return cipher;
    if (DIGITS.test(cipher) && !cipher.startsWith("0")) return `~02${cipher}`;
    return `~${cipher}`;
  }
  const id = idStr(node.id);
  if (id !== undefined && DIGITS.test(id) && !id.startsWith("0")) return `~02${id}`;
  return null;
}

/** HOURLY / FIXED from an explicit contract type, else from which budget fields the API filled. */
function jobTypeOf(node: Obj, hourlyMin: string | null, hourlyMax: string | null, amount: string | null): JobType | undefined {
  // The first contract type given decides; one that is neither falls back to the budget fields.
  const explicit = first([node.type, node.jobType, obj(node.contractTerms)?.contractType, obj(obj(obj(node.job)?.contractTerms))?.contractType], str);
  const stated = jobType(explicit);
  if (stated !== null) return stated;
  // `hourlyBudget*` is null on fixed-price jobs; `amount` is non-null but 0 on hourly ones (§2.2 / job-node notes).
  if (positive(hourlyMin) || positive(hourlyMax) || str(node.hourlyBudgetType) !== undefined) return "HOURLY";
  if (positive(amount)) return "FIXED";
  return undefined;
}

function skillsOf(v: unknown): OntologySkill[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: OntologySkill[] = [];
  for (const item of v) {
    const s = obj(item);
    const label = str(s?.prettyName) ?? str(s?.name) ?? str(s?.prefLabel);
    if (s === undefined || label === undefined) continue;
    const uid = str(s.id) ?? str(s.uid) ?? str(s.name) ?? label;
    out.push({ uid, prefLabel: label });
  }
  return out;
}

function countriesOf(v: unknown): string[] | undefined {
  if (v === null || v === undefined) return undefined;
  const list = Array.isArray(v) ? v : [v];
  const out = list.map((c) => str(c) ?? str(obj(c)?.country) ?? str(obj(c)?.name)).filter((c): c is string => c !== undefined);
  return out;
}

/**
 * The talent-location restriction in the shape of the public details'
 * `qualifications`. Undefined (left out) when the node does not say, or says
 * "mandatory" without naming where: both mean "cannot confirm".
 */
function qualificationsOf(node: Obj): { countries: string[]; locationCheckRequired?: boolean } | undefined {
  const mandatoryRaw = node.preferredFreelancerLocationMandatory ?? node.prefFreelancerLocationMandatory;
  const mandatory = typeof mandatoryRaw === "boolean" ? mandatoryRaw : undefined;
  const countries = countriesOf(node.preferredFreelancerLocation ?? node.prefFreelancerLocation);
  if (mandatory === false) return { countries: countries ?? [], locationCheckRequired: false };
  if (countries === undefined || countries.length === 0) return undefined;
  return mandatory === true ? { countries, locationCheckRequired: true } : { countries };
}

function clientOf(node: Obj): Obj | undefined {
  const c = obj(node.client);
  if (c === undefined) return undefined;
  const out: Obj = {};
  const country = str(obj(c.location)?.country);
  if (country !== undefined) out.country = country;
  const spent = moneyValue(c.totalSpent);
  if (spent !== null) out.totalSpent = { amount: spent, isoCurrencyCode: moneyCurrency(c.totalSpent) ?? null };
  for (const key of ["totalFeedback", "totalReviews", "totalHires", "totalPostedJobs"] as const) {
    const v = c[key];
    if (typeof v === "number" || (typeof v === "string" && v.trim() !== "")) out[key] = v;
  }
  const verification = str(c.verificationStatus) ?? str(c.paymentVerificationStatus);
  if (verification !== undefined) out.paymentVerificationStatus = verification;
  else if (typeof c.paymentVerified === "boolean") out.paymentVerificationStatus = c.paymentVerified ? "VERIFIED" : "NOT_VERIFIED";
  if (typeof c.hasFinancialPrivacy === "boolean") out.hasFinancialPrivacy = c.hasFinancialPrivacy;
  const orgUid = str(c.companyOrgUid);
  if (orgUid !== undefined) out.companyOrgUid = orgUid;
  return out;
}

const TIERS: Record<string, string> = { ENTRY_LEVEL: "EntryLevel", INTERMEDIATE: "IntermediateLevel", EXPERT: "ExpertLevel" };

/**
 * The archived document for one search node, or null when the node has no
 * usable identity (no ciphertext and no numeric id). Title and description are
 * passed through as given; the ingest step validates them.
 */
export function normalizeMarketplaceNode(input: unknown, opts: { exploredAt?: number } = {}): JobDocument | null {
  const node = obj(input);
  if (node === undefined) return null;
  const ciphertext = ciphertextOf(node);
  if (ciphertext === null) return null;
  // The opening id: from a `~02<digits>` ciphertext when possible, since the search
  // result's own `id` is documented only as "a search-result identifier".
  const fromCipher = ciphertext.startsWith("~02") && DIGITS.test(ciphertext.slice(3)) ? ciphertext.slice(3) : undefined;
  const nodeId = idStr(node.id);
  const openingId = fromCipher ?? (nodeId !== undefined && DIGITS.test(nodeId) ? nodeId : undefined);

  const hourlyMin = moneyValue(node.hourlyBudgetMin);
  const hourlyMax = moneyValue(node.hourlyBudgetMax);
  const amount = moneyValue(node.amount);
  const jobType = jobTypeOf(node, hourlyMin, hourlyMax, amount);
  const currency = moneyCurrency(node.amount) ?? moneyCurrency(node.hourlyBudgetMin) ?? moneyCurrency(node.hourlyBudgetMax);

  const job: NonNullable<NonNullable<JobDocument["jobTile"]>["job"]> = { ciphertext };
  if (openingId !== undefined) job.id = openingId;
  if (jobType !== undefined) job.jobType = jobType;
  const publishTime = str(node.publishedDateTime) ?? str(node.createdDateTime);
  if (publishTime !== undefined) job.publishTime = publishTime;
  const createTime = str(node.createdDateTime);
  if (createTime !== undefined) job.createTime = createTime;
  // Tiles carry an hourly job's budget as strings and a fixed job's as fixedPriceAmount; the other kind stays null.
  job.hourlyBudgetMin = jobType === "FIXED" ? null : hourlyMin;
  job.hourlyBudgetMax = jobType === "FIXED" ? null : hourlyMax;
  job.fixedPriceAmount = jobType === "HOURLY" || amount === null ? null : { amount, isoCurrencyCode: currency ?? null };
  const tier = TIERS[str(node.experienceLevel)?.toUpperCase() ?? ""];
  if (tier !== undefined) job.contractorTier = tier;
  if (typeof node.totalApplicants === "number") job.totalApplicants = node.totalApplicants;
  if (typeof node.premium === "boolean") job.premium = node.premium;
  if (typeof node.enterprise === "boolean") job.enterpriseJob = node.enterprise;
  const duration = obj(node.engagementDuration);
  if (duration !== undefined) {
    const d = { label: str(duration.label) ?? null, weeks: typeof duration.weeks === "number" ? duration.weeks : null };
    if (jobType === "FIXED") job.fixedPriceEngagementDuration = d;
    else job.hourlyEngagementDuration = d;
  }
  // Free text such as "30+ hrs/week", not the tiles' PART_TIME-style hourlyEngagementType.
  const engagement = str(node.engagement);
  if (engagement !== undefined) job.engagement = engagement;

  const doc: JobDocument = {
    id: openingId ?? ciphertext,
    title: typeof node.title === "string" ? node.title : "",
    description: typeof node.description === "string" ? node.description : "",
    platform: "marketplace",
    source: "marketplace-api",
    jobTile: { job },
  };
  const skills = skillsOf(node.skills);
  if (skills !== undefined) doc.ontologySkills = skills;
  const client = clientOf(node);
  if (client !== undefined) doc.upworkHistoryData = { client };
  if (currency !== undefined) doc.currency = currency;
  const durationLabel = str(node.durationLabel) ?? str(duration?.label);
  if (durationLabel !== undefined) doc.durationLabel = durationLabel;
  const qualifications = qualificationsOf(node);
  if (qualifications !== undefined) doc.jobDetailsResponse = { data: { jobPubDetails: { qualifications } } };
  if (opts.exploredAt !== undefined) doc.exploredAt = opts.exploredAt;
  return doc;
}
