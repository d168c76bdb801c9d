import type { Config } from "../../config";
import type { Db } from "../../db/client";
import { iso, monthOf, utcDayStart } from "../../lib/time";
import { aiUsageCalls } from "../accounts/repo";
import { statusCountsSince } from "../applications/repo";
import { entryCountsPerFeed } from "../feeds/repo";
import { configuredSourceNames } from "../intake/registry";
import { companionSourceName } from "../intake/companion";
import { listSourceStates } from "../intake/repo";
import { html, type Html } from "./html";

/**
 * The overview page's reads (a handful of aggregate queries, none per feed,
 * each asked of the module that owns the table) and its presentation
 * helpers: relative, localised times and the per-feed matches chart, all
 * rendered on the server with no JavaScript.
 */

const DAY_MS = 86_400_000;
const CHART_DAYS = 7;

export { utcDayStart };

/** UTC midnight of the Monday that starts the ISO week `ts` falls in. */
export function isoWeekStart(ts: number): number {
  const day = utcDayStart(ts);
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return day - weekday * DAY_MS;
}

export type StatusCounts = Record<string, number>;

/** Applications made today and this ISO week (UTC), per status. */
export async function applicationCounts(db: Db, accountId: string, nowTs: number): Promise<{ today: StatusCounts; week: StatusCounts }> {
  const rows = await statusCountsSince(db, accountId, isoWeekStart(nowTs), utcDayStart(nowTs));
  const today: StatusCounts = {};
  const week: StatusCounts = {};
  for (const r of rows) {
    if (r.today > 0) today[r.status] = r.today;
    week[r.status] = r.week;
  }
  return { today, week };
}

export interface FeedMatches {
  feedId: string;
  title: string;
  /** Oldest first; days[CHART_DAYS - 1] is today (UTC). */
  days: { dayStartTs: number; count: number }[];
  total: number;
}

/** Matches per feed and UTC day over the last 7 days, every feed of the account in one grouped query. */
export async function matchesPerFeed(db: Db, accountId: string, nowTs: number): Promise<FeedMatches[]> {
  const since = utcDayStart(nowTs) - (CHART_DAYS - 1) * DAY_MS;
  const rows = await entryCountsPerFeed(db, accountId, since, DAY_MS);
  const byFeed = new Map<string, FeedMatches & { createdAtTs: number }>();
  for (const r of rows) {
    let f = byFeed.get(r.feedId);
    if (!f) {
      f = {
        feedId: r.feedId,
        title: r.title,
        createdAtTs: r.createdAtTs,
        days: Array.from({ length: CHART_DAYS }, (_, i) => ({ dayStartTs: since + i * DAY_MS, count: 0 })),
        total: 0,
      };
      byFeed.set(r.feedId, f);
    }
    const i = r.bucket === null ? -1 : Number(r.bucket);
    if (i >= 0 && i < CHART_DAYS) {
      f.days[i]!.count += r.count;
      f.total += r.count;
    }
  }
  return [...byFeed.values()].sort((a, b) => a.createdAtTs - b.createdAtTs || a.feedId.localeCompare(b.feedId)).map(({ createdAtTs: _, ...f }) => f);
}

export interface SourceStatus {
  name: string;
  lastPollAtTs: number | null;
  lastNew: number;
  lastError: string | null;
  lastErrorAtTs: number | null;
  consecutiveFailures: number;
}

/** How the account's browser companion is named among the sources. */
export const COMPANION_SOURCE_LABEL = "browser companion";

/**
 * Every source this server polls (global, not per account), with its last poll as recorded, and the account's
 * browser companion once it has reported (its last capture, and "needs you" as its error).
 */
export async function sourceStatuses(db: Db, config: Config, accountId?: string): Promise<SourceStatus[]> {
  const states = new Map((await listSourceStates(db)).map((s) => [s.name, s]));
  const companion = accountId === undefined ? undefined : companionSourceName(accountId);
  const names = configuredSourceNames(config);
  if (companion !== undefined && states.has(companion)) names.push(companion);
  return names.map((name) => {
    const s = states.get(name);
    return {
      name: name === companion ? COMPANION_SOURCE_LABEL : name,
      lastPollAtTs: s?.lastPollAtTs ?? null,
      lastNew: s?.lastNew ?? 0,
      // An error is current only while failures continue; a later success clears the streak.
      lastError: s && s.consecutiveFailures > 0 ? s.lastError : null,
      lastErrorAtTs: s && s.consecutiveFailures > 0 ? s.lastErrorAtTs : null,
      consecutiveFailures: s?.consecutiveFailures ?? 0,
    };
  });
}

export function aiScoringUsedThisMonth(db: Db, accountId: string, nowTs: number): Promise<number> {
  return aiUsageCalls(db, accountId, monthOf(nowTs), "scoring");
}

// ---------------------------------------------------------------- times

/** The first valid language tag of an Accept-Language header ("de-DE,de;q=0.9" → "de-DE"); "en" otherwise. */
export function localeFrom(acceptLanguage: string | null | undefined): string {
  if (!acceptLanguage) return "en";
  const tags = acceptLanguage
    .split(",")
    .map((part) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag!.trim(), q: q ? Number(q[1]) : 1 };
    })
    .filter((t) => t.tag && t.tag !== "*" && t.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of tags) {
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical && Intl.DateTimeFormat.supportedLocalesOf(canonical).length > 0) return canonical;
    } catch {
      // not a well-formed tag: try the next one
    }
  }
  return "en";
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * DAY_MS],
  ["month", 30 * DAY_MS],
  ["week", 7 * DAY_MS],
  ["day", DAY_MS],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];

function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? "en";
  } catch {
    return "en";
  }
}

/** "3 minutes ago" / "vor 3 Minuten" / "in 2 days": the largest whole unit of the distance. */
function relativeTime(ts: number, nowTs: number, locale: string): string {
  const rtf = new Intl.RelativeTimeFormat(safeLocale(locale), { numeric: "auto" });
  const diff = ts - nowTs;
  const abs = Math.abs(diff);
  for (const [unit, ms] of UNITS) {
    if (abs >= ms || unit === "second") return rtf.format(Math.trunc(diff / ms), unit);
  }
  return rtf.format(0, "second");
}

/** The absolute time in the locale's own format, in UTC (the server does not know the reader's zone). */
function absoluteTime(ts: number, locale: string): string {
  return new Intl.DateTimeFormat(safeLocale(locale), {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
    timeZoneName: "short",
  }).format(new Date(ts));
}

/** `<time datetime="ISO" title="absolute">3 minutes ago</time>`; a dash for no time at all. */
export function formatTime(ts: number | null, nowTs: number, locale: string): Html {
  if (ts === null) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso(ts)}" title="${absoluteTime(ts, locale)}">${relativeTime(ts, nowTs, locale)}</time>`;
}
