/**
 * Sandbox marketplace job generator: realistic archived job documents with no
 * external account. Pure and deterministic: the output depends only on
 * (seed, index, nowTs), so benchmarks and tests can reproduce any job, and a
 * restart with a new clock reading never reuses a job id.
 *
 * Field locations follow docs/reference/marketplace-data.md §1: search tile
 * (`jobTile.job` + `upworkHistoryData`), public details
 * (`jobDetailsResponse.data.jobPubDetails`) and authenticated details
 * (`authJobDetailsResponse.data.jobAuthDetails`). Tiles carry money as
 * strings, details as numbers, as the marketplace does.
 *
 * Clients come from a pool of COMPANY_POOL_SIZE companies derived from the seed
 * alone (companies.ts), so the same company id (with the same name, country, stats and work
 * history) recurs across jobs and across restarts.
 */
import type { JobDocument, OntologySkill } from "../document";
import { iso } from "../../lib/time";
import * as cat from "./catalog";
import type { Niche } from "./catalog";
import { clamp, fill, lowerFirst, MINUTE, money, numericId, pickCompany, Rng, round2, roundTo } from "./companies";

export { COMPANY_POOL_SIZE } from "./companies";

export interface GenerateOptions {
  /** The sandbox's seed (config). */
  seed: number;
  /** 0, 1, 2, … the n-th job this run emits. */
  index: number;
  /** Unix ms "now" from the injected clock; publishTime and exploredAt derive from it. */
  nowTs: number;
  /** The job's numeric id, when the caller must be able to find the job again by it (the sandbox website); derived from the rest otherwise. */
  id?: string;
}

/** Sandbox jobs link to a reserved example domain (RFC 2606), never to the real marketplace. */
const SANDBOX_JOB_URL = "https://marketplace.example/jobs/";
const TILE_TIERS = ["EntryLevel", "IntermediateLevel", "ExpertLevel"] as const;
const DETAIL_TIERS = ["ENTRY_LEVEL", "INTERMEDIATE", "EXPERT"] as const;
const TIER_RATE = [0.6, 1, 1.6];
/** The four engagement-duration labels the marketplace (and the spec's `timeline`) use. */
const DURATIONS: [string, number][] = [
  ["Less than 1 month", 4],
  ["1 to 3 months", 12],
  ["3 to 6 months", 26],
  ["More than 6 months", 52],
];
const US_STATES = ["California", "New York", "Texas", "Florida", "Washington", "Illinois"];
const OTHER_COUNTRY_SETS = [["United Kingdom"], ["Canada"], ["United States", "Canada"], ["Germany", "Austria", "Switzerland"], ["Australia", "New Zealand"]];
const NEEDS_THE = new Set(["United States", "United Kingdom", "Netherlands", "United Arab Emirates"]);
const TITLE_SUFFIXES = [" - Long-term", " (Urgent)", " - Quick Fix Needed", " for Startup", " - Ongoing Work", " ASAP"];

function utcLabel(hours: number): string {
  const sign = hours < 0 ? "-" : "+";
  const abs = Math.abs(hours);
  const hh = String(Math.floor(abs)).padStart(2, "0");
  const mm = String(Math.round((abs % 1) * 60)).padStart(2, "0");
  return `UTC${sign}${hh}:${mm}`;
}

// ---------- one job ----------

const skillUid = (label: string) => numericId(`skill|${label.toLowerCase()}`);
const HOURLY_DURATION_WEIGHTS = [15, 30, 25, 30];
const FIXED_DURATION_WEIGHTS = [45, 40, 12, 3];
const CONNECT_STEPS = [150, 500, 1500, 3000, 6000, 12000];

/** Several paragraphs: the client's problem, scope, requirements, deliverables, nice-to-haves, closing. */
function describe(rng: Rng, niche: Niche, vars: Record<string, string | number>, hourly: boolean, withEmail: boolean): string {
  const f = (template: string) => fill(template, vars);
  const list = (heading: string, items: string[]) => `${heading}\n${items.map((item) => `- ${f(item)}`).join("\n")}`;
  const problem = f(rng.pick(niche.problems));
  // A "we are a team" intro would clash with a problem told in the first person singular.
  const intro = rng.chance(0.8) && !problem.startsWith("I ") ? `${f(rng.pick(cat.INTROS))} ` : "";
  const parts = [intro + problem];
  const tasks = rng.sample(niche.tasks, rng.int(3, 5));
  if (rng.chance(0.7)) parts.push(list(rng.pick(cat.SCOPE_HEADINGS), tasks));
  else {
    const phrases = tasks.map((task) => lowerFirst(f(task)));
    parts.push(`You will ${phrases.slice(0, -1).join(", ")} and ${phrases[phrases.length - 1]}.`);
  }
  const requirements = [...rng.sample(niche.tech ? cat.REQUIREMENTS_TECH : cat.REQUIREMENTS_OTHER, 2), ...rng.sample(cat.REQUIREMENTS_ANY, rng.int(1, 2))];
  parts.push(list(rng.pick(cat.REQUIREMENT_HEADINGS), requirements));
  if (rng.chance(0.8)) parts.push(list(rng.pick(cat.DELIVERABLE_HEADINGS), rng.sample(niche.deliverables, rng.int(2, 3))));
  if (rng.chance(0.65)) parts.push(list(rng.pick(cat.EXTRA_HEADINGS), rng.sample(niche.extras, rng.int(1, 2))));
  if (rng.chance(0.7)) parts.push(f(`${rng.pick(hourly ? cat.BUDGET_LINES_HOURLY : cat.BUDGET_LINES_FIXED)} ${rng.pick(cat.TIMELINE_LINES)}`));
  const closing = rng.sample(cat.CLOSINGS, rng.int(1, 2)).map(f);
  if (withEmail) closing.push(f(rng.pick(cat.EMAIL_LINES)));
  parts.push(closing.join(" "));
  return parts.join("\n\n");
}

/** The n-th sandbox job of a run. Same inputs, same document; see the module comment. */
export function generateJob({ seed, index, nowTs, id: givenId }: GenerateOptions): JobDocument {
  const rng = new Rng(`job|${seed}|${index}|${nowTs}`);
  const id = givenId ?? numericId(`job|${seed}|${index}|${nowTs}`);
  const ciphertext = `~02${id}`;
  const company = pickCompany(rng, seed, nowTs);
  const niche = rng.chance(0.7) ? rng.pick(company.niches) : rng.weighted(cat.NICHES, (n) => n.weight);
  const tier = rng.weighted([0, 1, 2], (t) => (t === 1 ? 2 : 1));
  const hourly = rng.chance(0.5);
  const jobType = hourly ? "HOURLY" : "FIXED";
  const [primary, ...others] = niche.skills as [string, ...string[]];
  const skills = [primary, ...rng.sample(others, rng.int(2, Math.min(5, others.length)))];

  // Budget: hourly ranges or a fixed price, scaled by tier; sometimes not provided.
  let hourlyMin: number | null = null;
  let hourlyMax: number | null = null;
  let hourlyType: string | null = null;
  let fixedAmount: number | null = null;
  if (hourly) {
    const min = clamp(roundTo(rng.range(niche.hourly[0], niche.hourly[1]) * TIER_RATE[tier]!, 5), 10, 140);
    const max = clamp(min + roundTo(min * rng.range(0.25, 1), 5), min + 5, 150);
    const form = rng.next();
    if (form < 0.76) [hourlyMin, hourlyMax, hourlyType] = [min, max, "DEFAULT"];
    else if (form < 0.88) [hourlyMin, hourlyType] = [min, "MANUAL"];
    else hourlyType = "NOT_PROVIDED";
  } else if (!rng.chance(0.07)) {
    const raw = Math.exp(rng.range(Math.log(niche.fixed[0]), Math.log(niche.fixed[1]))) * TIER_RATE[tier]!;
    fixedAmount = clamp(roundTo(raw, raw < 100 ? 5 : raw < 1000 ? 25 : raw < 5000 ? 50 : 250), 50, 15000);
  }
  const hourlyStub = !hourly && rng.chance(0.2); // fixed jobs sometimes carry a 0–0 hourly range (§1.7)
  const tileCurrency = rng.chance(0.05) ? null : "USD"; // tiles sometimes omit the currency (§1.2)
  const durationIndex = rng.weighted([0, 1, 2, 3], (i) => (hourly ? HOURLY_DURATION_WEIGHTS : FIXED_DURATION_WEIGHTS)[i]!);
  const [durationLabel, weeks] = DURATIONS[durationIndex]!;
  const workload = hourly
    ? rng.weighted(["Less than 30 hrs/week", "More than 30 hrs/week", null], (w) => (w === null ? 5 : w.startsWith("Less") ? 65 : 30))
    : null;

  // Timing and activity. Jobs under two minutes old have no published counts yet (§1.4).
  const ageMs = 5000 + Math.floor(rng.next() ** 2.5 * 20 * MINUTE);
  const publishTs = nowTs - ageMs;
  const createTs = publishTs - (rng.chance(0.85) ? rng.int(150, 1500) : rng.int(1, 2880) * MINUTE);
  const fresh = ageMs < 2 * MINUTE;
  const proposals = fresh ? 0 : Math.min(50, Math.floor((ageMs / MINUTE) * rng.range(0.1, 1.5)));
  const invites = rng.chance(0.3) ? rng.int(1, 5) : 0;
  const unanswered = rng.int(0, invites);
  const interviewing = Math.min(proposals, rng.chance(0.25) ? rng.int(1, 3) : 0);
  const lastActivityTs = publishTs + rng.int(0, ageMs);
  const personsToHire = rng.chance(0.87) ? 1 : rng.int(2, 5);
  const bidCenter = hourly ? (hourlyMin ?? 30) * rng.range(0.9, 1.4) : (fixedAmount ?? 300) * rng.range(0.8, 1.2);
  const bids =
    !fresh && proposals > 0 ? [round2(bidCenter), round2(bidCenter * rng.range(0.2, 0.7)), round2(bidCenter * rng.range(1.3, 2.5))] : [null, null, null];

  // Talent location: US clients restrict to US talent far more often (≈15 % of all jobs).
  const usClient = company.country.name === "United States";
  const where = rng.next();
  let countries: string[] | null = null;
  let states: string[] | null = null;
  let locationCheckRequired = false;
  if (where < (usClient ? 0.33 : 0.06)) {
    [countries, locationCheckRequired] = [["United States"], true];
    if (rng.chance(0.15)) states = rng.sample(US_STATES, rng.int(1, 2));
  } else if (where < (usClient ? 0.35 : 0.12)) {
    countries = !usClient && rng.chance(0.6) ? [company.country.name] : rng.pick(OTHER_COUNTRY_SETS).slice();
    locationCheckRequired = true;
  } else if (where < (usClient ? 0.38 : 0.15)) {
    countries = [company.country.name]; // preferred, not enforced
  }
  const minJss = rng.weighted([0, 80, 90], (v) => (v === 0 ? 7 : 1.5));
  const english = rng.pick(["ANY", "ANY", "ANY", "CONVERSATIONAL", "FLUENT", "NATIVE"]);
  const freelancerType = rng.pick(["ANY", "ANY", "ANY", "ANY", "INDEPENDENT", "AGENCY"]);
  const minHours = rng.pick([0, 0, 0, 100, 1000]);
  const risingTalent = rng.chance(0.5);
  const portfolio = rng.chance(0.3);
  const countryText = rng.chance(0.06) ? company.country.iso3 : company.country.name; // sources are inconsistent

  const vars: Record<string, string | number> = {
    skill: primary,
    skill2: skills[1]!,
    product: rng.pick(niche.products),
    company: company.name,
    industry: company.industry[1],
    size: company.size < 5 ? "small" : company.size < 50 ? "growing" : "mid-sized",
    team: rng.int(3, 40),
    city: company.city[0],
    country: company.country.name,
    countryIn: (NEEDS_THE.has(company.country.name) ? "the " : "") + company.country.name,
    overlap: rng.int(2, 4),
    years: rng.int(2, tier === 2 ? 7 : 4),
    hours: rng.pick([10, 15, 20, 30, 40]),
    weeks: rng.int(2, 8),
    n: rng.int(2, 12),
    codeword: rng.pick(cat.CODEWORDS),
    domain: company.domain,
    contact: rng.pick(cat.CONTACT_NAMES),
  };
  const title = fill(rng.pick(niche.titles), vars) + (rng.chance(0.2) ? rng.pick(TITLE_SUFFIXES) : "");
  const description = describe(rng, niche, vars, hourly, rng.chance(0.08));

  const hasDetails = !rng.chance(0.03);
  const hasAuth = hasDetails && rng.chance(0.825);
  const questions = hasAuth && rng.chance(0.45) ? rng.sample([...niche.questions.map((q) => fill(q, vars)), ...cat.GENERIC_QUESTIONS], rng.int(1, 4)) : [];
  const value = hourly ? (hourlyMax ?? hourlyMin ?? 30) * 10 * Math.min(weeks, 12) : (fixedAmount ?? 300);
  const connects = 4 + 2 * CONNECT_STEPS.filter((step) => value >= step).length + (rng.chance(0.2) ? rng.pick([-2, 2]) : 0);
  const tags = [
    "searchable",
    ...(hourly && weeks >= 26 && rng.chance(0.3) ? ["contractToHireSet"] : []),
    ...(company.postedCount <= 1 ? ["firstJobPost"] : []),
  ];

  // Builders return fresh objects so the public and authenticated copies share nothing.
  const opening = () => ({
    status: "ACTIVE",
    postedOn: iso(publishTs),
    publishTime: iso(publishTs),
    workload,
    contractorTier: DETAIL_TIERS[tier],
    description,
    info: {
      ciphertext,
      id,
      type: jobType,
      access: "PUBLIC_INDEX",
      title,
      hideBudget: false,
      createdOn: iso(createTs),
      notSureProjectDuration: false,
      notSureFreelancersToHire: false,
      notSureExperienceLevel: false,
      premium: false,
    },
    segmentationData: [
      weeks >= 26
        ? { customValue: null, label: "Ongoing project", name: "Employment", sortOrder: 2, type: "EMPLOYMENT", value: "EMPLOYMENT_POSITION", skill: null }
        : { customValue: null, label: "One-time project", name: "Employment", sortOrder: 1, type: "EMPLOYMENT", value: "ONE_TIME_PROJECT", skill: null },
    ],
    sandsData: {
      occupation: { prefLabel: niche.occupation, ontologyId: numericId(`occupation|${niche.occupation}`) },
      ontologySkills: skills.map((label) => ({ id: skillUid(label), prefLabel: label, freeText: null, relevance: "MANDATORY" })),
      additionalSkills: [],
    },
    category: { name: niche.category[0], urlSlug: niche.category[1] },
    categoryGroup: { name: niche.group[0], urlSlug: niche.group[1] },
    budget: { amount: fixedAmount ?? 0, currencyCode: "USD" },
    annotations: { customFields: [], tags: tags.slice() },
    engagementDuration: { label: durationLabel, weeks },
    extendedBudgetInfo: hourly
      ? { hourlyBudgetMin: hourlyMin, hourlyBudgetMax: hourlyMax, hourlyBudgetType: hourlyType }
      : hourlyStub
        ? { hourlyBudgetMin: 0, hourlyBudgetMax: 0, hourlyBudgetType: "DEFAULT" }
        : { hourlyBudgetMin: null, hourlyBudgetMax: null, hourlyBudgetType: null },
    attachments: [],
    clientActivity: fresh
      ? {
          lastBuyerActivity: null,
          totalApplicants: null,
          totalHired: null,
          totalInvitedToInterview: null,
          unansweredInvites: null,
          invitationsSent: null,
          numberOfPositionsToHire: personsToHire,
        }
      : {
          lastBuyerActivity: iso(lastActivityTs),
          totalApplicants: proposals,
          totalHired: 0,
          totalInvitedToInterview: interviewing,
          unansweredInvites: unanswered,
          invitationsSent: invites,
          numberOfPositionsToHire: personsToHire,
        },
    deliverables: null,
    deadline: null,
    tools: [],
  });
  const qualifications = () => ({
    countries: countries === null ? null : countries.slice(),
    states: states === null ? null : states.slice(),
    regions: null,
    timezones: null,
    locationCheckRequired,
    localMarket: false,
    localDescription: null,
    localFlexibilityDescription: null,
    location: null,
    locations: [],
    minJobSuccessScore: minJss,
    minOdeskHours: minHours,
    prefEnglishSkill: english,
    risingTalent,
    shouldHavePortfolio: portfolio,
    type: freelancerType,
    earnings: null,
    languages: null,
    tests: null,
    group: null,
    groupRecno: null,
    onSiteType: null,
  });
  const buyerInfo = (authenticated: boolean) => ({
    location: {
      city: company.city[0],
      country: countryText,
      countryTimezone: `${utcLabel(company.city[1])} ${company.city[2]}`,
      offsetFromUtcMillis: company.city[1] * 3_600_000,
    },
    ...(company.statsShown ? { stats: { ...company.stats, totalCharges: { amount: company.stats.totalCharges } } } : {}),
    company: {
      name: authenticated && company.nameHiddenInAuth ? null : company.name,
      companyId: company.id,
      isEDCReplicated: false,
      contractDate: company.contractDate,
      profile: { industry: company.industry[0], size: company.size },
    },
    jobs: {
      openCount: company.otherOpenJobs.length + 1,
      postedCount: company.postedCount,
      openJobs: [{ id, ciphertext, title, type: jobType, isPtcPrivate: false }, ...company.otherOpenJobs.map((job) => ({ ...job }))],
    },
    avgHourlyJobsRate: { amount: company.avgHourlyRate },
  });
  const engagement = { rid: String(durationIndex + 1), label: durationLabel, weeks, mtime: null, ctime: null };
  const tileRate = (n: number | null) => (hourly ? (n === null ? null : money(n)) : hourlyStub ? "0.0" : null);

  const client: Record<string, unknown> = {};
  if (company.paymentVerified !== null) client.paymentVerificationStatus = company.paymentVerified ? "VERIFIED" : "UNVERIFIED";
  client.country = countryText;
  if (company.statsShown) {
    client.totalReviews = company.stats.feedbackCount;
    client.totalFeedback = company.stats.score;
    client.totalSpent = company.financialPrivacy ? null : { isoCurrencyCode: "USD", amount: money(company.stats.totalCharges) };
  }
  client.hasFinancialPrivacy = company.financialPrivacy;

  const doc: JobDocument = {
    id,
    title,
    description,
    platform: "marketplace",
    url: `${SANDBOX_JOB_URL}${ciphertext}`,
    ontologySkills: skills.map(
      (label): OntologySkill => ({ uid: skillUid(label), parentSkillUid: null, prefLabel: label, freeText: null, highlighted: false }),
    ),
    jobTile: {
      job: {
        id,
        ciphertext,
        jobType,
        weeklyRetainerBudget: null,
        hourlyBudgetMax: tileRate(hourlyMax),
        hourlyBudgetMin: tileRate(hourlyMin),
        hourlyEngagementType: hourly ? (workload?.startsWith("More") ? "FULL_TIME" : "PART_TIME") : null,
        contractorTier: TILE_TIERS[tier],
        sourcingTimestamp: null,
        createTime: iso(createTs),
        publishTime: iso(publishTs),
        enterpriseJob: company.enterprise,
        personsToHire,
        premium: false,
        totalApplicants: proposals,
        hourlyEngagementDuration: hourly ? { ...engagement } : null,
        fixedPriceAmount: fixedAmount === null ? null : { isoCurrencyCode: tileCurrency, amount: money(fixedAmount) },
        fixedPriceEngagementDuration: hourly ? null : { ...engagement },
      },
    },
    upworkHistoryData: { client },
    connectPrice: clamp(connects, 4, 16),
    exploredAt: nowTs,
  };
  if (hasDetails) {
    doc.jobDetailsResponse = {
      data: {
        jobPubDetails: {
          opening: opening(),
          qualifications: qualifications(),
          buyer: buyerInfo(false),
          buyerExtra: { isPaymentMethodVerified: company.paymentVerified },
          similarJobs: [],
        },
      },
    };
  }
  if (hasAuth) {
    const bid = (amount: number | null) => ({ amount, currencyCode: "USD" });
    doc.authJobDetailsResponse = {
      data: {
        jobAuthDetails: {
          hiredApplicantNames: [],
          opening: { job: opening(), qualifications: qualifications(), questions: questions.map((question, position) => ({ question, position })) },
          buyer: { enterprise: company.enterprise, isPaymentMethodVerified: company.paymentVerified, info: buyerInfo(true), workHistory: company.workHistory },
          currentUserInfo: {
            owner: false,
            freelancerInfo: { profileState: "ACCEPTED", applied: null, hired: null, application: null, pendingInvite: null, contract: null },
          },
          applicantsBidsStats: { avgRateBid: bid(bids[0] ?? null), minRateBid: bid(bids[1] ?? null), maxRateBid: bid(bids[2] ?? null) },
          applicationContext: { freelancerAllowed: true, clientAllowed: true },
        },
      },
    };
    if (questions.length > 0) doc.screeningQuestions = questions.map((question, position) => ({ position, question }));
  }
  return doc;
}
