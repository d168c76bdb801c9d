import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileFeed, FeedIndex, JobText, matchesFeed, parseTerm, ScannedText, termMatches } from "../../../src/modules/feeds/matcher";
import type { FeedRow } from "../../../src/modules/feeds/repo";
import { makeFeedRow, makeJob } from "../../helpers/factories";
import type { MatchableJob } from "../../../src/modules/feeds/matcher";

const matches = (feed: Partial<FeedRow>, job: Partial<MatchableJob> = {}) => matchesFeed(compileFeed(makeFeedRow(feed)), makeJob(job));

describe("keywords", () => {
  const text = (s: string) => new JobText({ title: s, description: "", skills: [] });
  test.each([
    ["go", "Senior Go developer", true],
    ["go", "good going goal", false],
    ["Go", "golang and GO services", true],
    ["react native", "React Native app for iOS", true],
    ["react native", "React app; native modules later", false],
    ["react native", "native react", false],
    ["develop*", "developer wanted", true],
    ["develop*", "redevelop the site", false],
    ["machine learn*", "machine learning engineer", true],
    ["machine learn*", "learning machine", false],
    ["c++", "C++ and Qt", true],
    ["c++", "C and Python", false],
    ["c#", "C# / .NET", true],
    ["node.js", "Node.js backend", true],
    ["node.js", "node js", true],
    ["ai", "AI integration (OpenAI)", true],
    ["ai", "said maintain", false],
  ])("%p in %p → %p", (keyword, t, expected) => {
    expect(termMatches(parseTerm(keyword)!, text(t))).toBe(expected);
  });

  test("a phrase does not run across title, description and skills", () => {
    const jt = new JobText({ title: "Fix my React", description: "Native modules crash", skills: ["TypeScript"] });
    expect(termMatches(parseTerm("react native")!, jt)).toBe(false);
    expect(termMatches(parseTerm("typescript")!, jt)).toBe(true);
  });

  test("includes need one hit; any exclude drops; both look at title, description and skills", () => {
    expect(matches({ includes: ["rust", "golang"] }, { title: "Golang API" })).toBe(true);
    expect(matches({ includes: ["rust", "golang"] }, { title: "Python API" })).toBe(false);
    expect(matches({ includes: ["kubernetes"] }, { skills: ["Kubernetes"] })).toBe(true);
    expect(matches({ excludes: ["wordpress"] }, { description: "Our WordPress site is slow" })).toBe(false);
    expect(matches({ includes: ["dashboard"], excludes: ["wordpress"] }, { title: "Dashboard" })).toBe(true);
    expect(parseTerm("  ***  ")).toBeNull();
  });
});

describe("numeric filters", () => {
  test.each([
    // minHourlyRate: upper end of the range if given, else lower end; hourly jobs only; absent passes
    [{ minHourlyRate: 50 }, { hourlyMin: 30, hourlyMax: 60 }, true],
    [{ minHourlyRate: 70 }, { hourlyMin: 30, hourlyMax: 60 }, false],
    [{ minHourlyRate: 40 }, { hourlyMin: 30, hourlyMax: null }, false],
    [{ minHourlyRate: 25 }, { hourlyMin: 30, hourlyMax: null }, true],
    [{ minHourlyRate: 40 }, { hourlyMin: null, hourlyMax: null }, true],
    [{ minHourlyRate: 40 }, { jobType: "FIXED", hourlyMin: null, hourlyMax: null, fixedBudget: 10 }, true],
    // minFixedPrice: fixed jobs only
    [{ minFixedPrice: 500 }, { jobType: "FIXED", fixedBudget: 400 }, false],
    [{ minFixedPrice: 500 }, { jobType: "FIXED", fixedBudget: 500 }, true],
    [{ minFixedPrice: 500 }, { jobType: "FIXED", fixedBudget: null }, true],
    [{ minFixedPrice: 500 }, { jobType: "HOURLY" }, true],
    // clientMinSpent
    [{ clientMinSpent: 1000 }, { clientTotalSpent: 999 }, false],
    [{ clientMinSpent: 1000 }, { clientTotalSpent: 1000 }, true],
    [{ clientMinSpent: 1000 }, { clientTotalSpent: null }, true],
  ] as [Partial<FeedRow>, Partial<MatchableJob>, boolean][])("%p with %p → %p", (feed, job, expected) => {
    expect(matches(feed, job)).toBe(expected);
  });
});

describe("client and location filters", () => {
  test.each([
    // countries: names, ISO-2 and ISO-3 all work; exclude drops listed; include keeps only listed and drops unknown
    [{ countryFilterMode: "exclude", excludedCountries: ["India"] }, { clientCountry: "IN" }, false],
    [{ countryFilterMode: "exclude", excludedCountries: ["IND"] }, { clientCountry: "IN" }, false],
    [{ countryFilterMode: "exclude", excludedCountries: ["in"] }, { clientCountry: "US" }, true],
    [{ countryFilterMode: "exclude", excludedCountries: ["India"] }, { clientCountry: null }, true],
    [{ countryFilterMode: "include", includedCountries: ["United States", "GBR"] }, { clientCountry: "GB" }, true],
    [{ countryFilterMode: "include", includedCountries: ["United States"] }, { clientCountry: "DE" }, false],
    [{ countryFilterMode: "include", includedCountries: ["United States"] }, { clientCountry: null }, false],
    [{ countryFilterMode: "include", includedCountries: [] }, { clientCountry: null }, true],
    // the other list does not count in a mode
    [{ countryFilterMode: "include", includedCountries: ["US"], excludedCountries: ["US"] }, { clientCountry: "US" }, true],
    // US-only (tri-state): include keeps only confirmed; exclude drops only confirmed
    [{ usOnlyMode: "include" }, { usOnly: true }, true],
    [{ usOnlyMode: "include" }, { usOnly: false }, false],
    [{ usOnlyMode: "include" }, { usOnly: null }, false],
    [{ usOnlyMode: "exclude" }, { usOnly: true }, false],
    [{ usOnlyMode: "exclude" }, { usOnly: null }, true],
    // payment: only a reported "unverified" is dropped
    [{ paymentVerifiedOnly: true }, { paymentVerified: false }, false],
    [{ paymentVerifiedOnly: true }, { paymentVerified: null }, true],
    [{ paymentVerifiedOnly: true }, { paymentVerified: true }, true],
    // rating: no reviews = unrated, dropped by any floor above 0; no stats at all pass
    [{ clientMinRating: 4.5 }, { clientRating: 4.4, clientReviews: 3 }, false],
    [{ clientMinRating: 4.5 }, { clientRating: 4.5, clientReviews: 3 }, true],
    [{ clientMinRating: 1 }, { clientRating: 0, clientReviews: 0 }, false],
    [{ clientMinRating: 0 }, { clientRating: 0, clientReviews: 0 }, true],
    [{ clientMinRating: 4.5 }, { hasClientStats: false, clientRating: null, clientReviews: null }, true],
    [{ clientMinReviews: 5 }, { clientReviews: 4 }, false],
    [{ clientMinReviews: 5 }, { clientReviews: 5 }, true],
    [{ clientMinReviews: 5 }, { hasClientStats: false, clientReviews: null }, true],
    // job types, email, platforms
    [{ jobTypes: ["FIXED"] }, { jobType: "HOURLY" }, false],
    [{ jobTypes: ["FIXED", "HOURLY"] }, { jobType: "HOURLY" }, true],
    [{ jobTypes: ["FIXED"] }, { jobType: null }, true],
    [{ emailFound: "email_found" }, { emailFound: false }, false],
    [{ emailFound: "email_found" }, { emailFound: true }, true],
    [{ platforms: ["web"] }, { platform: "marketplace" }, false],
    [{ platforms: ["web", "marketplace"] }, { platform: "marketplace" }, true],
    // marketplace-only filters do not apply to other platforms
    [
      { usOnlyMode: "include", paymentVerifiedOnly: true, jobTypes: ["FIXED"], clientMinRating: 5 },
      { platform: "web", usOnly: null, paymentVerified: false, jobType: "HOURLY", clientRating: 1, clientReviews: 0 },
      true,
    ],
  ] as [Partial<FeedRow>, Partial<MatchableJob>, boolean][])("%p with %p → %p", (feed, job, expected) => {
    expect(matches(feed, job)).toBe(expected);
  });

  test("a feed never matches a job first seen before it was created (no backfill)", () => {
    expect(matches({ createdAtTs: 2000 }, { firstSeenAtTs: 1999 })).toBe(false);
    expect(matches({ createdAtTs: 2000 }, { firstSeenAtTs: 2000 })).toBe(true);
  });
});

describe("feed index", () => {
  const vocabulary = [
    "react",
    "native",
    "go",
    "golang",
    "rust",
    "python",
    "django",
    "shopify",
    "wordpress",
    "design",
    "figma",
    "seo",
    "data",
    "machine",
    "learning",
    "node",
    "js",
    "aws",
    "docker",
    "api",
  ];
  const word = fc.constantFrom(...vocabulary);
  const keyword = fc.oneof(
    word,
    fc.tuple(word, word).map(([a, b]) => `${a} ${b}`),
    word.map((w) => `${w.slice(0, Math.max(1, w.length - 2))}*`),
  );
  const feedArb = fc.record({
    includes: fc.array(keyword, { maxLength: 3 }),
    excludes: fc.array(keyword, { maxLength: 2 }),
    minHourlyRate: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
    usOnlyMode: fc.constantFrom("all", "include", "exclude"),
    paymentVerifiedOnly: fc.boolean(),
    countryFilterMode: fc.constantFrom("exclude", "include"),
    excludedCountries: fc.subarray(["US", "India", "DEU"]),
    includedCountries: fc.subarray(["US", "India", "DEU"]),
    createdAtTs: fc.integer({ min: 0, max: 2 }),
  });
  const jobArb = fc.record({
    title: fc.array(word, { maxLength: 6 }).map((w) => w.join(" ")),
    description: fc.array(fc.oneof(word, fc.constantFrom("good", "going", "the", "reactive")), { maxLength: 30 }).map((w) => w.join(" ")),
    skills: fc.array(word, { maxLength: 3 }),
    hourlyMax: fc.option(fc.integer({ min: 5, max: 120 }), { nil: null }),
    usOnly: fc.constantFrom(true, false, null),
    paymentVerified: fc.constantFrom(true, false, null),
    clientCountry: fc.constantFrom("US", "IN", "DE", null),
    firstSeenAtTs: fc.integer({ min: 0, max: 2 }),
  });

  test("property: the index finds exactly the feeds a full scan finds", () => {
    fc.assert(
      fc.property(fc.array(feedArb, { minLength: 1, maxLength: 40 }), fc.array(jobArb, { minLength: 1, maxLength: 10 }), (feedSpecs, jobSpecs) => {
        const index = new FeedIndex();
        const rows = feedSpecs.map((f, i) => makeFeedRow({ ...f, id: `f${i}` } as Partial<FeedRow>));
        for (const r of rows) index.upsert(r);
        for (const spec of jobSpecs) {
          const job = makeJob(spec as Partial<MatchableJob>);
          const expected = rows
            .filter((r) => matchesFeed(compileFeed(r), job))
            .map((r) => r.id)
            .sort();
          const got = index
            .match(job)
            .map((f) => f.id)
            .sort();
          if (JSON.stringify(expected) !== JSON.stringify(got)) return false;
        }
        return true;
      }),
      { numRuns: 150 },
    );
  });

  test("updating and removing feeds keeps the index exact", () => {
    const index = new FeedIndex();
    index.upsert(makeFeedRow({ id: "a", includes: ["rust"] }));
    index.upsert(makeFeedRow({ id: "b", includes: ["pyth*"] }));
    const rustJob = makeJob({ title: "Rust service" });
    const pyJob = makeJob({ title: "Python scripts" });
    expect(index.match(rustJob).map((f) => f.id)).toEqual(["a"]);
    expect(index.match(pyJob).map((f) => f.id)).toEqual(["b"]);
    index.upsert(makeFeedRow({ id: "a", includes: ["python"] }));
    expect(index.match(rustJob)).toEqual([]);
    expect(
      index
        .match(pyJob)
        .map((f) => f.id)
        .sort(),
    ).toEqual(["a", "b"]);
    index.remove("b");
    expect(index.match(pyJob).map((f) => f.id)).toEqual(["a"]);
    expect(index.size).toBe(1);
  });
});

// The feed preview tests keywords with ScannedText (a search of the folded text) instead of JobText (all tokens):
// on any text, with letters of several scripts, astral and compatibility characters, digits, + and # suffixes,
// separators and parts, both must answer every keyword alike.
describe("ScannedText answers as JobText", () => {
  const pieces = [
    "react",
    "React",
    "native",
    "go",
    "c",
    "c++",
    "C#",
    "f#",
    "+",
    "#",
    "++",
    "node",
    "js",
    ".",
    "-",
    " ",
    "  ",
    "\n",
    "é",
    "e\u0301",
    "café",
    "ℌ",
    "ｒｅａｃｔ",
    "ﬁ",
    "𝐑eact",
    "日本",
    "dev",
    "developer",
    "re",
    "1",
    "2024",
    "’s",
    "_",
    "\u0000",
    "ß",
    "SS",
    "İ",
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((a) => a.join(""));
  const keywordOf = fc.oneof(
    fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }).map((a) => a.join(" ")),
    fc.constantFrom(...pieces).map((p) => `${p}*`),
    fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 4 }).map((a) => a.join("")),
  );
  test("property: every keyword matches a job's ScannedText exactly when it matches its JobText", () => {
    fc.assert(
      fc.property(
        fc.record({ title: text, description: text, skills: fc.array(text, { maxLength: 2 }) }),
        fc.array(keywordOf, { minLength: 1, maxLength: 5 }),
        (job, keywords) => {
          const tokens = new JobText(job);
          const scanned = new ScannedText(job);
          for (const k of keywords) {
            const term = parseTerm(k);
            if (term) expect([k, scanned.matches(term)]).toEqual([k, tokens.matches(term)]);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
  test("examples: a word inside another, a suffix, a phrase across parts, a prefix", () => {
    const of = (title: string, description = "") => new ScannedText({ title, description, skills: [] });
    const term = (k: string) => parseTerm(k)!;
    expect(of("Senior Go developer").matches(term("go"))).toBe(true);
    expect(of("good going goal").matches(term("go"))).toBe(false);
    expect(of("c++developer").matches(term("developer"))).toBe(true);
    expect(of("C# and c++ work").matches(term("c"))).toBe(false);
    expect(of("React", "Native").matches(term("react native"))).toBe(false);
    expect(of("React -- native").matches(term("react native"))).toBe(true);
    expect(of("redevelop the site").matches(term("develop*"))).toBe(false);
    expect(of("developers wanted").matches(term("develop*"))).toBe(true);
  });
});
