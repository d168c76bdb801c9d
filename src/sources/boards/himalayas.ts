/**
 * Himalayas (https://himalayas.app/jobs/api): newest jobs first, 20 per page
 * whatever `limit` says, paged with the opaque `nextCursor` (the offset
 * parameter is deprecated). Each poll walks pages until it meets a job it
 * has already seen, runs out of pages, or reaches `maxPages`, so a steady
 * state costs one request. Terms: visible attribution (every document keeps
 * the job link and ends with "Source: Himalayas — <url>"), and no
 * redistribution to Google Jobs, LinkedIn or Jooble — nothing here publishes
 * anywhere.
 */
import type { JobDocument } from "../document";
import type { JobSource, PollContext, PollResult } from "../source";
import { boardDocument, describeJob, inlineText, mailtoAddress, singleCountry } from "./html";
import { conditionalGet, intervalOf, joinUrl, parseJson, recentIds, stateIds } from "./http";

export const HIMALAYAS_NAME = "himalayas";
const BOARD = "Himalayas";
const DEFAULT_BASE_URL = "https://himalayas.app";
const DEFAULT_INTERVAL_MS = 60 * 60_000;
const MIN_INTERVAL_MS = 5 * 60_000;
const DEFAULT_MAX_PAGES = 5;
const PAGE_SIZE = 20;
/** Enough to recognise the first page of the next poll, with room for reshuffles. */
const SEEN_KEPT = 500;

type Raw = Record<string, unknown>;

export function createHimalayasSource(opts: { baseUrl?: string; maxPages?: number; intervalMs?: number; userAgent?: string } = {}): JobSource {
  const base = opts.baseUrl ?? DEFAULT_BASE_URL;
  const maxPages = Math.max(1, Math.floor(opts.maxPages ?? DEFAULT_MAX_PAGES));
  return {
    name: HIMALAYAS_NAME,
    intervalMs: intervalOf(opts.intervalMs, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS),
    async poll(ctx: PollContext): Promise<PollResult> {
      const known = stateIds(ctx.state.seen);
      const seenBefore = new Set(known);
      const docs: JobDocument[] = [];
      const thisPoll = new Set<string>();
      let cursor: string | null = null;
      let validators = { etag: ctx.state.etag ?? null, lastModified: ctx.state.lastModified ?? null };
      let pages = 0;
      let metSeen = false;
      while (pages < maxPages) {
        const url = joinUrl(base, `/jobs/api?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        // Only the first page is conditional: if it has not changed, nothing newer exists.
        const got = await conditionalGet({
          fetch: ctx.fetch,
          source: HIMALAYAS_NAME,
          url,
          nowTs: ctx.nowTs,
          userAgent: opts.userAgent,
          validators: pages === 0 ? validators : undefined,
        });
        if (got.kind === "not-modified") return { docs: [] };
        if (got.kind === "rate-limited") {
          ctx.log.warn("himalayas asked to slow down", { retryAfterMs: got.retryAfterMs, pages });
          // Pages already read are kept; the first page's validators are not, so the next poll starts over.
          return { docs, state: { ...ctx.state, seen: recentIds([...known, ...thisPoll], SEEN_KEPT) }, retryAfterMs: got.retryAfterMs };
        }
        if (pages === 0) validators = { etag: got.etag, lastModified: got.lastModified };
        pages++;
        const body = parseJson(got.body, HIMALAYAS_NAME, url) as Raw | null;
        const jobs = typeof body === "object" && body !== null ? body.jobs : undefined;
        if (!Array.isArray(jobs)) throw new Error(`${HIMALAYAS_NAME}: expected {jobs: [...]} from ${url}`);
        for (const raw of jobs) {
          const doc = toDocument(raw);
          if (doc === null) continue;
          if (seenBefore.has(doc.id)) {
            metSeen = true;
            continue;
          }
          if (thisPoll.has(doc.id)) continue;
          thisPoll.add(doc.id);
          docs.push(doc);
        }
        const next = typeof body!.nextCursor === "string" && body!.nextCursor !== "" ? body!.nextCursor : null;
        if (metSeen || next === null || jobs.length === 0) break;
        cursor = next;
      }
      ctx.log.debug("himalayas polled", { pages, docs: docs.length, metSeen });
      // Newest last, so trimming keeps the ids the next poll meets first.
      const seen = recentIds([...known, ...[...thisPoll].reverse()], SEEN_KEPT);
      return { docs, state: { ...ctx.state, ...validators, seen } };
    },
  };
}

/** One element of `jobs` → a web job document; null without a title or an id (guid or application link). */
export function toDocument(raw: unknown): JobDocument | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const r = raw as Raw;
  const title = inlineText(r.title);
  const guid = typeof r.guid === "string" ? r.guid.trim() : "";
  const applyLink = typeof r.applicationLink === "string" ? r.applicationLink.trim() : "";
  const key = guid || applyLink;
  if (title === "" || key === "") return null;

  const url = /^https?:\/\//i.test(guid) ? guid : /^https?:\/\//i.test(applyLink) ? applyLink : `https://himalayas.app/jobs/${encodeURIComponent(key)}`;
  const company = inlineText(r.companyName);
  const countries = stringList(r.locationRestrictions);
  const location = countries.join(", ");
  const contactEmail = mailtoAddress(applyLink);
  return boardDocument({
    source: HIMALAYAS_NAME,
    key,
    url,
    title,
    description: describeJob({
      html: typeof r.description === "string" && r.description.trim() !== "" ? r.description : typeof r.excerpt === "string" ? r.excerpt : "",
      details: [
        company && `Company: ${company}`,
        `Location: ${location || "Worldwide"}`,
        stringList(r.timezoneRestrictions).length > 0 && `Time zones: ${stringList(r.timezoneRestrictions).join(", ")}`,
        inlineText(r.employmentType) && `Type: ${inlineText(r.employmentType)}`,
        stringList(r.seniority).length > 0 && `Seniority: ${stringList(r.seniority).join(", ")}`,
        salaryLine(r),
        /^https?:\/\//i.test(applyLink) && applyLink !== url && `Apply: ${applyLink}`,
        contactEmail && `Apply by e-mail: ${contactEmail}`,
      ],
      boardName: BOARD,
      url,
    }),
    tags: r.categories,
    publishTime: typeof r.pubDate === "number" || typeof r.pubDate === "string" ? toIso(r.pubDate) : undefined,
    company,
    country: countries.length === 1 ? singleCountry(countries[0]) : undefined,
    location,
    contactEmail,
  });
}

/** Strings, or `{name}` objects, as trimmed text. */
function stringList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((x) => inlineText(typeof x === "object" && x !== null ? (x as Raw).name : x)).filter((s) => s.length > 0);
}

/** Unix seconds (or ms, or an ISO string) → ISO. */
function toIso(v: number | string): string | undefined {
  const n = typeof v === "number" ? v : /^\d+$/.test(v.trim()) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n) || n <= 0) return undefined;
  return new Date(typeof v === "string" && !/^\d+$/.test(v.trim()) ? n : n < 1e11 ? n * 1000 : n).toISOString();
}

function salaryLine(r: Raw): string | undefined {
  const lo = typeof r.minSalary === "number" && r.minSalary > 0 ? r.minSalary : null;
  const hi = typeof r.maxSalary === "number" && r.maxSalary > 0 ? r.maxSalary : null;
  if (lo === null && hi === null) return undefined;
  const currency = typeof r.currency === "string" ? ` ${r.currency.trim()}` : "";
  const period = typeof r.salaryPeriod === "string" && r.salaryPeriod.trim() ? ` (${r.salaryPeriod.trim()})` : "";
  const range = lo !== null && hi !== null && lo !== hi ? `${lo.toLocaleString("en-US")}–${hi.toLocaleString("en-US")}` : (lo ?? hi)!.toLocaleString("en-US");
  return `Salary: ${range}${currency}${period}`;
}
