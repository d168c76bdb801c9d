import type { Db } from "../../db/client";
import { PLATFORMS } from "../../db/enums";
import { connectsRequiredOf } from "../../lib/connects";
import { isOneOf } from "../../lib/one-of";
import type { AuthContext } from "../accounts/service";
import * as applicationsRepo from "../applications/repo";
import { countInbox, type InboxFilter, type InboxItem } from "../feeds/service";
import { competitionOf, countsOf, type Competition } from "../jobs/activity";
import { clientBasics, clientScore, type ClientBasics } from "../jobs/client-score";
import { type JobSignal, signalsOf } from "../jobs/signals";
import { normalizeJob, type NormalizedJob } from "../jobs/normalize";
import { findJobs } from "../jobs/repo";
import { MAX_OFFSET } from "../../http/schemas";
import type { ExpectedValue } from "../value/model";
import { expectedValues } from "../value/service";
import { claimsOfJobs } from "../members/claims";
import { entriesOf } from "../clients/lists";
import { feedsOfMember } from "../members/routing";
import { parseOffset } from "./http";

/**
 * The inbox's reads beyond the feeds service's list: each card's facts from
 * the archived document (client, competition, Connects) and the account's
 * application for it, plus the query string's filters, checked field by field
 * so a bad value is a 400 page that names it.
 */

export const INBOX_PAGE_SIZE = 25;
export const SHOW = ["unread", "starred", "all", "dismissed"] as const;
const MAX_QUERY_CHARS = 200;

export interface InboxQuery {
  filter: InboxFilter;
  offset: number;
  /** The list's snapshot time: pages below the first stay put while new matches arrive above. */
  untilTs: number | undefined;
  /** The "new" badge's and new cards' starting point: matches after it are new. */
  sinceTs: number | undefined;
}

/** `?feed=&min=&show=&platform=&q=&offset=&until=` → the filter, or the first bad field's message. */
export function parseInboxQuery(query: Record<string, string | undefined>): InboxQuery | { error: string } {
  const filter: InboxFilter = { show: "unread" };
  const feed = query.feed?.trim();
  if (feed) {
    if (feed.length > 100) return { error: "feed must be a feed id" };
    filter.feedId = feed;
  }
  const min = query.min?.trim();
  if (min) {
    const n = Number(min);
    if (!Number.isFinite(n) || n < 0 || n > 10) return { error: "min (score at least) must be a number from 0 to 10" };
    filter.minScore = n;
  }
  const show = query.show?.trim();
  if (show) {
    if (!isOneOf(SHOW, show)) return { error: `show must be one of ${SHOW.join(", ")}` };
    filter.show = show;
  }
  const platform = query.platform?.trim();
  if (platform) {
    if (!isOneOf(PLATFORMS, platform)) return { error: `platform must be one of ${PLATFORMS.join(", ")}` };
    filter.platform = platform;
  }
  const text = query.q?.trim();
  if (text) {
    if (text.length > MAX_QUERY_CHARS) return { error: `q (search) must be at most ${MAX_QUERY_CHARS} characters` };
    filter.text = text;
  }
  const offset = parseOffset(query.offset);
  if (offset === undefined) return { error: `offset must be a whole number from 0 to ${MAX_OFFSET}` };
  const untilTs = parseTs(query.until);
  if (untilTs === null) return { error: "until must be a time in Unix milliseconds" };
  const sinceTs = parseTs(query.since);
  if (sinceTs === null) return { error: "since must be a time in Unix milliseconds" };
  return { filter, offset, untilTs, sinceTs };
}

/** A Unix-ms time from the query string: undefined when absent, null when malformed. */
export function parseTs(raw: string | undefined): number | undefined | null {
  if (raw === undefined || raw === "") return undefined;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/** The query string that reproduces a filter (and a page of it), for links, forms and htmx requests. */
export function filterQuery(filter: InboxFilter, extra: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  if (filter.feedId) q.set("feed", filter.feedId);
  if (filter.minScore !== undefined) q.set("min", String(filter.minScore));
  if (filter.show !== "unread") q.set("show", filter.show);
  if (filter.platform) q.set("platform", filter.platform);
  if (filter.text) q.set("q", filter.text);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== "" && v !== 0) q.set(k, String(v));
  return q.toString();
}

/**
 * The filter with the signed-in member's own feeds (routing: feed_members) put first, so a team member sees the
 * jobs routed to them before everyone else's. A caller of no member, or one with no feeds assigned, keeps the
 * plain newest-first list.
 */
export async function routedFilter<F extends InboxFilter>(deps: { db: Db }, auth: AuthContext, filter: F): Promise<F> {
  const own = await feedsOfMember(deps.db, auth.memberId);
  return own.size === 0 ? filter : { ...filter, firstFeedIds: [...own] };
}

/** The account's unread matches across its feeds: the inbox's count and its tab title. */
export async function unreadCount(deps: { db: Db }, auth: AuthContext): Promise<number> {
  return (await countInbox(deps, auth, { show: "unread" })).count;
}

/** The feed page's list, the feed's cards: every state unless `show` says otherwise. */
export interface FeedListQuery {
  show: InboxFilter["show"];
  offset: number;
}

/** `?show=&offset=` of a feed page (`unread=1`, its older link, is show=unread) → the list, or the bad field's message. */
export function parseFeedListQuery(query: Record<string, string | undefined>): FeedListQuery | { error: string } {
  const raw = query.show?.trim() || (query.unread === "1" || query.unread === "true" ? "unread" : "all");
  if (!isOneOf(SHOW, raw)) return { error: `show must be one of ${SHOW.join(", ")}` };
  const offset = parseOffset(query.offset);
  if (offset === undefined) return { error: `offset must be a whole number from 0 to ${MAX_OFFSET}` };
  return { show: raw, offset };
}

/** The query string of a feed page's list (the default, every state from the top, is empty). */
export function feedListQuery(q: FeedListQuery): string {
  const out = new URLSearchParams();
  if (q.show !== "all") out.set("show", q.show);
  if (q.offset > 0) out.set("offset", String(q.offset));
  return out.toString();
}

export interface InboxCard {
  item: InboxItem;
  job: NormalizedJob | null;
  client: ClientBasics;
  clientScore: number | null;
  clientLabel: string;
  proposals: number | null;
  competition: Competition | null;
  connects: number | null;
  application: applicationsRepo.ApplicationRow | null;
  /** What applying is worth against its Connects (modules/value); null outside the marketplace or when the job is not archived. */
  value: ExpectedValue | null;
  /** The member drafting this job (members/claims.ts), when one holds a live claim; the card shows their name. */
  claim?: { memberId: string; memberName: string; expiresAtTs: number } | null;
  /** From a feed assigned to the signed-in member (routing): marked "Your feeds" and listed first. */
  yours?: boolean;
  /** The client's place on the account's lists (issue 45): favoured cards are marked; none when on neither. */
  clientList?: { list: "blocked" | "favoured"; reason: string | null } | null;
  /** The job's signals as archived (issue 45; jobs/signals.ts), shown as warnings on the card. */
  signals?: JobSignal[];
}

/**
 * The cards for a page of inbox items: one read of the archived jobs, one of applications per job shown, and
 * one of the outcome ledger for every card's expected value (banded on the card's own match score).
 */
export async function inboxCards(
  deps: { db: Db; config: { connectPriceUsd: number } },
  auth: AuthContext,
  items: InboxItem[],
  nowTs: number,
): Promise<InboxCard[]> {
  const rows = await findJobs(
    deps.db,
    items.map((i) => i.job.ciphertext),
  );
  const applications = new Map<string, applicationsRepo.ApplicationRow | null>();
  for (const c of new Set(items.map((i) => i.job.ciphertext))) {
    applications.set(c, (await applicationsRepo.latestForJob(deps.db, auth.accountId, c)) ?? null);
  }
  const read = items.map((item) => {
    const doc = rows.get(item.job.ciphertext)?.document;
    const normalized = doc ? normalizeJob(doc) : null;
    return { item, doc, job: normalized?.ok ? normalized.job : null };
  });
  const valued = read.filter((r) => r.job?.platform === "marketplace");
  const values = await expectedValues(
    deps,
    auth,
    valued.map((r) => ({ ciphertext: r.item.job.ciphertext, job: r.job!, document: r.doc, score: r.item.matchingScore })),
  );
  const valueByEntry = new Map(valued.map((r, i) => [r.item.processedJobId, values[i]!]));
  const own = await feedsOfMember(deps.db, auth.memberId);
  // Who is drafting which of the page's jobs: one read for the whole page.
  const claims = await claimsOfJobs(
    deps.db,
    auth.accountId,
    items.map((i) => i.job.ciphertext),
    nowTs,
  );
  // The page's clients on the account's lists: one read for the whole page.
  const listed = await entriesOf(
    deps.db,
    auth.accountId,
    read.map((r) => r.job?.companyId),
  );
  return read.map(({ item, doc, job }) => {
    const score = clientScore(doc, nowTs);
    const proposals = countsOf(doc).proposals;
    const connects = connectsRequiredOf(doc);
    return {
      item,
      job,
      client: clientBasics(doc),
      clientScore: score.score,
      clientLabel: score.label,
      proposals,
      competition: competitionOf(proposals, job?.publishTimeTs ?? null, nowTs),
      connects,
      application: applications.get(item.job.ciphertext) ?? null,
      value: valueByEntry.get(item.processedJobId) ?? null,
      claim: claims.get(item.job.ciphertext) ?? null,
      yours: own.has(item.feedId),
      clientList: job?.companyId ? (listed.get(job.companyId) ?? null) : null,
      signals: signalsOf(rows.get(item.job.ciphertext)?.signals),
    };
  });
}
