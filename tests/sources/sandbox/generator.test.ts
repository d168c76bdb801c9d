import { describe, expect, spyOn, test } from "bun:test";
import type { JobDocument } from "../../../src/sources/document";
import { tokenize } from "../../../src/lib/text";
import { COMPANY_POOL_SIZE, generateJob } from "../../../src/sources/sandbox/generator";

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const SEED = 42;
const N = 2000;
const docs: JobDocument[] = Array.from({ length: N }, (_, index) => generateJob({ seed: SEED, index, nowTs: NOW }));

const DURATION_LABELS = ["Less than 1 month", "1 to 3 months", "3 to 6 months", "More than 6 months"];
const TIERS: Record<string, string> = { EntryLevel: "ENTRY_LEVEL", IntermediateLevel: "INTERMEDIATE", ExpertLevel: "EXPERT" };
const MONEY_STRING = /^\d+\.\d{1,2}$/;
const ID19 = /^\d{19}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const pubOf = (d: JobDocument) => d.jobDetailsResponse?.data?.jobPubDetails;
const authOf = (d: JobDocument) => d.authJobDetailsResponse?.data?.jobAuthDetails;
const tileOf = (d: JobDocument) => d.jobTile!.job!;
const clientOf = (d: JobDocument) => d.upworkHistoryData!.client!;
const share = (predicate: (d: JobDocument) => boolean) => docs.filter(predicate).length / N;
const isUsOnly = (q: any) => q?.locationCheckRequired === true && JSON.stringify(q.countries) === '["United States"]';
const numberOrNull = (v: unknown) => v === null || typeof v === "number";
/** Whole-word phrase match on the shared tokenizer, as feed keywords are matched. */
function hasPhrase(text: string, phrase: string): boolean {
  const words = tokenize(text);
  const want = tokenize(phrase);
  return words.some((_, i) => want.every((w, j) => words[i + j] === w));
}

describe("determinism and identity", () => {
  test("the same inputs give deep-equal documents, key order included", () => {
    for (const opts of [
      { seed: 1, index: 0, nowTs: NOW },
      { seed: 7, index: 123, nowTs: NOW + 5 },
      { seed: -3, index: 4999, nowTs: 1 },
    ]) {
      const a = generateJob(opts);
      const b = generateJob({ ...opts });
      expect(b).toEqual(a);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
  });

  test("uses neither Math.random nor Date.now", () => {
    const random = spyOn(Math, "random").mockImplementation(() => {
      throw new Error("Math.random called");
    });
    const now = spyOn(Date, "now").mockImplementation(() => {
      throw new Error("Date.now called");
    });
    try {
      for (let index = 0; index < 50; index++) generateJob({ seed: 5, index, nowTs: NOW });
    } finally {
      random.mockRestore();
      now.mockRestore();
    }
  });

  test("documents share no state: mutating one does not change the next", () => {
    const opts = { seed: 3, index: 9, nowTs: NOW };
    const pristine = JSON.stringify(generateJob(opts));
    const doc = generateJob(opts);
    (authOf(doc) ?? pubOf(doc) ?? {}).buyer = null;
    tileOf(doc).jobType = "CHANGED";
    doc.ontologySkills!.length = 0;
    expect(JSON.stringify(generateJob(opts))).toBe(pristine);
  });

  test("ids and ciphertexts are unique over 5,000 indexes and two clock readings", () => {
    const ids = new Set<string>();
    const ciphers = new Set<string>();
    for (const nowTs of [NOW, NOW + 60_000]) {
      for (let index = 0; index < 5000; index++) {
        const doc = generateJob({ seed: SEED, index, nowTs });
        ids.add(doc.id);
        ciphers.add(tileOf(doc).ciphertext!);
      }
    }
    expect(ids.size).toBe(10_000);
    expect(ciphers.size).toBe(10_000);
  });

  test("a different seed or a 1 ms different clock gives a different id", () => {
    const base = generateJob({ seed: 1, index: 0, nowTs: NOW }).id;
    expect(generateJob({ seed: 2, index: 0, nowTs: NOW }).id).not.toBe(base);
    expect(generateJob({ seed: 1, index: 0, nowTs: NOW + 1 }).id).not.toBe(base);
    expect(generateJob({ seed: 1, index: 1, nowTs: NOW }).id).not.toBe(base);
  });

  test("ids are 19 digits and ciphertexts are ~02 + id everywhere they appear", () => {
    for (const doc of docs) {
      expect(doc.id).toMatch(ID19);
      const tile = tileOf(doc);
      expect(tile.id).toBe(doc.id);
      expect(tile.ciphertext).toMatch(/^~02\d{19}$/);
      expect(tile.ciphertext).toBe(`~02${doc.id}`);
      // A reserved example domain (RFC 2606): a sandbox job never links to the real marketplace.
      expect(doc.url).toBe(`https://marketplace.example/jobs/${tile.ciphertext}`);
      expect(JSON.stringify(doc)).not.toContain("upwork.com");
      expect(doc.platform).toBe("marketplace");
      const pub = pubOf(doc);
      if (pub) expect(pub.opening.info).toMatchObject({ id: doc.id, ciphertext: tile.ciphertext, title: doc.title });
      const auth = authOf(doc);
      if (auth) expect(auth.opening.job.info).toMatchObject({ id: doc.id, ciphertext: tile.ciphertext, title: doc.title });
    }
  });
});

describe("document shape", () => {
  test("top level and search tile", () => {
    for (const doc of docs) {
      expect(doc.title.length).toBeGreaterThan(10);
      expect(doc.description.split("\n\n").length).toBeGreaterThanOrEqual(3);
      expect(doc.exploredAt).toBe(NOW);
      expect(Number.isInteger(doc.connectPrice)).toBe(true);
      expect(doc.connectPrice!).toBeGreaterThanOrEqual(4);
      expect(doc.connectPrice!).toBeLessThanOrEqual(16);
      expect(doc.ontologySkills!.length).toBeGreaterThanOrEqual(3);
      for (const skill of doc.ontologySkills!) {
        expect(skill.uid).toMatch(ID19);
        expect(typeof skill.prefLabel).toBe("string");
      }
      const tile = tileOf(doc);
      expect(["HOURLY", "FIXED"]).toContain(tile.jobType!);
      expect(Object.keys(TIERS)).toContain(tile.contractorTier as string);
      expect(tile.publishTime).toMatch(ISO);
      expect(tile.createTime as string).toMatch(ISO);
      expect(Number.isInteger(tile.totalApplicants)).toBe(true);
      expect(tile.personsToHire as number).toBeGreaterThanOrEqual(1);

      const client = clientOf(doc);
      expect(typeof client.country).toBe("string");
      expect(typeof client.hasFinancialPrivacy).toBe("boolean");
      if ("paymentVerificationStatus" in client) expect(["VERIFIED", "UNVERIFIED"]).toContain(client.paymentVerificationStatus as string);
      if ("totalReviews" in client) {
        expect(Number.isInteger(client.totalReviews)).toBe(true);
        expect(client.totalFeedback as number).toBeGreaterThanOrEqual(0);
        expect(client.totalFeedback as number).toBeLessThanOrEqual(5);
        const spent = client.totalSpent as { isoCurrencyCode: string; amount: string } | null;
        if (spent !== null) expect(spent).toEqual({ isoCurrencyCode: "USD", amount: expect.stringMatching(MONEY_STRING) });
      }
    }
  });

  test("money: strings in tiles, numbers in details, within realistic ranges", () => {
    for (const doc of docs) {
      const tile = tileOf(doc);
      const opening = pubOf(doc)?.opening;
      if (tile.jobType === "HOURLY") {
        expect(tile.fixedPriceAmount).toBeNull();
        for (const v of [tile.hourlyBudgetMin, tile.hourlyBudgetMax]) if (v !== null) expect(v).toMatch(MONEY_STRING);
        if (tile.hourlyBudgetMax !== null) expect(tile.hourlyBudgetMin).not.toBeNull();
        const min = tile.hourlyBudgetMin === null ? null : Number(tile.hourlyBudgetMin);
        const max = tile.hourlyBudgetMax === null ? null : Number(tile.hourlyBudgetMax);
        if (min !== null) expect(min).toBeGreaterThanOrEqual(10);
        if (max !== null) expect(max).toBeLessThanOrEqual(150);
        if (min !== null && max !== null) expect(max).toBeGreaterThan(min);
        if (opening) {
          expect(opening.budget).toEqual({ amount: 0, currencyCode: "USD" });
          expect(opening.extendedBudgetInfo).toEqual({
            hourlyBudgetMin: min,
            hourlyBudgetMax: max,
            hourlyBudgetType: min === null ? "NOT_PROVIDED" : max === null ? "MANUAL" : "DEFAULT",
          });
        }
      } else {
        const fixed = tile.fixedPriceAmount;
        if (fixed !== null && fixed !== undefined) {
          expect(fixed.amount).toMatch(MONEY_STRING);
          const amount = Number(fixed.amount);
          expect(amount).toBeGreaterThanOrEqual(50);
          expect(amount).toBeLessThanOrEqual(15_000);
          if (opening) expect(opening.budget).toEqual({ amount, currencyCode: "USD" });
        } else if (opening) expect(opening.budget.amount).toBe(0);
      }
      if (opening?.buyer?.stats) expect(typeof opening.buyer.stats.totalCharges.amount).toBe("number");
    }
  });

  test("public details follow §1.3", () => {
    const withPub = docs.filter((d) => pubOf(d) !== undefined);
    expect(withPub.length).toBeGreaterThan(N * 0.9);
    for (const doc of withPub) {
      const pub = pubOf(doc)!;
      const o = pub.opening;
      const tile = tileOf(doc);
      expect(o.status).toBe("ACTIVE");
      expect(o.publishTime).toBe(tile.publishTime);
      expect(o.postedOn).toBe(tile.publishTime);
      expect(o.description).toBe(doc.description);
      expect(o.contractorTier).toBe(TIERS[tile.contractorTier as string]!);
      expect(o.info.type).toBe(tile.jobType);
      expect(o.info.access).toBe("PUBLIC_INDEX");
      expect(o.workload === null || /hrs\/week$/.test(o.workload)).toBe(true);
      expect(typeof o.category.name).toBe("string");
      expect(o.category.urlSlug).toMatch(/^[a-z-]+$/);
      expect(o.categoryGroup.urlSlug).toMatch(/^[a-z-]+$/);
      expect(DURATION_LABELS).toContain(o.engagementDuration.label);
      expect(typeof o.engagementDuration.weeks).toBe("number");
      const activity = o.clientActivity;
      expect(activity.numberOfPositionsToHire).toBe(tile.personsToHire);
      for (const key of ["totalApplicants", "totalHired", "totalInvitedToInterview", "unansweredInvites", "invitationsSent"]) {
        expect(numberOrNull(activity[key])).toBe(true);
      }

      const q = pub.qualifications;
      expect(typeof q.locationCheckRequired).toBe("boolean");
      expect(q.countries === null || Array.isArray(q.countries)).toBe(true);
      expect("states" in q && "minJobSuccessScore" in q && "prefEnglishSkill" in q && "type" in q).toBe(true);

      const buyer = pub.buyer;
      expect(typeof buyer.location.city).toBe("string");
      expect(buyer.location.country).toBe(clientOf(doc).country);
      expect(typeof buyer.location.countryTimezone).toBe("string");
      expect(Number.isInteger(buyer.location.offsetFromUtcMillis)).toBe(true);
      if (buyer.stats) {
        for (const key of ["totalAssignments", "activeAssignmentsCount", "hoursCount", "feedbackCount", "score", "totalJobsWithHires"]) {
          expect(typeof buyer.stats[key]).toBe("number");
        }
        expect(buyer.stats.score).toBeGreaterThanOrEqual(0);
        expect(buyer.stats.score).toBeLessThanOrEqual(5);
      }
      expect(buyer.company.companyId).toMatch(ID19);
      expect(typeof buyer.company.name).toBe("string");
      expect(buyer.company.contractDate).toMatch(ISO);
      expect(typeof buyer.company.profile.size).toBe("number");
      expect(buyer.jobs.openCount).toBe(buyer.jobs.openJobs.length);
      expect(buyer.jobs.postedCount).toBeGreaterThanOrEqual(buyer.jobs.openCount);
      expect(buyer.jobs.openJobs[0]).toEqual({ id: doc.id, ciphertext: tile.ciphertext, title: doc.title, type: tile.jobType, isPtcPrivate: false });
      expect(numberOrNull(buyer.avgHourlyJobsRate.amount)).toBe(true);
      expect([true, false, null]).toContain(pub.buyerExtra.isPaymentMethodVerified);
    }
  });

  test("authenticated details follow §1.4 and agree with the public ones", () => {
    const withAuth = docs.filter((d) => authOf(d) !== undefined);
    for (const doc of withAuth) {
      const auth = authOf(doc)!;
      const pub = pubOf(doc)!;
      expect(pub).toBeDefined(); // auth details never come without public ones
      expect(auth.opening.job).toEqual(pub.opening);
      expect(auth.opening.qualifications).toEqual(pub.qualifications);
      expect(Array.isArray(auth.opening.questions)).toBe(true);
      expect(typeof auth.buyer.enterprise).toBe("boolean");
      expect(auth.buyer.isPaymentMethodVerified).toBe(pub.buyerExtra.isPaymentMethodVerified);
      const info = auth.buyer.info;
      expect(info.company.companyId).toBe(pub.buyer.company.companyId);
      expect(info.location).toEqual(pub.buyer.location);
      expect(info.stats).toEqual(pub.buyer.stats);
      expect(info.jobs).toEqual(pub.buyer.jobs);
      for (const entry of auth.buyer.workHistory) {
        expect(["ACTIVE", "CLOSED"]).toContain(entry.status);
        expect(entry.startDate).toMatch(ISO);
        expect(entry.status === "ACTIVE" ? entry.endDate === null : entry.endDate > entry.startDate).toBe(true);
        expect(typeof entry.totalCharge).toBe("number");
        expect(typeof entry.totalHours).toBe("number");
        expect(entry.jobInfo.title).not.toMatch(/[{}]/);
        expect(entry.jobInfo).toEqual({
          title: expect.any(String),
          id: entry.jobInfo.id,
          access: expect.any(String),
          type: expect.any(String),
          ciphertext: entry.jobInfo.ciphertext,
        });
        if (entry.jobInfo.access === "PRIVATE") expect([entry.jobInfo.id, entry.jobInfo.ciphertext]).toEqual([null, null]);
        expect(entry.contractorInfo.contractorName).toMatch(/^\w+ [A-Z]\.$/);
        expect(entry.contractorInfo.ciphertext).toMatch(/^~01[0-9a-f]+$/);
        expect(typeof entry.rate.amount).toBe("number");
        if (entry.feedbackToClient) expect(entry.feedbackToClient.score).toBeLessThanOrEqual(5);
      }
      const bids = auth.applicantsBidsStats;
      for (const key of ["avgRateBid", "minRateBid", "maxRateBid"]) {
        expect(bids[key].currencyCode).toBe("USD");
        expect(numberOrNull(bids[key].amount)).toBe(true);
      }
      if (bids.avgRateBid.amount !== null) expect(bids.minRateBid.amount).toBeLessThanOrEqual(bids.maxRateBid.amount);
    }
  });

  test("freshly posted jobs have null counts and null bid amounts; older ones have numbers", () => {
    let fresh = 0;
    let counted = 0;
    for (const doc of docs) {
      const activity = pubOf(doc)?.opening.clientActivity;
      if (!activity) continue;
      if (activity.totalApplicants === null) {
        fresh++;
        expect(activity.lastBuyerActivity).toBeNull();
        expect(activity.totalHired).toBeNull();
        expect(typeof activity.numberOfPositionsToHire).toBe("number");
        const bids = authOf(doc)?.applicantsBidsStats;
        if (bids) expect(bids.avgRateBid.amount).toBeNull();
      } else {
        counted++;
        expect(activity.totalApplicants).toBe(tileOf(doc).totalApplicants);
        expect(Date.parse(activity.lastBuyerActivity)).toBeLessThanOrEqual(NOW);
      }
    }
    expect(fresh).toBeGreaterThan(0);
    expect(counted).toBeGreaterThan(0);
  });

  test("times: createTime ≤ publishTime ≤ nowTs, published within the last hour", () => {
    for (const doc of docs) {
      const tile = tileOf(doc);
      const published = Date.parse(tile.publishTime!);
      expect(published).toBeLessThanOrEqual(NOW);
      expect(published).toBeGreaterThan(NOW - 60 * 60_000);
      expect(Date.parse(tile.createTime as string)).toBeLessThanOrEqual(published);
    }
  });
});

describe("screening questions", () => {
  test("are mirrored at the top level with 0-based positions when the auth details have them", () => {
    let withQuestions = 0;
    for (const doc of docs) {
      const questions = authOf(doc)?.opening.questions ?? [];
      if (questions.length === 0) {
        expect(doc.screeningQuestions).toBeUndefined();
        continue;
      }
      withQuestions++;
      expect(questions.length).toBeLessThanOrEqual(4);
      expect(questions.map((q: { position: number }) => q.position)).toEqual(questions.map((_: unknown, i: number) => i));
      expect(doc.screeningQuestions).toEqual(questions.map((q: { position: number; question: string }) => ({ position: q.position, question: q.question })));
      for (const q of doc.screeningQuestions!) expect(q.question).not.toMatch(/[{}]/);
    }
    expect(withQuestions).toBeGreaterThan(N * 0.15);
    expect(docs.some((d) => d.screeningQuestions?.some((q) => q.question.startsWith("Describe your recent experience")))).toBe(true);
  });
});

describe("variety for the feed filters", () => {
  test("hourly and fixed are both common", () => {
    const hourly = share((d) => tileOf(d).jobType === "HOURLY");
    expect(hourly).toBeGreaterThan(0.4);
    expect(hourly).toBeLessThan(0.6);
    expect(share((d) => tileOf(d).jobType === "HOURLY" && tileOf(d).hourlyBudgetMin === null)).toBeGreaterThan(0);
    expect(share((d) => tileOf(d).jobType === "FIXED" && tileOf(d).fixedPriceAmount === null)).toBeGreaterThan(0);
  });

  test("US-only restrictions are 8–25 % and consistent in both qualification copies", () => {
    for (const seed of [SEED, 7]) {
      const sample = seed === SEED ? docs : Array.from({ length: N }, (_, index) => generateJob({ seed, index, nowTs: NOW }));
      const usOnly = sample.filter((d) => isUsOnly(pubOf(d)?.qualifications)).length / N;
      expect(usOnly).toBeGreaterThan(0.08);
      expect(usOnly).toBeLessThan(0.25);
    }
    for (const doc of docs) {
      const auth = authOf(doc);
      if (auth) expect(isUsOnly(auth.opening.qualifications)).toBe(isUsOnly(pubOf(doc)!.qualifications));
    }
    const unrestricted = share((d) => pubOf(d)?.qualifications.countries === null && pubOf(d)?.qualifications.locationCheckRequired === false);
    expect(unrestricted).toBeGreaterThan(0.6);
    // Other mandatory countries, and a preferred-but-not-required US, exist too.
    expect(docs.some((d) => pubOf(d)?.qualifications.locationCheckRequired && !isUsOnly(pubOf(d)!.qualifications))).toBe(true);
    expect(docs.some((d) => pubOf(d)?.qualifications.locationCheckRequired === false && pubOf(d)?.qualifications.countries !== null)).toBe(true);
  });

  test("some descriptions carry a contact e-mail, most do not", () => {
    const email = share((d) => /\b[\w.+-]+@[\w-]+\.[a-z]{2,}\b/.test(d.description));
    expect(email).toBeGreaterThan(0.03);
    expect(email).toBeLessThan(0.15);
  });

  test("clients: verified mostly, some unverified and unknown, new clients and absent stats", () => {
    const status = (d: JobDocument) => clientOf(d).paymentVerificationStatus;
    expect(share((d) => status(d) === "VERIFIED")).toBeGreaterThan(0.6);
    expect(share((d) => status(d) === "UNVERIFIED")).toBeGreaterThan(0.05);
    expect(share((d) => status(d) === undefined)).toBeGreaterThan(0.03);
    expect(share((d) => pubOf(d) !== undefined && pubOf(d)!.buyer.stats === undefined)).toBeGreaterThan(0.03);
    const newClient = docs.find((d) => pubOf(d)?.buyer.stats?.feedbackCount === 0 && pubOf(d)?.buyer.stats?.totalCharges.amount === 0);
    expect(newClient).toBeDefined();
    expect(pubOf(newClient!)!.buyer.stats.score).toBe(0);
    const scores = docs
      .map((d) => pubOf(d)?.buyer.stats)
      .filter((s) => s && s.feedbackCount > 0)
      .map((s) => s.score as number);
    expect(Math.min(...scores)).toBeGreaterThanOrEqual(3);
    expect(Math.min(...scores)).toBeLessThan(4);
    expect(Math.max(...scores)).toBeLessThanOrEqual(5);
  });

  test("clients come from many countries, mostly the United States, sometimes as an ISO-3 code", () => {
    const countries = new Map<string, number>();
    for (const doc of docs) countries.set(clientOf(doc).country as string, (countries.get(clientOf(doc).country as string) ?? 0) + 1);
    expect(countries.size).toBeGreaterThanOrEqual(25);
    const top = [...countries].sort((a, b) => b[1] - a[1])[0]!;
    expect(top[0]).toBe("United States");
    expect(countries.has("United Kingdom")).toBe(true);
    expect([...countries.keys()].some((c) => /^[A-Z]{3}$/.test(c))).toBe(true);
  });

  test("section coverage: most have auth details, a few only the search tile", () => {
    const auth = share((d) => authOf(d) !== undefined);
    expect(auth).toBeGreaterThan(0.7);
    expect(auth).toBeLessThan(0.9);
    const tileOnly = share((d) => pubOf(d) === undefined && authOf(d) === undefined);
    expect(tileOnly).toBeGreaterThan(0.005);
    expect(tileOnly).toBeLessThan(0.07);
  });

  test("companies recur with stable identity across jobs", () => {
    const seen = new Map<string, { name: string; city: string; contractDate: string; history: string | null; count: number }>();
    for (const doc of docs) {
      const buyer = pubOf(doc)?.buyer;
      if (!buyer) continue;
      const history = authOf(doc) ? JSON.stringify(authOf(doc)!.buyer.workHistory) : null;
      const known = seen.get(buyer.company.companyId);
      if (!known) {
        seen.set(buyer.company.companyId, { name: buyer.company.name, city: buyer.location.city, contractDate: buyer.company.contractDate, history, count: 1 });
        continue;
      }
      known.count++;
      expect(buyer.company.name).toBe(known.name);
      expect(buyer.location.city).toBe(known.city);
      expect(buyer.company.contractDate).toBe(known.contractDate);
      if (history !== null && known.history !== null) expect(history).toBe(known.history);
      known.history ??= history;
    }
    expect(seen.size).toBeLessThanOrEqual(COMPANY_POOL_SIZE);
    expect(seen.size).toBeGreaterThan(100);
    expect(Math.max(...[...seen.values()].map((c) => c.count))).toBeGreaterThanOrEqual(5);
    expect(new Set([...seen.values()].map((c) => c.name)).size).toBe(seen.size);
    // A restart (new clock reading) sees the same companies.
    const later = generateJob({ seed: SEED, index: 0, nowTs: NOW + 3_600_000 });
    if (pubOf(later)) expect(seen.has(pubOf(later)!.buyer.company.companyId)).toBe(true);
  });

  test("texts vary and support whole-word keyword matching", () => {
    expect(new Set(docs.map((d) => d.title)).size).toBeGreaterThan(N * 0.3);
    expect(new Set(docs.map((d) => d.description)).size).toBe(N);
    for (const doc of docs) expect(`${doc.title} ${doc.description}`).not.toMatch(/[{}]/);
    const text = (d: JobDocument) => `${d.title}\n${d.description}`;
    expect(docs.some((d) => hasPhrase(text(d), "react native"))).toBe(true);
    expect(docs.some((d) => hasPhrase(text(d), "machine learning"))).toBe(true);
    // "Go" is a skill, and other texts contain words that merely start with "go".
    expect(docs.some((d) => d.ontologySkills!.some((s) => s.prefLabel === "Go"))).toBe(true);
    const goSubstringOnly = docs.filter((d) => /go/i.test(text(d)) && !tokenize(text(d)).includes("go"));
    expect(goSubstringOnly.some((d) => tokenize(text(d)).some((w) => w === "good" || w === "going" || w === "ongoing"))).toBe(true);
    const categories = new Set(docs.map((d) => pubOf(d)?.opening.category.name).filter(Boolean));
    expect(categories.size).toBeGreaterThanOrEqual(12);
    for (const label of ["React", "Flutter", "Python", "AWS", "Figma", "WordPress", "Shopify", "SEO", "Rust"]) {
      expect(docs.some((d) => d.ontologySkills!.some((s) => s.prefLabel === label))).toBe(true);
    }
  });
});
