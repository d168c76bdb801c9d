/** Realistic feeds and jobs for the benchmarks, seeded so every run builds the same ones. */
import { newId } from "../../src/lib/ids";
import type { FeedRow } from "../../src/modules/feeds/repo";
import { makeFeedRow } from "../../tests/helpers/factories";

// A small seeded PRNG so every run builds the same feeds.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(7);
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
const some = <T>(list: readonly T[], max: number) => Array.from({ length: 1 + Math.floor(rand() * max) }, () => pick(list));

// A feed watches one kind of work: its keywords come from one cluster, as users' feeds do.
const KEYWORD_CLUSTERS = [
  ["react", "next.js", "typescript", "vue", "angular", "frontend", "tailwind", "javascript"],
  ["node.js", "express", "nestjs", "graphql", "rest api", "backend", "postgresql", "mongodb"],
  ["python", "django", "flask", "fastapi", "web scraping", "selenium", "automat*"],
  ["go", "golang", "rust", "microservices", "grpc", "distributed systems"],
  ["flutter", "react native", "swift", "kotlin", "ios", "android", "mobile app"],
  ["machine learning", "data analysis", "pandas", "tensorflow", "pytorch", "data scien*", "sql"],
  ["openai", "llm", "chatbot", "rag", "langchain", "gpt", "ai agent"],
  ["aws", "docker", "kubernetes", "terraform", "devops", "ci/cd", "linux"],
  ["wordpress", "shopify", "woocommerce", "elementor", "landing page", "webflow"],
  ["figma", "ui/ux", "logo", "brand identity", "illustrat*", "web design"],
  ["seo", "google ads", "facebook ads", "social media", "market*", "email marketing"],
  ["copywriting", "blog", "article", "ghostwrit*", "translation", "proofreading"],
  ["video editing", "youtube", "after effects", "premiere", "animation"],
  ["laravel", "php", "symfony", "mysql"],
  ["excel", "data entry", "virtual assistant", "bookkeeping", "quickbooks"],
];
const GENERIC = ["develop*", "api", "dashboard", "website", "integrat*"];
const COUNTRIES = ["United States", "India", "Pakistan", "GB", "DEU", "Canada", "Australia", "Nigeria", "Bangladesh", "Philippines"];

export function randomFeed(accountId: string, i: number, createdAtTs: number): FeedRow {
  const cluster = pick(KEYWORD_CLUSTERS);
  const mode = rand() < 0.5 ? "exclude" : "include";
  const countries = rand() < 0.25 ? some(COUNTRIES, 3) : [];
  // Only what varies between benchmark feeds; everything else is the tests' default feed.
  return makeFeedRow({
    id: newId(),
    accountId,
    title: `feed ${i}`,
    profilePrompt: rand() < 0.2 ? "Senior full-stack developer, React and Node, long-term" : "",
    minScore: rand() < 0.2 ? 6 : pick([0, 3, 5]),
    // Filter-only feeds (no keywords) exist but are rare: they match a large share of all jobs.
    includes: rand() < 0.01 ? [] : [...some(cluster, 3), ...(rand() < 0.05 ? [pick(GENERIC)] : [])],
    excludes: rand() < 0.35 ? some(pick(KEYWORD_CLUSTERS), 2) : [],
    minHourlyRate: rand() < 0.3 ? pick([20, 30, 40, 60]) : null,
    minFixedPrice: rand() < 0.25 ? pick([100, 250, 500, 1000]) : null,
    clientMinSpent: rand() < 0.2 ? pick([100, 1000, 10_000]) : null,
    countryFilterMode: mode,
    excludedCountries: mode === "exclude" ? countries : [],
    includedCountries: mode === "include" ? countries : [],
    platforms: rand() < 0.1 ? ["marketplace"] : null,
    notificationsMuted: rand() < 0.1,
    emailFound: rand() < 0.05 ? "email_found" : "all",
    jobTypes: rand() < 0.3 ? [pick(["HOURLY", "FIXED"])] : [],
    usOnlyMode: pick(["all", "all", "all", "exclude", "include"]),
    paymentVerifiedOnly: rand() < 0.4,
    clientMinRating: rand() < 0.3 ? pick([4, 4.5, 4.8]) : null,
    clientMinReviews: rand() < 0.15 ? pick([1, 5, 10]) : null,
    createdAtTs,
    updatedAtTs: createdAtTs,
  } as Partial<FeedRow>);
}
