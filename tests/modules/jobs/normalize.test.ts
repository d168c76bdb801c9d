import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { normalizeJob, type NormalizedJob } from "../../../src/modules/jobs/normalize";

const FIXTURES = join(import.meta.dir, "../../fixtures/jobs");
const fixture = (name: string): Record<string, any> => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));

function ok(doc: unknown, opts?: { nowTs?: number }): NormalizedJob {
  const r = normalizeJob(doc, opts);
  if (!r.ok) throw new Error(`expected ok, got: ${r.error}`);
  return r.job;
}
function error(doc: unknown): string {
  const r = normalizeJob(doc);
  if (r.ok) throw new Error("expected a validation error");
  return r.error;
}

/** A minimal valid search-tile document; tests add the sections they exercise. */
const CIPHER = "~021900000000000000001";
const base = (extra: Record<string, unknown> = {}) => ({
  id: "1900000000000000001",
  title: "Job",
  description: "Do the work.",
  jobTile: { job: { id: "1900000000000000001", ciphertext: CIPHER } },
  ...extra,
});
const auth = (jobAuthDetails: unknown) => ({ authJobDetailsResponse: { data: { jobAuthDetails } } });
const pub = (jobPubDetails: unknown) => ({ jobDetailsResponse: { data: { jobPubDetails } } });
const tileClient = (client: unknown) => ({ upworkHistoryData: { client } });
const sha20 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 20);

describe("fixtures", () => {
  const cases: [string, Partial<NormalizedJob>][] = [
    [
      "marketplace-rich",
      {
        ciphertext: "~021947712345678901234",
        jobUid: "1947712345678901234",
        platform: "marketplace",
        title: "Senior TypeScript engineer for a Bun + SQLite backend",
        skills: ["TypeScript", "SQLite", "Drizzle ORM", "Bun"],
        url: "https://www.upwork.com/jobs/~021947712345678901234",
        // the authenticated body wins over the public body and the tile (25–45, 25000, 4.9, 12)
        jobType: "HOURLY",
        hourlyMin: 30,
        hourlyMax: 50,
        fixedBudget: null,
        currency: "USD",
        clientCountry: "CA",
        clientTotalSpent: 26158.39,
        paymentVerified: true,
        clientRating: 4.94,
        clientReviews: 14,
        hasClientStats: true,
        usOnly: false,
        contactEmails: ["hiring@northwind-logistics.ca", "ops@northwind-logistics.ca"],
        emailFound: true,
        publishTimeTs: Date.parse("2026-03-02T14:05:11.000Z"),
        companyId: "1600000000000000001",
        engagementWeeks: 26,
        engagementLabel: "3 to 6 months",
        screeningQuestions: [
          { position: 0, question: "Which queue libraries have you used with SQLite?" },
          { position: 1, question: "How soon could you start?" },
        ],
        exploredAt: 1772460400000,
      },
    ],
    [
      "marketplace-hourly-tile",
      {
        ciphertext: "~021950000000000000777",
        jobUid: "1950000000000000777",
        skills: ["React Native", "Expo"],
        jobType: "HOURLY",
        hourlyMin: 40,
        hourlyMax: 85,
        fixedBudget: null,
        currency: null,
        clientCountry: "US",
        clientTotalSpent: 8098.49,
        paymentVerified: true,
        clientRating: 4.78,
        clientReviews: 58,
        hasClientStats: true,
        usOnly: null,
        contactEmails: [],
        emailFound: false,
        publishTimeTs: Date.parse("2026-03-05T09:30:01.500Z"),
        companyId: null,
        engagementWeeks: null,
        engagementLabel: null,
        screeningQuestions: [],
        exploredAt: 1772703000000,
      },
    ],
    [
      "marketplace-fixed-public",
      {
        ciphertext: "~021951111111111111111",
        jobUid: "1951111111111111111",
        jobType: "FIXED",
        hourlyMin: null,
        hourlyMax: null,
        fixedBudget: 500,
        currency: "EUR",
        clientCountry: "DE",
        clientTotalSpent: 1200,
        paymentVerified: false,
        clientRating: 4.5,
        clientReviews: 3,
        hasClientStats: true,
        usOnly: false,
        contactEmails: [],
        emailFound: false,
        publishTimeTs: Date.parse("2026-02-20T08:00:00.000Z"),
        companyId: "1700000000000000002",
        engagementWeeks: 4,
        engagementLabel: "Less than 1 month",
        exploredAt: null,
      },
    ],
    [
      "marketplace-new-client",
      {
        jobType: "FIXED",
        hourlyMin: null,
        hourlyMax: null,
        fixedBudget: 150,
        currency: "USD",
        clientCountry: "IN",
        clientTotalSpent: null,
        paymentVerified: false,
        clientRating: null,
        clientReviews: null,
        hasClientStats: false,
        usOnly: false,
        companyId: "1800000000000000003",
        screeningQuestions: [],
      },
    ],
    [
      "marketplace-us-only",
      {
        jobType: "HOURLY",
        hourlyMin: 30,
        hourlyMax: 45,
        clientCountry: "US",
        clientTotalSpent: 0,
        paymentVerified: true,
        clientRating: 0,
        clientReviews: 0,
        hasClientStats: true,
        usOnly: true,
        engagementWeeks: 52,
        engagementLabel: "More than 6 months",
        screeningQuestions: [{ position: 0, question: "Which states are you licensed in?" }],
      },
    ],
    [
      "marketplace-visitor-aborted",
      {
        jobType: "FIXED",
        fixedBudget: 300,
        currency: "USD",
        clientCountry: null,
        clientTotalSpent: null,
        paymentVerified: null,
        clientRating: null,
        clientReviews: null,
        hasClientStats: false,
        usOnly: null,
        companyId: null,
        engagementWeeks: null,
        engagementLabel: "1 to 3 months",
      },
    ],
    [
      "web-remote-board",
      {
        ciphertext: `~w${sha20("web:remoteok-1093355")}`,
        jobUid: null,
        platform: "web",
        skills: ["Go", "PostgreSQL"],
        url: "https://remoteok.com/remote-jobs/1093355",
        jobType: null,
        clientCountry: null,
        paymentVerified: null,
        hasClientStats: false,
        usOnly: null,
        contactEmails: ["jobs@acme-remote.io"],
        emailFound: true,
        publishTimeTs: Date.parse("2026-03-09T10:00:00Z"),
      },
    ],
    [
      "professional-network",
      {
        ciphertext: `~p${sha20("professional_network:4012345678")}`,
        jobUid: null,
        platform: "professional_network",
        url: "https://www.linkedin.com/jobs/view/4012345678/",
        clientCountry: "DE",
        skills: ["Apache Airflow", "dbt"],
        contactEmails: [],
        emailFound: false,
        publishTimeTs: Date.parse("2026-03-10T06:00:00.000Z"),
      },
    ],
  ];
  test.each(cases)("%s", (name, expected) => {
    expect(ok(fixture(name))).toMatchObject(expected);
  });

  test("title and description are trimmed, description kept otherwise unchanged", () => {
    const doc = fixture("marketplace-rich");
    const job = ok(doc);
    expect(job.title).toBe(doc.title.trim());
    expect(job.description).toBe(doc.description.trim());
  });

  test("the input document is not modified", () => {
    const doc = fixture("marketplace-rich");
    const before = JSON.stringify(doc);
    ok(doc);
    expect(JSON.stringify(doc)).toBe(before);
  });
});

describe("validation", () => {
  const long = (n: number) => "x".repeat(n);
  const cases: [string, unknown, string][] = [
    ["null", null, "document must be a JSON object"],
    ["array", [base()], "document must be a JSON object"],
    ["string", "{}", "document must be a JSON object"],
    ["number", 42, "document must be a JSON object"],
    ["unknown platform", base({ platform: "upwork" }), "platform must be one of marketplace, professional_network, web"],
    ["missing title", base({ title: undefined }), "title must be a non-empty string"],
    ["blank title", base({ title: "   " }), "title must be a non-empty string"],
    ["numeric title", base({ title: 7 }), "title must be a non-empty string"],
    ["huge title", base({ title: long(501) }), "title must be at most 500 characters"],
    ["missing description", base({ description: undefined }), "description must be a non-empty string"],
    ["empty description", base({ description: "" }), "description must be a non-empty string"],
    ["huge description", base({ description: long(100_001) }), "description must be at most 100000 characters"],
    ["non-string url", base({ url: 5 }), "url must be a string"],
    ["huge url", base({ url: `https://x.test/${long(2100)}` }), "url must be at most 2048 characters"],
    [
      "marketplace without ciphertext",
      { title: "t", description: "d", id: "1" },
      "ciphertext is required for a marketplace job (jobTile.job.ciphertext, opening.info.ciphertext or ciphertext)",
    ],
    ["ciphertext without ~", base({ jobTile: { job: { ciphertext: "021900000000000000001" } } }), 'ciphertext must be a string starting with "~"'],
    // biome-ignore lint/correctness/noPrecisionLoss: a ciphertext sent as a JSON number has lost digits already; that is the case under test
    ["numeric ciphertext", { title: "t", description: "d", ciphertext: 21900000000000000001 }, 'ciphertext must be a string starting with "~"'],
    ["ciphertext over 100 characters", base({ jobTile: { job: { ciphertext: `~${long(100)}` } } }), "ciphertext must be at most 100 characters"],
    ["web without id or url", { platform: "web", title: "t", description: "d" }, "id or url is required for a web job"],
    [
      "professional_network without id or url",
      { platform: "professional_network", title: "t", description: "d", id: "" },
      "id or url is required for a professional_network job",
    ],
  ];
  test.each(cases)("%s", (_name, doc, message) => {
    expect(error(doc)).toBe(message);
  });

  test("limits are inclusive", () => {
    expect(ok(base({ title: long(500), description: long(100_000) })).title.length).toBe(500);
    expect(ok(base({ jobTile: { job: { ciphertext: `~${long(99)}` } } })).ciphertext.length).toBe(100);
  });

  test.each([
    ["the authenticated body", auth({ opening: { job: { info: { ciphertext: "~02111" } } } }), "~02111"],
    ["the authenticated body without job", auth({ opening: { info: { ciphertext: "~02112" } } }), "~02112"],
    ["the public body", pub({ opening: { info: { ciphertext: "~02113" } } }), "~02113"],
    ["the top level", { ciphertext: "~02114" }, "~02114"],
    ["the tile's cipherText spelling", { jobTile: { job: { cipherText: "~02115" } } }, "~02115"],
  ])("ciphertext is read from %s", (_where, extra, expected) => {
    const job = ok({ title: "t", description: "d", ...extra });
    expect(job.ciphertext).toBe(expected);
    expect(job.jobUid).toBe(expected.slice(3)); // ~02 + numeric id
    expect(job.url).toBe(`https://www.upwork.com/jobs/${expected}`);
  });

  test("an aborted ciphertext falls through to the next location", () => {
    expect(ok(base(auth({ opening: { job: { info: { ciphertext: "ExecutionAborted" } } } }))).ciphertext).toBe(CIPHER);
  });

  test("non-marketplace ciphertexts are derived from platform and id, else url, and are stable", () => {
    const web = ok({ platform: "web", id: "himalayas-77", title: "t", description: "d" });
    expect(web.ciphertext).toBe(`~w${sha20("web:himalayas-77")}`);
    expect(web.ciphertext).toMatch(/^~w[0-9a-f]{20}$/);
    expect(web.url).toBe("");
    const byUrl = ok({ platform: "professional_network", url: "https://example.test/jobs/9", title: "t", description: "d" });
    expect(byUrl.ciphertext).toBe(`~p${sha20("professional_network:https://example.test/jobs/9")}`);
    expect(ok({ platform: "web", id: 77, title: "t", description: "d" }).ciphertext).toBe(`~w${sha20("web:77")}`);
    expect(ok({ platform: "web", id: "a", title: "t", description: "d" }).ciphertext).not.toBe(
      ok({ platform: "professional_network", id: "a", title: "t", description: "d" }).ciphertext,
    );
    expect(ok({ platform: "web", id: "x", ciphertext: "~given", title: "t", description: "d" }).ciphertext).toBe("~given");
  });

  test("a null platform means marketplace", () => {
    expect(ok(base({ platform: null })).platform).toBe("marketplace");
  });
});

describe("job links", () => {
  // A job link ends up as an href in pages and in clients of the API: only a link a browser opens as a web page is kept.
  test.each([
    ["javascript:alert(document.cookie)"],
    ["JavaScript:alert(1)"],
    [" javascript:alert(1)"],
    ["java\tscript:alert(1)"],
    ["data:text/html,<script>alert(1)</script>"],
    ["vbscript:msgbox(1)"],
    ["file:///etc/passwd"],
    ["ftp://files.example/job"],
    ["//evil.example/job"],
    ["/jobs/1"],
    ["not a url"],
  ])("%p is dropped with the reason in the notes; the job is still valid", (url) => {
    const r = normalizeJob(base({ url }));
    if (!r.ok) throw new Error(r.error);
    // A marketplace job falls back to its canonical page, as when no url was given.
    expect(r.job.url).toBe("https://www.upwork.com/jobs/~021900000000000000001");
    expect(r.notes).toEqual([{ field: "url", note: expect.stringContaining("only http and https links are kept") }]);
    const web = normalizeJob({ platform: "web", id: "w1", title: "t", description: "d", url });
    if (!web.ok) throw new Error(web.error);
    expect(web.job.url).toBe("");
    expect(web.notes.map((n) => n.field)).toEqual(["url"]);
  });

  test("http and https links are kept as given, with no notes", () => {
    for (const url of ["https://remoteok.com/remote-jobs/1", "HTTP://boards.example/jobs?id=1&x=2"]) {
      const r = normalizeJob({ platform: "web", id: "w1", title: "t", description: "d", url });
      if (!r.ok) throw new Error(r.error);
      expect(r.job.url).toBe(url);
      expect(r.notes).toEqual([]);
    }
  });
});

describe("paymentVerified (tri-state)", () => {
  const cases: [string, Record<string, unknown>, boolean | null][] = [
    ["auth buyer true", auth({ buyer: { isPaymentMethodVerified: true } }), true],
    ["auth buyer false", auth({ buyer: { isPaymentMethodVerified: false } }), false],
    ["public buyerExtra true", pub({ buyerExtra: { isPaymentMethodVerified: true } }), true],
    ["public buyerExtra false", pub({ buyerExtra: { isPaymentMethodVerified: false } }), false],
    ["public buyer true", pub({ buyer: { isPaymentMethodVerified: true } }), true],
    ["tile VERIFIED", tileClient({ paymentVerificationStatus: "VERIFIED" }), true],
    ["tile UNVERIFIED", tileClient({ paymentVerificationStatus: "UNVERIFIED" }), false],
    ["tile NOT_VERIFIED", tileClient({ paymentVerificationStatus: "NOT_VERIFIED" }), false],
    ["tile empty status", tileClient({ paymentVerificationStatus: "" }), null],
    ["tile null status", tileClient({ paymentVerificationStatus: null }), null],
    ["feed client status", { client: { paymentVerificationStatus: "VERIFIED" } }, true],
    ["feed client boolean false", { client: { paymentVerified: false } }, false],
    [
      "auth false beats tile VERIFIED",
      { ...auth({ buyer: { isPaymentMethodVerified: false } }), ...tileClient({ paymentVerificationStatus: "VERIFIED" }) },
      false,
    ],
    [
      "aborted details fall through to the tile",
      {
        ...pub({ buyerExtra: { isPaymentMethodVerified: "ExecutionAborted" }, buyer: { isPaymentMethodVerified: { __typename: "ExecutionAborted" } } }),
        ...tileClient({ paymentVerificationStatus: "VERIFIED" }),
      },
      true,
    ],
    ["everything aborted", { ...auth({ buyer: "ExecutionAborted" }), ...pub({ buyerExtra: { isPaymentMethodVerified: { code: "ExecutionAborted" } } }) }, null],
    ["no field anywhere", {}, null],
  ];
  test.each(cases)("%s → %p", (_name, extra, expected) => {
    expect(ok(base(extra)).paymentVerified).toBe(expected);
  });
});

describe("usOnly (tri-state)", () => {
  const quals = (q: unknown) => auth({ opening: { qualifications: q } });
  const cases: [string, Record<string, unknown>, boolean | null][] = [
    ["mandatory United States", quals({ countries: ["United States"], locationCheckRequired: true }), true],
    ["mandatory US", quals({ countries: ["US"], locationCheckRequired: true }), true],
    ["mandatory USA", quals({ countries: ["USA"], locationCheckRequired: true }), true],
    ["mandatory United States of America", quals({ countries: ["United States of America"], locationCheckRequired: true }), true],
    ["mandatory US listed twice", quals({ countries: ["US", "United States"], locationCheckRequired: true }), true],
    ["mandatory US states", quals({ countries: null, states: ["CA", "NY"], locationCheckRequired: true }), true],
    ["mandatory US and Canada", quals({ countries: ["United States", "Canada"], locationCheckRequired: true }), false],
    ["mandatory non-US", quals({ countries: ["Germany"], locationCheckRequired: true }), false],
    ["mandatory with regions only", quals({ countries: [], regions: ["Europe"], locationCheckRequired: true }), false],
    ["US preferred, not required", quals({ countries: ["United States"], locationCheckRequired: false }), false],
    ["empty and not required", quals({ countries: [], locationCheckRequired: false }), false],
    ["null countries, not required", quals({ countries: null, locationCheckRequired: false }), false],
    ["null countries, no flag", quals({ countries: null }), false],
    ["public qualifications", pub({ qualifications: { countries: ["United States"], locationCheckRequired: true } }), true],
    ["feed tile mandatory US", { prefFreelancerLocationMandatory: true, prefFreelancerLocation: ["United States"] }, true],
    ["feed tile mandatory US + UK", { prefFreelancerLocationMandatory: true, prefFreelancerLocation: ["United States", "United Kingdom"] }, false],
    ["feed tile preferred US", { prefFreelancerLocationMandatory: false, prefFreelancerLocation: ["United States"] }, false],
    ["feed tile empty list", { prefFreelancerLocation: [] }, false],
    ["official search mandatory US", { preferredFreelancerLocationMandatory: true, preferredFreelancerLocation: ["USA"] }, true],
    ["official detail localCheckRequired", { contractorSelection: { location: { countries: ["US"], localCheckRequired: true } } }, true],
    [
      "official detail country objects",
      { contractorSelection: { location: { countries: [{ name: "United States", twoLetterAbbreviation: "US" }], localCheckRequired: true } } },
      true,
    ],
    [
      "auth false beats feed true",
      { ...quals({ countries: [], locationCheckRequired: false }), prefFreelancerLocationMandatory: true, prefFreelancerLocation: ["United States"] },
      false,
    ],
    ["US named but mandatory unknown", quals({ countries: ["United States"] }), null],
    ["states without a flag", quals({ states: ["TX"] }), null],
    ["qualifications aborted", { ...pub({ qualifications: "ExecutionAborted" }) }, null],
    ["qualifications without location fields", quals({ prefEnglishSkill: "ANY" }), null],
    ["only tile data", tileClient({ country: "United States", paymentVerificationStatus: "VERIFIED" }), null],
  ];
  test.each(cases)("%s → %p", (_name, extra, expected) => {
    expect(ok(base(extra)).usOnly).toBe(expected);
  });
});

describe("money and budgets", () => {
  const tile = (job: Record<string, unknown>) => ({ jobTile: { job: { ciphertext: CIPHER, ...job } } });
  test.each([
    ["tile amount string", tile({ jobType: "FIXED", fixedPriceAmount: { amount: "75.0" } }), 75],
    ["tile amount number", tile({ jobType: "FIXED", fixedPriceAmount: { amount: 75 } }), 75],
    ["feed amount object", { type: "fixed", amount: { amount: "1250" } }, 1250],
    ["official rawValue", { amount: { rawValue: "60" } }, 60],
    ["bare number", { amount: 90 }, 90],
    ["zero", tile({ jobType: "FIXED", fixedPriceAmount: { amount: "0.0" } }), null],
    ["negative", tile({ jobType: "FIXED", fixedPriceAmount: { amount: -5 } }), null],
    ["not a number", tile({ jobType: "FIXED", fixedPriceAmount: { amount: "1,000" } }), null],
    ["empty string", tile({ jobType: "FIXED", fixedPriceAmount: { amount: "" } }), null],
    ["aborted", tile({ jobType: "FIXED", fixedPriceAmount: { amount: "ExecutionAborted" } }), null],
    [
      "zero in details falls through to the tile",
      { ...tile({ jobType: "FIXED", fixedPriceAmount: { amount: "80" } }), ...pub({ opening: { budget: { amount: 0 } } }) },
      80,
    ],
    ["positive budget on an hourly job", tile({ jobType: "HOURLY", fixedPriceAmount: { amount: "300" } }), null],
    ["hourly job's 0.0 budget", { ...tile({ jobType: "HOURLY" }), ...pub({ opening: { budget: { amount: 0.0, currencyCode: "USD" } } }) }, null],
  ])("fixedBudget: %s → %p", (_name, doc, expected) => {
    expect(ok({ title: "t", description: "d", ciphertext: CIPHER, ...doc }).fixedBudget).toBe(expected);
  });

  test.each([
    ["tile strings", tile({ jobType: "HOURLY", hourlyBudgetMin: "15.5", hourlyBudgetMax: "40.0" }), [15.5, 40]],
    [
      "details numbers",
      { ...tile({ jobType: "HOURLY" }), ...pub({ opening: { extendedBudgetInfo: { hourlyBudgetMin: 20, hourlyBudgetMax: 35 } } }) },
      [20, 35],
    ],
    ["feed hourlyBudget", { type: "hourly", hourlyBudget: { type: "HOURLY", min: "12", max: 30 } }, [12, 30]],
    ["official Money", { hourlyBudgetMin: { rawValue: "25" }, hourlyBudgetMax: { rawValue: "50" } }, [25, 50]],
    ["only a minimum", tile({ jobType: "HOURLY", hourlyBudgetMin: "20" }), [20, null]],
    ["0–0 stub on a fixed job", tile({ jobType: "FIXED", hourlyBudgetMin: "0", hourlyBudgetMax: "0", fixedPriceAmount: { amount: "100" } }), [null, null]],
    [
      "0–0 stub in fixed details",
      {
        ...tile({ jobType: "FIXED" }),
        ...pub({ opening: { extendedBudgetInfo: { hourlyBudgetMin: 0, hourlyBudgetMax: 0, hourlyBudgetType: "NOT_PROVIDED" } } }),
      },
      [null, null],
    ],
    ["NaN", tile({ jobType: "HOURLY", hourlyBudgetMin: "abc", hourlyBudgetMax: null }), [null, null]],
    ["positive hourly values on a fixed job", tile({ jobType: "FIXED", hourlyBudgetMin: "10", hourlyBudgetMax: "20" }), [null, null]],
  ])("hourly: %s → %p", (_name, doc, [min, max]) => {
    const job = ok({ title: "t", description: "d", ciphertext: CIPHER, ...doc });
    expect([job.hourlyMin, job.hourlyMax]).toEqual([min!, max!]);
  });

  test.each([
    ["HOURLY", tile({ jobType: "HOURLY" }), "HOURLY"],
    ["feed lower case", { type: "fixed" }, "FIXED"],
    ["official FIXED_PRICE", { type: "FIXED_PRICE" }, "FIXED"],
    ["details win over tile", { ...tile({ jobType: "HOURLY" }), ...auth({ opening: { job: { info: { type: "FIXED" } } } }) }, "FIXED"],
    ["unknown", { type: "full-time" }, null],
  ])("jobType: %s → %p", (_name, doc, expected) => {
    expect(ok({ title: "t", description: "d", ciphertext: CIPHER, ...doc }).jobType).toBe(expected as NormalizedJob["jobType"]);
  });

  test.each([
    ["tile totalSpent object", tileClient({ totalSpent: { isoCurrencyCode: "USD", amount: "8098.49" } }), 8098.49],
    ["feed number", { client: { totalSpent: 1500 } }, 1500],
    ["details bare number", pub({ buyer: { stats: { totalCharges: 320.5 } } }), 320.5],
    ["zero spent is known", tileClient({ totalSpent: { amount: "0.0" } }), 0],
    ["aborted", pub({ buyer: { stats: { totalCharges: "ExecutionAborted" } } }), null],
    ["empty string is not zero", { client: { totalSpent: "" } }, null],
  ])("clientTotalSpent: %s → %p", (_name, extra, expected) => {
    expect(ok(base(extra)).clientTotalSpent).toBe(expected);
  });

  test("currency is upper-cased and must look like an ISO 4217 code", () => {
    expect(ok(base(pub({ opening: { budget: { amount: 5, currencyCode: "eur" } } }))).currency).toBe("EUR");
    expect(ok(base(pub({ opening: { budget: { amount: 5, currencyCode: "dollars" } } }))).currency).toBeNull();
  });
});

describe("client rating and stats", () => {
  test.each([
    ["details stats", auth({ buyer: { info: { stats: { score: 4.2, feedbackCount: 7 } } } }), [4.2, 7, true]],
    ["tile", tileClient({ totalFeedback: 4.78, totalReviews: 58 }), [4.78, 58, true]],
    ["feed client", { client: { rating: "4.5", totalReviews: "12" } }, [4.5, 12, true]],
    ["unrated client", tileClient({ totalFeedback: 0, totalReviews: 0 }), [0, 0, true]],
    ["stats object of nulls", auth({ buyer: { info: { stats: { score: null, feedbackCount: null } } } }), [null, null, false]],
    ["stats with only totals", pub({ buyer: { stats: { totalAssignments: 3 } } }), [null, null, true]],
    ["out-of-range values count as absent", tileClient({ totalFeedback: 7, totalReviews: 2.5 }), [null, null, false]],
    ["no stats anywhere", tileClient({ country: "Canada" }), [null, null, false]],
  ])("%s → %p", (_name, extra, [rating, reviews, has]) => {
    const job = ok(base(extra));
    expect([job.clientRating, job.clientReviews, job.hasClientStats]).toEqual([rating!, reviews!, has!]);
  });

  test("companyId: auth, then public, then feed companyOrgUid; unsafe numeric ids are dropped", () => {
    const a = auth({ buyer: { info: { company: { companyId: "111" } } } });
    const p = pub({ buyer: { company: { companyId: "222" } } });
    expect(ok(base({ ...a, ...p, client: { companyOrgUid: "333" } })).companyId).toBe("111");
    expect(ok(base({ ...p, client: { companyOrgUid: "333" } })).companyId).toBe("222");
    expect(ok(base({ client: { companyOrgUid: "1257257427128717312" } })).companyId).toBe("1257257427128717312");
    expect(ok(base(pub({ buyer: { company: { companyId: 2 ** 60 } } }))).companyId).toBeNull();
  });

  test("clientCountry falls through unknown spellings and accepts ISO-3", () => {
    expect(ok(base({ ...tileClient({ country: "Atlantis" }), client: { country: "GBR" } })).clientCountry).toBe("GB");
    expect(ok(base({ client: { location: { country: "Türkiye" } } })).clientCountry).toBe("TR");
  });
});

describe("contact e-mails", () => {
  test.each([
    ["plain", "Write to jane.doe@example.com.", ["jane.doe@example.com"]],
    ["bracketed obfuscation", "jane [at] example [dot] com", ["jane@example.com"]],
    ["parenthesised, multi-label", "jane(at)mail(dot)example(dot)co(dot)uk", ["jane@mail.example.co.uk"]],
    ["braces and real dot", "jane {AT} example.org", ["jane@example.org"]],
    ["plus, dash and subdomain", "<a+b-c@jobs.sub-domain.example.io>", ["a+b-c@jobs.sub-domain.example.io"]],
    ["case-insensitive dedup", "A@Example.com and a@example.COM", ["a@example.com"]],
    ["two addresses", "x@a.dev, y@b.dev", ["x@a.dev", "y@b.dev"]],
    ["node@18", "We pin node@18 and use npm i react@latest", []],
    ["@mentions", "Ping @maria or @dev-team on Slack", []],
    ["no TLD", "root@localhost", []],
    ["retina image names", "logo@2x.png icon@3x.webp", []],
    ["package versions", "lodash@4.17.21", []],
    ["a bare @", "meet @ 5pm", []],
    ["prose '(at)'", "we meet (at) noon", []],
    ["plain 'at'/'dot' words are not obfuscation", "look at google dot com", []],
  ])("%s", (_name, description, expected) => {
    const job = ok(base({ description }));
    expect(job.contactEmails).toEqual(expected);
    expect(job.emailFound).toBe(expected.length > 0);
  });

  test("contactEmail is included and merged with the description", () => {
    expect(ok(base({ contactEmail: "HR@Example.com", description: "or hr@example.com" })).contactEmails).toEqual(["hr@example.com"]);
    expect(ok(base({ contactEmail: "not an email" })).emailFound).toBe(false);
  });
});

describe("other fields", () => {
  test("publish time: ISO strings, epoch milliseconds and seconds", () => {
    expect(ok(base({ jobTs: "1613617811311" })).publishTimeTs).toBe(1613617811311);
    expect(ok(base({ publishedOn: "2021-02-18T03:10:11+00:00" })).publishTimeTs).toBe(Date.parse("2021-02-18T03:10:11Z"));
    expect(ok(base({ publishTime: 1613617811 })).publishTimeTs).toBe(1613617811000);
    expect(ok(base({ publishedOn: "not a date" })).publishTimeTs).toBeNull();
  });

  test("exploredAt defaults to nowTs only when the document has none", () => {
    expect(ok(base(), { nowTs: 1234 }).exploredAt).toBe(1234);
    expect(ok(base({ exploredAt: 99_000_000_000_000 }), { nowTs: 1234 }).exploredAt).toBe(99_000_000_000_000);
    expect(ok(base()).exploredAt).toBeNull();
  });

  test("jobUid: numeric ids only; old hex ciphertexts have none", () => {
    expect(ok({ title: "t", description: "d", ciphertext: "~012fe93cd81700ed63" }).jobUid).toBeNull();
    expect(ok({ title: "t", description: "d", id: "42", ciphertext: "~012fe93cd81700ed63" }).jobUid).toBe("42");
  });

  test("screening questions: top level first, else auth opening.questions; malformed entries skipped", () => {
    const q = auth({ opening: { questions: [{ question: "B?", position: 3 }, { question: "" }, null, { question: "C?" }] } });
    expect(ok(base(q)).screeningQuestions).toEqual([
      { position: 3, question: "B?" },
      { position: 3, question: "C?" },
    ]);
    expect(ok(base({ ...q, screeningQuestions: [{ position: 0, question: "A?" }] })).screeningQuestions).toEqual([{ position: 0, question: "A?" }]);
    expect(ok(base({ ...q, screeningQuestions: [] })).screeningQuestions).toHaveLength(2);
  });

  test("skills: ontologySkills then sandsData, deduplicated case-insensitively, blanks dropped", () => {
    const doc = base({
      ontologySkills: [{ uid: "1", prefLabel: "Go" }, { uid: "2", prefLabel: " " }, { uid: "3" }, "junk"],
      ...pub({ opening: { sandsData: { ontologySkills: [{ prefLabel: "go" }], additionalSkills: [{ prefLabel: "gRPC" }, { freeText: "Protobuf" }] } } }),
    });
    expect(ok(doc).skills).toEqual(["Go", "gRPC", "Protobuf"]);
  });

  test("engagement: details first, then the tile's engagement duration", () => {
    const job = ok(base({ jobTile: { job: { ciphertext: CIPHER, fixedPriceEngagementDuration: { label: "1 to 3 months", weeks: 12 } } } }));
    expect([job.engagementWeeks, job.engagementLabel]).toEqual([12, "1 to 3 months"]);
  });

  test("an explicit url wins over the derived marketplace url", () => {
    expect(ok(base({ url: "https://www.upwork.com/freelance-jobs/apply/x_~021900000000000000001/" })).url).toContain("freelance-jobs");
  });
});

describe("robustness", () => {
  test("never throws on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => typeof normalizeJob(v).ok === "boolean"),
      { numRuns: 500 },
    );
  });

  test("never throws when any section of a valid document holds arbitrary JSON, and keeps its invariants", () => {
    const sections = fc.record(
      {
        jobTile: fc.jsonValue(),
        upworkHistoryData: fc.jsonValue(),
        client: fc.jsonValue(),
        jobDetailsResponse: fc.record({ data: fc.record({ jobPubDetails: fc.jsonValue() }) }),
        authJobDetailsResponse: fc.record({ data: fc.record({ jobAuthDetails: fc.jsonValue() }) }),
        screeningQuestions: fc.jsonValue(),
        ontologySkills: fc.jsonValue(),
        prefFreelancerLocation: fc.jsonValue(),
        amount: fc.jsonValue(),
        exploredAt: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(sections, (extra) => {
        const r = normalizeJob({ title: "t", description: "d", ciphertext: CIPHER, ...extra });
        if (!r.ok) return /ciphertext/.test(r.error);
        const j = r.job;
        return (
          j.ciphertext.startsWith("~") &&
          (j.clientRating === null || (j.clientRating >= 0 && j.clientRating <= 5)) &&
          (j.hourlyMin === null || j.hourlyMin > 0) &&
          (j.fixedBudget === null || j.fixedBudget > 0) &&
          [true, false, null].includes(j.usOnly)
        );
      }),
      { numRuns: 500 },
    );
  });
});
