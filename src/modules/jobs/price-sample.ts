/**
 * What fixed-price jobs of a kind cost, for the low-budget and outsized-budget signals (modules/jobs/signals.ts):
 * the newest PRICE_SAMPLE_SIZE budgets per skill tag, kept in memory per database. Skills are not a column, so a
 * query per job would read them out of JSON; instead the sample is filled once from the newest PRICE_SEED_JOBS
 * fixed-price jobs of the archive (their match fields, job_texts) and then follows ingestion (each node its own
 * sample on PostgreSQL: close enough for a median).
 */
import type { Db } from "../../db/client";
import { recentFixedPriceJobs, textsOf } from "./repo";

/** Budgets kept per skill tag (the newest). */
export const PRICE_SAMPLE_SIZE = 200;
/** Fewest budgets of a skill before its median is trusted: below it no price signal is raised. */
export const PRICE_MIN_SAMPLE = 10;
/** Fixed-price jobs read from the archive to fill a new sample. */
export const PRICE_SEED_JOBS = 2000;
/** Skill tags tracked at most; the least recently fed one goes first. */
const MAX_SKILLS = 5000;
/** A job's budget is filed under at most this many of its skills. */
const SKILLS_PER_JOB = 10;

const key = (skill: string) => skill.trim().toLowerCase();

/**
 * "Similar jobs" for a price: the jobs sharing the job's main skill tag, that is the first of its skills its
 * title names (as a whole word), else its first skill. A job with no skill tags has no similar jobs.
 */
export function mainSkill(job: { title: string; skills: readonly string[] }): string | null {
  const title = ` ${job.title.toLowerCase().replace(/[^a-z0-9+#.]+/g, " ")} `;
  const named = job.skills.find((s) => {
    const k = key(s)
      .replace(/[^a-z0-9+#.]+/g, " ")
      .trim();
    return k !== "" && title.includes(` ${k} `);
  });
  return named ?? job.skills[0] ?? null;
}

export class PriceSample {
  private readonly bySkill = new Map<string, number[]>();

  /** Files a fixed-price job's budget under its skills. */
  add(job: { fixedBudget: number | null; skills: readonly string[] }): void {
    if (job.fixedBudget === null || !(job.fixedBudget > 0)) return;
    for (const skill of job.skills.slice(0, SKILLS_PER_JOB)) {
      const k = key(skill);
      let list = this.bySkill.get(k);
      if (list)
        this.bySkill.delete(k); // re-inserted last: the Map's order is how recently a skill was fed
      else list = [];
      list.push(job.fixedBudget);
      if (list.length > PRICE_SAMPLE_SIZE) list.shift();
      this.bySkill.set(k, list);
      if (this.bySkill.size > MAX_SKILLS) this.bySkill.delete(this.bySkill.keys().next().value!);
    }
  }

  /** The median budget of a skill and how many budgets it is the median of; null below PRICE_MIN_SAMPLE. */
  median(skill: string): { median: number; n: number } | null {
    const list = this.bySkill.get(key(skill));
    if (!list || list.length < PRICE_MIN_SAMPLE) return null;
    const sorted = [...list].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return { median: sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2, n: sorted.length };
  }
}

const samples = new WeakMap<Db, Promise<PriceSample>>();

/** The database's sample, filled from the archive on first use (call outside a transaction, with the root db). */
export function priceSampleOf(db: Db): Promise<PriceSample> {
  let sample = samples.get(db);
  if (!sample) {
    sample = priceSampleFrom(db);
    samples.set(db, sample);
    // A failed fill is tried again next time rather than kept.
    sample.catch(() => samples.delete(db));
  }
  return sample;
}

/** A new sample of the archive's newest PRICE_SEED_JOBS fixed-price jobs. */
export async function priceSampleFrom(db: Db): Promise<PriceSample> {
  const s = new PriceSample();
  const jobs = await recentFixedPriceJobs(db, PRICE_SEED_JOBS);
  const texts = await textsOf(
    db,
    jobs.map((j) => j.ciphertext),
  );
  // Oldest first, so the newest budgets are the ones each skill keeps.
  for (const j of jobs.reverse()) {
    const fields = texts.get(j.ciphertext);
    if (fields) s.add({ fixedBudget: j.fixedBudget, skills: fields.skills });
  }
  return s;
}
