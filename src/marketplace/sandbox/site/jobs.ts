/**
 * The sandbox website's postings. The site is the sandbox marketplace's own front: like the real marketplace,
 * it shows jobs whether or not jobpilot has archived them, so the browser companion has something new to bring
 * in. Its jobs are a stream computed from the seed and the clock, one every `60 000 / jobsPerMinute` ms (a
 * "slot"): the n-th slot's job is the sandbox generator's job for that slot, with a numeric id that encodes the
 * slot, so a job page finds its job again from the URL alone, after a restart too, with nothing stored.
 */
import type { JobDocument } from "../../../sources/document";
import { generateJob } from "../../../sources/sandbox/generator";

/** 19 digits like the marketplace's ids; the slot is added, so id → slot is a subtraction. */
const ID_BASE = 1_800_000_000_000_000_000n;
/** How far back search looks, in slots. */
const SEARCH_DEPTH = 400;
/** Every PRIVATE_EVERY-th slot is a private (invite-only) job: never listed, its page says so. */
const PRIVATE_EVERY = 13;
export const PAGE_SIZE = 10;

export interface SiteJobsConfig {
  seed: number;
  jobsPerMinute: number;
}

export interface SiteJob {
  slot: number;
  ciphertext: string;
  isPrivate: boolean;
  /** The generator's document; its `url` points at the site. */
  doc: JobDocument;
}

const slotMs = (config: SiteJobsConfig) => Math.max(10, Math.round(60_000 / config.jobsPerMinute));

export function currentSlot(config: SiteJobsConfig, nowTs: number): number {
  return Math.floor(nowTs / slotMs(config));
}

export function jobAt(config: SiteJobsConfig, slot: number, siteBase: string): SiteJob {
  const id = (ID_BASE + BigInt(slot)).toString();
  const doc = generateJob({ seed: config.seed, index: slot, nowTs: slot * slotMs(config), id });
  const ciphertext = `~02${id}`;
  return { slot, ciphertext, isPrivate: slot % PRIVATE_EVERY === 0, doc: { ...doc, url: `${siteBase}/jobs/${ciphertext}` } };
}

/** The job a ciphertext names, if the site has posted it by `nowTs`; undefined for any other ciphertext. */
export function findJob(config: SiteJobsConfig, ciphertext: string, nowTs: number, siteBase: string): SiteJob | undefined {
  const m = /^~02(\d{19})$/.exec(ciphertext);
  if (!m) return undefined;
  const slot = BigInt(m[1]!) - ID_BASE;
  if (slot < 0n || slot > BigInt(currentSlot(config, nowTs))) return undefined;
  return jobAt(config, Number(slot), siteBase);
}

function matches(doc: JobDocument, words: string[]): boolean {
  if (words.length === 0) return true;
  const text = `${doc.title} ${doc.description} ${(doc.ontologySkills ?? []).map((s) => s.prefLabel).join(" ")}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

/** The newest public jobs matching every word of `query`, newest first, at most PAGE_SIZE. */
export function searchJobs(config: SiteJobsConfig, query: string, nowTs: number, siteBase: string): SiteJob[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 10);
  const found: SiteJob[] = [];
  const newest = currentSlot(config, nowTs);
  for (let slot = newest; slot > newest - SEARCH_DEPTH && slot >= 0 && found.length < PAGE_SIZE; slot--) {
    if (slot % PRIVATE_EVERY === 0) continue;
    const job = jobAt(config, slot, siteBase);
    if (matches(job.doc, words)) found.push(job);
  }
  return found;
}
