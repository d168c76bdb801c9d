/**
 * The feed preview (issue 45): what a feed, saved or not, would have caught of the jobs first seen in the last
 * 1, 7 or 30 days. It runs the feed's filters, the account's client list, the feed's signal rules and the local
 * scorer over the archive and writes nothing: no feed entry, event, task or AI usage (the spec's rule 1, no
 * backfill, holds: a preview is not a match). Every job of the window is counted once: under the first filter
 * that dropped it (the order of FeedPreview.droppedBy), as matched, or as unscored.
 *
 * Speed (docs/performance.md, "Feed preview"): the window is read from an index without documents, the field
 * filters run on the normalized columns (droppingFilter, the matcher's own logic), one scan of the window's match
 * fields with SQL's LIKE tells which jobs may hold a keyword so only those are parsed and matched exactly, and
 * only the newest PREVIEW_SCORED_MAX jobs through the filters are scored, on the local AI threads.
 */
import type { LocalAi } from "../../ai/local-ai";
import type { AuthContext } from "../accounts/service";
import { listEntriesFor } from "../clients/lists-read";
import { isoOrNull, iso } from "../../lib/time";
import { jobsInWindow, storedSignals, textsInWindow, type WindowJob } from "../jobs/preview-read";
import { jobSummaries, type JobSummary, type MatchFields, textsOf } from "../jobs/repo";
import type { JobSignal } from "../jobs/signals";
import { compileFeed, droppingFilter, droppingKeywords, ScannedText, type Term } from "./matcher";
import { PREVIEW_DAYS, type FeedPreview } from "./model";
import { AppError } from "../../errors";
import type { FeedRow } from "./repo";
import { checkNewFeed, EMPTY_PROMPT_SCORE, type FeedsDeps } from "./service";
import { verdictFor, type SignalRules } from "./signal-rules";

/** The newest jobs through the filters that are scored; the rest are counted as unscored (300 µs each on one thread). */
export const PREVIEW_SCORED_MAX = 500;
/** The matched jobs listed, newest first. */
export const PREVIEW_JOBS_MAX = 50;
const DAY_MS = 86_400_000;

export type PreviewDeps = FeedsDeps & { localAi: Pick<LocalAi, "score"> };

/**
 * The words of a keyword list for SQL's LIKE, or null when the list cannot be pre-filtered that way: LIKE folds
 * ASCII case only, so a keyword with another letter is matched exactly on every document. (A document that spells
 * an ASCII keyword only in compatibility characters, fullwidth letters or ligatures, which tokenize folds, is
 * missed by the preview; the feed itself would catch it.)
 */
function likeWords(terms: readonly Term[]): string[][] | null {
  const lists = terms.map((t) => t.tokens);
  return lists.every((words) => words.every((w) => /^[a-z0-9+#]+$/.test(w))) ? lists : null;
}

interface Passed {
  row: WindowJob;
  /** Read and normalized already when the keywords needed the text. */
  job: MatchFields | null;
  favoured: boolean;
  flags: { id: string; say: string }[];
}

export async function previewFeed(deps: PreviewDeps, auth: AuthContext, body: Record<string, unknown>): Promise<FeedPreview> {
  const days = (body.days ?? 7) as number;
  if (!(PREVIEW_DAYS as readonly unknown[]).includes(days)) throw new AppError("bad_request", "Validation failed", { details: ["days must be 1, 7 or 30"] });
  const { merged } = await checkNewFeed(deps, auth, body);
  const now = deps.clock.now();
  const window = { sinceTs: now - days * DAY_MS, untilTs: now + 1 };
  const feed = compileFeed({
    minHourlyRate: null,
    minFixedPrice: null,
    clientMinSpent: null,
    clientMinRating: null,
    clientMinReviews: null,
    platforms: null,
    webhookUrl: null,
    webhookDisabledAtTs: null,
    ...merged,
    id: "preview",
    accountId: auth.accountId,
    createdAtTs: 0,
  } as FeedRow);
  const rules = ((body as { signalRules?: SignalRules }).signalRules ?? {}) as SignalRules;
  const alertFavoured = (body as { alertFavoured?: boolean }).alertFavoured !== false;

  const rows = await jobsInWindow(deps.db, window);
  const droppedBy: Record<string, number> = {};
  const drop = (filter: string) => void (droppedBy[filter] = (droppedBy[filter] ?? 0) + 1);

  // The field filters on the columns; then the keywords, exactly, on the match fields of the jobs left that LIKE
  // finds the words of the includes in (or, without includes, those of the excludes: the others pass unread).
  const survivors: WindowJob[] = [];
  for (const row of rows) {
    const dropped = droppingFilter(feed, row);
    if (dropped) drop(dropped);
    else survivors.push(row);
  }
  const keywords = feed.includes.length > 0 ? feed.includes : feed.excludes;
  let texts = new Map<string, MatchFields>();
  if (keywords.length > 0) {
    const found = await textsInWindow(deps.db, window, likeWords(keywords));
    texts = found.texts;
    // A job archived before job_texts existed: its document, matched exactly.
    if (found.older.length > 0) {
      const left = new Set(survivors.map((r) => r.ciphertext));
      const older = found.older.filter((c) => left.has(c));
      for (const [c, fields] of await textsOf(deps.db, older)) texts.set(c, fields);
    }
  }
  const throughKeywords: { row: WindowJob; job: MatchFields | null }[] = [];
  for (const row of survivors) {
    const job = texts.get(row.ciphertext) ?? null;
    const dropped = job ? droppingKeywords(feed, new ScannedText(job)) : feed.includes.length > 0 ? "includes" : null;
    if (dropped) drop(dropped);
    else throughKeywords.push({ row, job });
  }

  // The account's client list and the feed's signal rules, as admission applies them (signal-rules.ts). Only a
  // rule that drops needs every job's signals; otherwise only the listed jobs' are read, for their flags.
  const companies = throughKeywords.map((p) => p.row.companyId).filter((c): c is string => c !== null);
  const entries = await listEntriesFor(deps.db, [auth.accountId], companies);
  const dropRule = Object.values(rules).includes("drop");
  const signals = dropRule
    ? await storedSignals(
        deps.db,
        throughKeywords.map((p) => p.row.ciphertext),
      )
    : new Map<string, JobSignal[]>();
  const passed: Passed[] = [];
  for (const { row, job } of throughKeywords) {
    const entry = row.companyId ? (entries.get(`${auth.accountId}:${row.companyId}`) ?? null) : null;
    const verdict = verdictFor(rules, signals.get(row.ciphertext) ?? [], entry);
    if (verdict.kind === "drop") drop(verdict.filter);
    else passed.push({ row, job, favoured: verdict.favoured, flags: verdict.flags.map((f) => ({ id: f.id, say: f.say })) });
  }

  const scores = await scoreNewest(deps, merged.profilePrompt, passed);
  const histogram = Array.from({ length: 10 }, (_, i) => ({ from: i, to: i + 1, count: 0 }));
  const listing: [Passed, PreviewScore][] = [];
  let matchedCount = 0;
  scores.forEach((s, i) => {
    histogram[Math.min(9, Math.max(0, Math.floor(s.score)))]!.count++;
    // A favoured client's job enters under the minimum score when the feed alerts favoured clients (the default).
    if (s.score < merged.minScore && !(passed[i]!.favoured && alertFavoured)) drop("minScore");
    else {
      matchedCount++;
      if (listing.length < PREVIEW_JOBS_MAX) listing.push([passed[i]!, s]);
    }
  });
  const shown = await jobSummaries(
    deps.db,
    listing.map(([p]) => p.row.ciphertext),
  );
  const matched = listing.flatMap(([p, s]) => {
    const listed = shown.get(p.row.ciphertext);
    return listed ? [previewJob(p, listed, s)] : [];
  });
  if (!dropRule) {
    const listed = await storedSignals(
      deps.db,
      matched.map((m) => m.job.ciphertext),
    );
    for (const m of matched) m.flags = (listed.get(m.job.ciphertext) ?? []).map((f) => ({ id: f.id, say: f.say }));
  }
  return {
    days,
    from: iso(window.sinceTs),
    total: rows.length,
    droppedBy,
    passed: passed.length,
    scored: scores.length,
    scoredMax: PREVIEW_SCORED_MAX,
    matched: matchedCount,
    unscored: passed.length - scores.length,
    scoreHistogram: histogram,
    jobs: matched,
  };
}

interface PreviewScore {
  score: number;
  source: "default" | "local";
  reason: string | null;
}

/**
 * Scores of the newest passed jobs, in their order: all of them at EMPTY_PROMPT_SCORE with an empty prompt (no
 * document needed), else the newest PREVIEW_SCORED_MAX by the local scorer, never a model (a preview spends
 * nothing and writes no score).
 */
async function scoreNewest(deps: PreviewDeps, prompt: string, passed: Passed[]): Promise<PreviewScore[]> {
  if (prompt.trim() === "") return passed.map(() => ({ score: EMPTY_PROMPT_SCORE, source: "default", reason: "No profilePrompt on this feed" }));
  const newest = passed.slice(0, PREVIEW_SCORED_MAX);
  const read = await textsOf(
    deps.db,
    newest.filter((p) => p.job === null).map((p) => p.row.ciphertext),
  );
  return Promise.all(
    newest.map(async (p): Promise<PreviewScore> => {
      const job = p.job ?? read.get(p.row.ciphertext);
      if (!job) return { score: 0, source: "local", reason: "The archived document no longer reads" };
      const s = await deps.localAi.score(prompt, { title: job.title, description: job.description, skills: job.skills });
      return { score: s.score, source: "local", reason: s.reason };
    }),
  );
}

function previewJob(p: Passed, listed: JobSummary, s: PreviewScore): FeedPreview["jobs"][number] {
  const { row } = p;
  return {
    job: {
      ciphertext: row.ciphertext,
      title: listed.title,
      url: listed.url,
      platform: row.platform,
      source: listed.source,
      jobType: row.jobType,
      hourlyMin: row.hourlyMin,
      hourlyMax: row.hourlyMax,
      fixedBudget: row.fixedBudget,
      clientCountry: row.clientCountry,
      publishTime: isoOrNull(listed.publishTimeTs),
    },
    firstSeenAt: iso(row.firstSeenAtTs),
    matchingScore: s.score,
    scoreSource: s.source,
    scoreReason: s.reason,
    favoured: p.favoured,
    flags: p.flags,
  };
}
