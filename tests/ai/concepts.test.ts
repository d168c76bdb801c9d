import { describe, expect, test } from "bun:test";
import { jobConcepts, negatedIn, present } from "../../src/ai/concepts";
import { scoreLocally } from "../../src/ai/local-scorer";
import { stemsOf } from "../../src/ai/stem";

const job = (title: string, description = "", skills: string[] = []) => ({ title, description, skills });
const REACT = "I build React and TypeScript dashboards and admin panels for SaaS companies: data tables, charts, Next.js.";
const SHOPIFY =
  "Shopify app developer: custom and public Shopify apps with Remix and Node.js, checkout UI extensions, Shopify Functions. I don't do theme design or store setup.";
const WORDPRESS =
  "WordPress performance specialist: I speed up slow WordPress and WooCommerce sites. Core Web Vitals, caching, CDN. No new site builds or design work.";
const score = (prompt: string, j: ReturnType<typeof job>) => scoreLocally(prompt, j).score;

describe("multi-word technologies and their near-misses are distinct", () => {
  test("React Native is not React; React Query is React", () => {
    const native = jobConcepts(job("React Native app for iOS"));
    expect(present(native, "react")).toBeNull();
    expect(present(native, "react-native")).toBe("strong");
    expect(present(jobConcepts(job("Dashboard with React Query")), "react")).toBe("implied");
  });

  test("a React profile ranks a React job far above React Native, Vue and Angular ones", () => {
    const good = score(REACT, job("React + TypeScript admin dashboard for our SaaS", "Data tables and charts.", ["React", "TypeScript"]));
    expect(good).toBeGreaterThanOrEqual(7);
    for (const other of ["React Native", "Vue", "Angular"]) {
      const near = scoreLocally(REACT, job(`${other} admin dashboard for our SaaS`, "Data tables and charts in TypeScript.", [other, "TypeScript"]));
      expect(near.score).toBeLessThan(good / 2);
      expect(near.reason).toContain(`instead of React`);
    }
  });

  test("a Shopify theme is not a Shopify app", () => {
    const app = score(SHOPIFY, job("Shopify app with a checkout UI extension", "Remix and Node.js.", ["Shopify Apps", "Remix"]));
    const theme = scoreLocally(SHOPIFY, job("Shopify theme customization (Dawn)", "Liquid sections and CSS.", ["Shopify", "Liquid", "Shopify Theme"]));
    expect(app).toBeGreaterThanOrEqual(7);
    expect(theme.score).toBeLessThan(3);
    expect(theme.reason).toContain("Shopify themes instead of Shopify apps");
  });

  test("WordPress performance is not a WordPress redesign", () => {
    const speed = score(
      WORDPRESS,
      job("Speed up our slow WordPress site", "PageSpeed is 30 on mobile; caching and a CDN.", ["WordPress", "Speed Optimization"]),
    );
    const design = score(WORDPRESS, job("WordPress website redesign", "A new site design with Elementor.", ["WordPress", "Web Design"]));
    expect(speed).toBeGreaterThanOrEqual(7);
    expect(design).toBeLessThan(speed / 2);
  });
});

describe("negations in the job count against", () => {
  const cases: [string, string][] = [
    ["Admin dashboard – Vue only, not a React project", "react"],
    ["Node.js webhook service (no Shopify)", "shopify"],
    ["Migrating off WooCommerce to a custom store", "woocommerce"],
    ["Data entry job – Python scraping not required", "scraping"],
    ["Svelte developer – please don't apply if you only know React", "react"],
    ["Replace Terraform with Pulumi on AWS", "terraform"],
    ["WordPress to Webflow site migration", "wordpress"],
  ];
  for (const [title, id] of cases) {
    test(`"${title}" rules out ${id}`, () => {
      expect(negatedIn(jobConcepts(job(title)), id)).toBe(true);
    });
  }

  test("moving within a technology keeps it: Create React App to Next.js is still React", () => {
    const r = jobConcepts(job("Migrate admin panel from Create React App to Next.js"));
    expect(negatedIn(r, "react")).toBe(false);
    expect(present(r, "react")).not.toBeNull();
  });

  test("'not only' and 'off-the-shelf' are no negations", () => {
    expect(negatedIn(jobConcepts(job("Not only React but also charts")), "react")).toBe(false);
    expect(negatedIn(jobConcepts(job("Replace off-the-shelf tools with a custom React dashboard")), "react")).toBe(false);
  });

  test("a React profile scores 'not a React project' far below the same job without the negation", () => {
    const plain = score(REACT, job("Admin dashboard for our SaaS in React", "Data tables and charts.", ["React", "TypeScript"]));
    const negated = scoreLocally(REACT, job("Admin dashboard for our SaaS – not a React project", "Data tables and charts. Vue 3.", ["Vue", "TypeScript"]));
    expect(negated.score).toBeLessThan(plain / 2);
    expect(negated.reason).toContain("rules out React");
  });
});

describe("synonyms and spellings meet", () => {
  test("abbreviations and synonyms read as what they stand for", () => {
    expect(present(jobConcepts(job("Our WP blog takes ages to load")), "wordpress")).toBe("strong");
    expect(present(jobConcepts(job("Our WP blog takes ages to load")), "web-performance")).toBe("strong");
    expect(present(jobConcepts(job("Internal ops console", "", ["TSX", "RTK"])), "react")).toBe("implied");
    expect(present(jobConcepts(job("Internal ops console", "", ["TSX"])), "typescript")).toBe("strong");
    expect(present(jobConcepts(job("Back office for our startup")), "dashboard")).toBe("strong");
  });

  test("a synonym-only job for the WordPress profile scores as a match", () => {
    expect(score(WORDPRESS, job("Our WP blog takes ages to load – please optimise it", "", ["WP", "Page Load Time"]))).toBeGreaterThanOrEqual(6);
  });

  test("British spellings meet American ones, and 'news' is not 'new'", () => {
    expect([...stemsOf("optimisation")]).toEqual([...stemsOf("optimization")]);
    expect([...stemsOf("colour")]).toEqual([...stemsOf("color")]);
    expect([...stemsOf("visualisation")]).toEqual([...stemsOf("visualization")]);
    expect([...stemsOf("news")]).not.toEqual([...stemsOf("new")]);
    expect(scoreLocally(WORDPRESS, job("Fix CLS on our WordPress news site", "", ["WordPress", "Core Web Vitals"])).reason).not.toContain("new site");
  });
});

describe("the reason names what matched and what did not", () => {
  test("a near-miss says what it is instead; a trade says it is not yours; spam says why", () => {
    expect(scoreLocally(REACT, job("React Native app for our SaaS dashboard", "", ["React Native", "TypeScript"])).reason).toContain(
      "React Native instead of React",
    );
    expect(scoreLocally(REACT, job("Write blog articles about React dashboards", "", ["Technical Writing", "React"])).reason).toContain(
      "writing work, not yours",
    );
    expect(scoreLocally(REACT, job("React dashboard – contact me on Telegram", "Don't reply here."))).toMatchObject({
      reason: expect.stringContaining("off the platform"),
    });
    expect(scoreLocally(REACT, job("React dashboard for our SaaS", "", ["React", "TypeScript"])).reason).toMatch(/^Matches react/);
  });

  test("every reason stays within 200 characters", () => {
    const long = job("React TypeScript Next.js Redux React Query dashboard admin panel SaaS Vue Angular!!!", "Telegram only. ".repeat(50), ["React", "Vue"]);
    expect(scoreLocally(REACT, long).reason.length).toBeLessThanOrEqual(200);
  });
});
