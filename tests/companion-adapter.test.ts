import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { type DomDocument, extractJobs, moneyOf, readApplyForm, SELECTORS, sitePath, unflatten } from "../extension/src/adapter";
import { normalizeJob } from "../src/modules/jobs/normalize";

const FIXTURES = join(import.meta.dir, "fixtures/companion");
const page = (name: string) => parseHTML(readFileSync(join(FIXTURES, name), "utf8")).document as unknown as DomDocument;
const MP = "https://www.upwork.com";
const NOW = Date.UTC(2026, 5, 22);

describe("site adapter on saved marketplace pages", () => {
  test("every selector says where it was documented and when", () => {
    for (const [name, entry] of Object.entries(SELECTORS)) {
      expect(entry.css.length, name).toBeGreaterThan(0);
      expect(entry.source.length, name).toBeGreaterThan(10);
      expect(entry.seen, name).toMatch(/^\d{4}-\d{2}$/);
    }
  });

  test("the marketplace and a paired server's sandbox site are marketplace pages; anything else is not", () => {
    expect(sitePath(`${MP}/jobs/~021`, [])).toBe("/jobs/~021");
    expect(sitePath("http://127.0.0.1:3000/sandbox/site/nx/search/jobs/?q=go", ["http://127.0.0.1:3000"])).toBe("/nx/search/jobs/");
    expect(sitePath("http://127.0.0.1:3000/sandbox/site/nx/search/jobs/", [])).toBeNull();
    expect(sitePath("http://127.0.0.1:3000/dashboard", ["http://127.0.0.1:3000"])).toBeNull();
    expect(sitePath("https://upwork.com.evil.example/jobs/~021", [])).toBeNull();
    expect(extractJobs(page("job-auth.html"), "https://example.com/jobs/~021936466566031679148", [], NOW)).toEqual({ kind: "other", jobs: [] });
  });

  test("a logged-in job page: the embedded authenticated details, with the client's stats", () => {
    const got = extractJobs(page("job-auth.html"), `${MP}/jobs/Increase-Shopify-speed_~021936466566031679148/`, [], NOW);
    expect(got.kind).toBe("job");
    expect(got.jobs).toHaveLength(1);
    const job = got.jobs[0]!;
    expect(job.url).toBe(`${MP}/jobs/~021936466566031679148`);
    expect(job.authJobDetailsResponse?.data.jobAuthDetails).toBeDefined();
    const n = normalizeJob(job);
    if (!n.ok) throw new Error(n.error);
    expect(n.job).toMatchObject({ ciphertext: "~021936466566031679148", jobType: "HOURLY", hourlyMin: 20, hourlyMax: 40, clientTotalSpent: 25158.39 });
    expect(n.job.paymentVerified).toBe(true);
    expect(n.job.clientRating).toBe(4.94);
    expect(n.job.screeningQuestions).toEqual([{ position: 0, question: "How soon could you start?" }]);
    expect(n.job.skills).toEqual(["Shopify"]);
  });

  test("a visitor's job page: public details without client stats (unknown, not zero)", () => {
    const got = extractJobs(page("job-visitor.html"), `${MP}/jobs/~021936000000000000001`, [], NOW);
    const n = normalizeJob(got.jobs[0]);
    if (!n.ok) throw new Error(n.error);
    expect(n.job).toMatchObject({ jobType: "FIXED", fixedBudget: 800, clientTotalSpent: null, clientRating: null, paymentVerified: null, usOnly: true });
    expect(n.job.hasClientStats).toBe(false);
  });

  test("a job page with no state is read from the DOM", () => {
    const got = extractJobs(page("job-dom-only.html"), `${MP}/jobs/~021936000000000000002`, [], NOW);
    const n = normalizeJob(got.jobs[0]);
    if (!n.ok) throw new Error(n.error);
    expect(n.job).toMatchObject({ title: "Figma design system", clientCountry: "DE", clientTotalSpent: 1250 });
  });

  test("a private job sends nothing", () => {
    expect(extractJobs(page("job-private.html"), `${MP}/jobs/~021936000000000000003`, [], NOW)).toEqual({
      kind: "job",
      jobs: [],
      note: "private job: nothing sent",
    });
  });

  test("a search list of 10 tiles gives 10 documents", () => {
    const got = extractJobs(page("search-10.html"), `${MP}/nx/search/jobs/?q=react`, [], NOW);
    expect(got.kind).toBe("search");
    expect(got.jobs).toHaveLength(10);
    const normalized = got.jobs.map((j) => normalizeJob(j));
    for (const n of normalized) if (!n.ok) throw new Error(n.error);
    const [hourly, fixed] = normalized.map((n) => (n.ok ? n.job : null));
    expect(hourly).toMatchObject({ jobType: "HOURLY", hourlyMin: 30, hourlyMax: 60, paymentVerified: true, clientCountry: "US", clientTotalSpent: 10000 });
    expect(fixed).toMatchObject({ jobType: "FIXED", fixedBudget: 1100, url: `${MP}/jobs/~021937000000000000011` });
    expect(new Set(got.jobs.map((j) => j.jobTile.job.ciphertext)).size).toBe(10);
  });

  test("login and bot-check pages are recognised and give no jobs, whatever the URL", () => {
    expect(extractJobs(page("login.html"), `${MP}/ab/account-security/login?redir=%2Fnx%2Ffind-work`, [], NOW)).toEqual({ kind: "login", jobs: [] });
    expect(extractJobs(page("login.html"), `${MP}/nx/find-work/most-recent`, [], NOW).kind).toBe("login");
    expect(extractJobs(page("challenge.html"), `${MP}/nx/search/jobs/?q=react`, [], NOW)).toEqual({ kind: "challenge", jobs: [] });
  });

  test("the apply form: Connects, fields and questions in order (counter suffix stripped)", () => {
    expect(readApplyForm(page("apply-form.html"), `${MP}/nx/proposals/job/~021936466566031679148/apply/`, [])).toEqual({
      ciphertext: "~021936466566031679148",
      requiredConnects: 16,
      availableConnects: 42,
      needsMoreConnects: false,
      hasCoverLetter: true,
      rateField: "hourly",
      hasBoost: true,
      questions: [
        { position: 0, question: "Have you worked with WooCommerce Table Rate Shipping before?" },
        { position: 1, question: "How soon could you start?" },
      ],
      submitLabel: "Send for 16 Connects",
      error: null,
    });
  });

  test("Nuxt's flattened payload is unflattened; money texts are read", () => {
    expect(unflatten([["Reactive", 1], { a: 2, b: 3 }, "x", [4, 5], 1, null])).toEqual({ a: "x", b: [1, null] });
    expect(unflatten({ plain: true })).toEqual({ plain: true });
    expect(unflatten([[0]])).toEqual([null]); // a cycle comes back as null
    expect([moneyOf("$10K+ spent"), moneyOf("$1,250.50"), moneyOf("none")]).toEqual([10000, 1250.5, undefined]);
  });
});
