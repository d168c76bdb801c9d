/**
 * Hacker News "Ask HN: Who is hiring?" through the Algolia HN API
 * (https://hn.algolia.com/api/v1). The monthly thread is the newest story by
 * `whoishiring` with that title (the "Who wants to be hired?" and freelancer
 * threads are posted by the same account at the same moment, hence the title
 * check). Each top-level comment is one employer's post; replies are not jobs.
 *
 * The first poll of a thread reads the whole comment tree in one request;
 * later polls ask only for comments created since the newest one seen (with a
 * few minutes of overlap, since the index lags), and the ids already turned
 * into jobs are kept in state so the overlap yields nothing twice.
 * Attribution: every document links the comment on news.ycombinator.com and
 * ends with "Source: Hacker News — <url>".
 */
import type { JobDocument } from "../document";
import type { JobSource, PollContext, PollResult, SourceState } from "../source";
import { boardDocument, htmlToText, singleCountry } from "./html";
import { conditionalGet, intervalOf, joinUrl, parseJson, recentIds, stateIds } from "./http";

export const HACKERNEWS_NAME = "hackernews";
const BOARD = "Hacker News";
const DEFAULT_BASE_URL = "https://hn.algolia.com";
const DEFAULT_INTERVAL_MS = 60 * 60_000;
const MIN_INTERVAL_MS = 5 * 60_000;
const HIRING_TITLE = /^ask hn: who is hiring\?/i;
/** Comments can appear in the index a little after their creation time. */
const OVERLAP_SECONDS = 15 * 60;
const MAX_SEARCH_PAGES = 5;
/** A busy thread has ~700 top-level comments. */
const SEEN_KEPT = 3000;

type Raw = Record<string, unknown>;

export function createHackerNewsSource(opts: { baseUrl?: string; intervalMs?: number; userAgent?: string } = {}): JobSource {
  const base = opts.baseUrl ?? DEFAULT_BASE_URL;
  return {
    name: HACKERNEWS_NAME,
    intervalMs: intervalOf(opts.intervalMs, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS),
    async poll(ctx: PollContext): Promise<PollResult> {
      const get = async (path: string, validators?: SourceState) => {
        const url = joinUrl(base, path);
        return { url, got: await conditionalGet({ fetch: ctx.fetch, source: HACKERNEWS_NAME, url, validators, nowTs: ctx.nowTs, userAgent: opts.userAgent }) };
      };
      const slowDown = (retryAfterMs: number): PollResult => {
        ctx.log.warn("hackernews (algolia) asked to slow down", { retryAfterMs });
        return { docs: [], retryAfterMs };
      };

      // 1. The current thread.
      const stories = await get("/api/v1/search_by_date?tags=story,author_whoishiring&hitsPerPage=10");
      if (stories.got.kind === "rate-limited") return slowDown(stories.got.retryAfterMs);
      if (stories.got.kind === "not-modified") return { docs: [] };
      const story = newestHiringStory(hitsOf(parseJson(stories.got.body, HACKERNEWS_NAME, stories.url), HACKERNEWS_NAME, stories.url));
      if (story === null) {
        ctx.log.debug("hackernews: no 'Who is hiring?' thread found");
        return { docs: [] };
      }

      const known = ctx.state.storyId === story.id && typeof ctx.state.since === "number" ? ctx.state.since : null;
      const seenBefore = known === null ? new Set<string>() : new Set(stateIds(ctx.state.seen));
      const comments: Raw[] = [];
      let validators: { url: string; etag: string | null; lastModified: string | null } | null = null;
      let partial = false;

      if (known === null) {
        // 2a. A thread we have not read: the whole tree; its direct children are the posts.
        const tree = await get(`/api/v1/items/${encodeURIComponent(story.id)}`);
        if (tree.got.kind === "rate-limited") return slowDown(tree.got.retryAfterMs);
        if (tree.got.kind === "not-modified") return { docs: [] };
        const item = parseJson(tree.got.body, HACKERNEWS_NAME, tree.url) as Raw | null;
        if (typeof item !== "object" || item === null || !Array.isArray(item.children)) {
          throw new Error(`${HACKERNEWS_NAME}: expected an item with children[] from ${tree.url}`);
        }
        for (const c of item.children) if (typeof c === "object" && c !== null) comments.push(c as Raw);
      } else {
        // 2b. Only comments newer than the newest seen, top-level ones kept below.
        const filter = encodeURIComponent(`created_at_i>=${Math.max(0, known - OVERLAP_SECONDS)}`);
        const path = `/api/v1/search_by_date?tags=comment,story_${encodeURIComponent(story.id)}&numericFilters=${filter}&hitsPerPage=1000`;
        for (let page = 0; page < MAX_SEARCH_PAGES; page++) {
          const paged = `${path}&page=${page}`;
          // The same query as last time (nothing new then) may be answered 304 if the API supports it.
          const previous = page === 0 && ctx.state.validatorsUrl === joinUrl(base, paged) ? ctx.state : undefined;
          const res = await get(paged, previous);
          if (res.got.kind === "rate-limited") {
            if (comments.length === 0) return slowDown(res.got.retryAfterMs);
            // Keep what the earlier (newer) pages gave, but not their time: the older pages are still to read.
            partial = true;
            break;
          }
          if (res.got.kind === "not-modified") return { docs: [] };
          if (page === 0) validators = { url: res.url, etag: res.got.etag, lastModified: res.got.lastModified };
          const body = parseJson(res.got.body, HACKERNEWS_NAME, res.url);
          for (const h of hitsOf(body, HACKERNEWS_NAME, res.url)) {
            if (Number(h.parent_id) === Number(story.id)) comments.push(h);
          }
          const nbPages = Number((body as Raw).nbPages);
          if (!Number.isFinite(nbPages) || page + 1 >= nbPages) break;
        }
      }

      const docs: JobDocument[] = [];
      const ids = new Set<string>();
      let since = known ?? 0;
      for (const c of comments) {
        const at = createdAtSeconds(c);
        if (at !== null && at > since && !partial) since = at;
        const doc = toDocument(c);
        if (doc === null) continue;
        const commentId = doc.id.slice(HACKERNEWS_NAME.length + 1);
        if (seenBefore.has(commentId) || ids.has(commentId)) continue;
        ids.add(commentId);
        docs.push(doc);
      }
      ctx.log.debug("hackernews polled", { story: story.id, fullThread: known === null, comments: comments.length, docs: docs.length });
      const state: SourceState = {
        ...ctx.state,
        storyId: story.id,
        since,
        seen: recentIds([...seenBefore, ...ids], SEEN_KEPT),
        validatorsUrl: validators?.url ?? null,
        etag: validators?.etag ?? null,
        lastModified: validators?.lastModified ?? null,
      };
      return { docs, state };
    },
  };
}

function hitsOf(body: unknown, source: string, url: string): Raw[] {
  const hits = typeof body === "object" && body !== null ? (body as Raw).hits : undefined;
  if (!Array.isArray(hits)) throw new Error(`${source}: expected {hits: [...]} from ${url}`);
  return hits.filter((h): h is Raw => typeof h === "object" && h !== null);
}

/** The newest story titled "Ask HN: Who is hiring?…", as `{id, title}`. */
export function newestHiringStory(hits: Raw[]): { id: string; title: string } | null {
  let best: { id: string; title: string; at: number } | null = null;
  for (const h of hits) {
    const title = typeof h.title === "string" ? h.title.trim() : "";
    const id = idOf(h.objectID ?? h.id);
    if (!HIRING_TITLE.test(title) || id === "") continue;
    const at = createdAtSeconds(h) ?? 0;
    if (best === null || at > best.at) best = { id, title, at };
  }
  return best && { id: best.id, title: best.title };
}

function idOf(v: unknown): string {
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  return typeof v === "string" && /^\d+$/.test(v.trim()) ? v.trim() : "";
}

function createdAtSeconds(c: Raw): number | null {
  if (typeof c.created_at_i === "number" && Number.isFinite(c.created_at_i)) return c.created_at_i;
  const t = typeof c.created_at === "string" ? Date.parse(c.created_at) : NaN;
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

export interface FirstLine {
  company?: string;
  role?: string;
  location?: string;
  /** true: remote offered; false: on-site or hybrid only; null: not said. */
  remote: boolean | null;
}

const SEPARATOR = /\s*\|\s*|\s+[•·—–]\s+/;
const REMOTE = /\b(?:remote(?:-first|-friendly)?|distributed|wfh|work from home)\b/i;
const NOT_REMOTE = /\b(?:no|not)\s+remote\b/i;
const ON_SITE = /\b(?:on-?site|in[- ]office|in[- ]person|hybrid)\b/i;
const JOB_TYPE = /\b(?:full[- ]?time|part[- ]?time|contract(?:or)?|freelance|internships?|interns?|fte|permanent|temporary)\b/i;
const PAY = /[$€£¥]\s?\d|\b\d+(?:\.\d+)?\s?k\b|\bsalary\b|\bequity\b|\bcompensation\b|\bcomp\b/i;
const LINK = /https?:\/\/|\bwww\.|^[\w-]+\.(?:com|io|ai|co|dev|org|net|app|so|sh|xyz)(?:\/\S*)?$/i;
const ROLE =
  /\b(?:engineers?|engineering|developers?|designers?|scientists?|managers?|leads?|architects?|analysts?|researchers?|sre|devops|recruiters?|writers?|head of|directors?|cto|vp|founding|staff|specialists?|consultants?|administrators?|programmers?|swe|sde|product|marketing|sales|support|success|accountants?|counsel|technicians?|frontend|front-end|backend|back-end|full[- ]?stack|ios|android|mobile|ml|security|infrastructure|positions|roles|multiple)\b/i;
const YC_BATCH = /\s*\((?:YC|Y Combinator)\b[^)]*\)\s*$/i;

/**
 * Reads the conventional first line `Company | Role | Location | REMOTE | …`.
 * Fields after the company are recognised by what they look like (remote
 * markers, job types, pay and links are set aside; the first role-like field
 * is the role, the first other field the location), because posters order
 * them freely.
 */
export function parseFirstLine(line: string): FirstLine {
  const parts = line
    .split(SEPARATOR)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const result: FirstLine = { remote: null };
  if (parts.length < 2) return result;
  result.company = parts[0]!.replace(YC_BATCH, "").trim() || parts[0];
  let remoteWhere: string | undefined;
  let sawOnSite = false;
  const others: string[] = [];
  for (const part of parts.slice(1)) {
    if (NOT_REMOTE.test(part)) {
      result.remote = false;
      continue;
    }
    if (REMOTE.test(part) || ON_SITE.test(part)) {
      if (REMOTE.test(part)) result.remote = true;
      else sawOnSite = true;
      remoteWhere ??= placeIn(part);
      continue;
    }
    if (LINK.test(part) || PAY.test(part) || (JOB_TYPE.test(part) && part.length < 40 && !ROLE.test(part))) continue;
    others.push(part);
  }
  if (result.remote === null && sawOnSite) result.remote = false;
  // The role is the field that reads like one, else the first field that is not a place.
  const role = others.find((p) => ROLE.test(p)) ?? others.find((p) => !looksLikePlace(p));
  if (role !== undefined) result.role = role;
  result.location = others.find((p) => p !== role) ?? remoteWhere;
  if (result.location === undefined) delete result.location;
  return result;
}

/** "Berlin, Germany", "USA", "Austin, TX": a comma or a known country. */
function looksLikePlace(field: string): boolean {
  return field.includes(",") || singleCountry(field) !== undefined;
}

const EDGE_WORDS = /^(?:[\s,;:/&+-]|\b(?:or|and|only|ok|in|from)\b)+|(?:[\s,;:/&+-]|\b(?:or|and|only|ok|in|from)\b)+$/gi;

/** The place named in a remote/on-site field: "REMOTE (US or Canada)" → "US or Canada", "Onsite in NYC" → "NYC". */
function placeIn(part: string): string | undefined {
  const inParens = /\(([^)]+)\)/.exec(part)?.[1];
  const rest = (inParens ?? part.replace(new RegExp(REMOTE.source, "gi"), " ").replace(new RegExp(ON_SITE.source, "gi"), " "))
    .replace(/\s+/g, " ")
    .replace(EDGE_WORDS, "")
    .trim();
  return rest.length > 1 ? rest : undefined;
}

/** One top-level comment (a tree child or a search hit) → a web job document; null for deleted or empty comments. */
export function toDocument(raw: unknown): JobDocument | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const c = raw as Raw;
  const id = idOf(c.objectID ?? c.id);
  const html = typeof c.comment_text === "string" ? c.comment_text : typeof c.text === "string" ? c.text : "";
  if (id === "" || c.author === null || c.author === undefined || c.deleted === true || c.dead === true) return null;
  const text = htmlToText(html);
  if (text === "" || /^\[(?:dead|flagged|deleted)\]$/i.test(text)) return null;

  const firstLine = text.split("\n", 1)[0]!.trim();
  const parsed = parseFirstLine(firstLine);
  const title = titleOf(parsed, firstLine);
  if (title === "") return null;
  const url = `https://news.ycombinator.com/item?id=${id}`;
  const at = createdAtSeconds(c);
  const doc = boardDocument({
    source: HACKERNEWS_NAME,
    key: String(id),
    url,
    title,
    // The poster's text as written, obfuscated addresses included, so the e-mail filter can find them.
    description: `${text}\n\nSource: ${BOARD} — ${url}`,
    publishTime: at === null ? null : new Date(at * 1000).toISOString(),
    company: parsed.company,
    country: singleCountry(parsed.location),
    location: parsed.location,
  });
  doc.remote = parsed.remote;
  return doc;
}

/** "Role at Company", else the first line cut at a word boundary. */
function titleOf(parsed: FirstLine, firstLine: string): string {
  if (parsed.role && parsed.company) return clip(`${parsed.role} at ${parsed.company}`);
  if (parsed.company && parts(firstLine) > 1) return clip(`Jobs at ${parsed.company}`);
  return clip(firstLine);
}

function parts(line: string): number {
  return line.split(SEPARATOR).filter((p) => p.trim()).length;
}

function clip(s: string, max = 200): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trim()}…`;
}
