import { describe, expect, test } from "bun:test";
import { normalizeJob, type NormalizedJob } from "../../../src/modules/jobs/normalize";
import { ciphertextOf, normalizeMarketplaceNode } from "../../../src/sources/marketplace-api/normalize";
import hourlyUsOnly from "../../fixtures/marketplace-api/node-hourly-us-only.json";
import fixedNoTilde from "../../fixtures/marketplace-api/node-fixed-no-tilde.json";
import missingSections from "../../fixtures/marketplace-api/node-missing-sections.json";
import newClient from "../../fixtures/marketplace-api/node-new-client-ambiguous.json";
import usPreferred from "../../fixtures/marketplace-api/node-us-preferred-not-mandatory.json";

const EXPLORED = Date.UTC(2026, 0, 15, 12, 0, 0);

function normalized(node: unknown): NormalizedJob {
  const doc = normalizeMarketplaceNode(node, { exploredAt: EXPLORED });
  expect(doc).not.toBeNull();
  expect(doc!.platform).toBe("marketplace");
  expect(doc!.source).toBe("marketplace-api");
  const result = normalizeJob(doc);
  if (!result.ok) throw new Error(`normalizeJob refused the document: ${result.error}`);
  return result.job;
}

describe("official search node → archived document → normalizeJob", () => {
  test("hourly, US-only mandatory, verified US client with money strings", () => {
    const job = normalized(hourlyUsOnly);
    expect(job).toMatchObject({
      ciphertext: "~021961234567890123456",
      jobUid: "1961234567890123456",
      url: "https://www.upwork.com/jobs/~021961234567890123456",
      jobType: "HOURLY",
      hourlyMin: 40,
      hourlyMax: 85.5,
      fixedBudget: null,
      currency: "USD",
      clientCountry: "US",
      clientTotalSpent: 12500.5,
      paymentVerified: true,
      clientRating: 4.86,
      clientReviews: 11,
      hasClientStats: true,
      usOnly: true,
      companyId: "1504602788601667585",
      engagementWeeks: 26,
      engagementLabel: "3 to 6 months",
      publishTimeTs: Date.parse("2026-01-15T11:00:00.000Z"),
      exploredAt: EXPLORED,
    });
    expect(job.skills).toEqual(["TypeScript", "React"]);
  });

  test("fixed price, ciphertext without the ~, unverified German client, restriction off", () => {
    const doc = normalizeMarketplaceNode(fixedNoTilde)!;
    expect(doc.jobTile!.job!.ciphertext).toBe("~021962000000000000001");
    expect(doc.jobTile!.job!.fixedPriceAmount).toEqual({ amount: "750", isoCurrencyCode: "EUR" });
    const job = normalized(fixedNoTilde);
    expect(job).toMatchObject({
      ciphertext: "~021962000000000000001",
      jobType: "FIXED",
      fixedBudget: 750,
      hourlyMin: null,
      hourlyMax: null,
      currency: "EUR",
      clientCountry: "DE",
      clientTotalSpent: 410,
      paymentVerified: false,
      clientRating: 3.5,
      clientReviews: 2,
      usOnly: false,
    });
  });

  test("missing sections stay unknown: no ciphertext (derived from id), no client, no location fields", () => {
    const job = normalized(missingSections);
    expect(job).toMatchObject({
      ciphertext: "~021963000000000000002",
      jobUid: "1963000000000000002",
      jobType: "HOURLY", // hourlyBudgetType is only set on hourly jobs
      hourlyMin: null,
      hourlyMax: null,
      clientCountry: null,
      clientTotalSpent: null,
      paymentVerified: null,
      clientRating: null,
      clientReviews: null,
      hasClientStats: false,
      usOnly: null,
      skills: [],
    });
  });

  test("old hex ciphertext, unparsable amount, unrated client with null verification, US+Canada restriction", () => {
    const doc = normalizeMarketplaceNode(newClient)!;
    expect(doc.id).toBe("~012fe93cd81700ed63"); // the search-result id is not an opening id
    const job = normalized(newClient);
    expect(job).toMatchObject({
      ciphertext: "~012fe93cd81700ed63",
      jobUid: null,
      jobType: null, // neither an hourly budget nor a positive amount says which
      fixedBudget: null,
      clientCountry: "CA",
      clientTotalSpent: null,
      paymentVerified: null,
      clientRating: 0,
      clientReviews: 0,
      usOnly: false, // mandatory, but not only the US
    });
  });

  test("US preferred but mandatory not said → unknown; explicit type, empty max, numeric-string id", () => {
    const job = normalized(usPreferred);
    expect(job).toMatchObject({
      ciphertext: "~021964000000000000003",
      jobType: "HOURLY",
      hourlyMin: 15,
      hourlyMax: null,
      clientCountry: "US",
      paymentVerified: true,
      clientRating: 5,
      clientReviews: 4,
      usOnly: null,
    });
  });

  test("mandatory with no countries named is unknown, not 'not US-only'", () => {
    const node = { ...hourlyUsOnly, preferredFreelancerLocation: null, preferredFreelancerLocationMandatory: true };
    expect(normalized(node).usOnly).toBeNull();
  });

  test("location fields go where the job normaliser reads them", () => {
    const doc = normalizeMarketplaceNode(hourlyUsOnly)!;
    expect(doc.jobDetailsResponse).toEqual({
      data: { jobPubDetails: { qualifications: { countries: ["United States"], locationCheckRequired: true } } },
    });
    expect(doc.upworkHistoryData!.client).toMatchObject({
      country: "United States",
      paymentVerificationStatus: "VERIFIED",
      totalSpent: { amount: "12500.5", isoCurrencyCode: "USD" },
    });
  });

  test("is pure: the same node gives the same document and the input is untouched", () => {
    const before = JSON.stringify(hourlyUsOnly);
    expect(normalizeMarketplaceNode(hourlyUsOnly, { exploredAt: 1 })).toEqual(normalizeMarketplaceNode(hourlyUsOnly, { exploredAt: 1 }));
    expect(JSON.stringify(hourlyUsOnly)).toBe(before);
  });
});

describe("identity", () => {
  test("ciphertext derivation", () => {
    expect(ciphertextOf({ ciphertext: "~021234567890123456789" })).toBe("~021234567890123456789");
    expect(ciphertextOf({ ciphertext: "021234567890123456789" })).toBe("~021234567890123456789");
    expect(ciphertextOf({ ciphertext: "1234567890123456789" })).toBe("~021234567890123456789");
    expect(ciphertextOf({ ciphertext: "012fe93cd81700ed63" })).toBe("~012fe93cd81700ed63");
    expect(ciphertextOf({ id: "1234567890123456789" })).toBe("~021234567890123456789");
    expect(ciphertextOf({ id: "abc" })).toBeNull();
  });

  test("a node without usable identity is skipped; an unsafe numeric id is not trusted", () => {
    expect(normalizeMarketplaceNode({ title: "t", description: "d" })).toBeNull();
    // biome-ignore lint/correctness/noPrecisionLoss: an id past 2^53 arrives rounded; that is the case under test
    expect(normalizeMarketplaceNode({ id: 1964000000000000003, title: "t", description: "d" })).toBeNull();
    expect(normalizeMarketplaceNode(null)).toBeNull();
    expect(normalizeMarketplaceNode([])).toBeNull();
  });
});
