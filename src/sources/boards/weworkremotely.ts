/**
 * We Work Remotely: RSS feeds, one per category
 * (`/categories/remote-programming-jobs.rss`), or every job
 * (`/remote-jobs.rss`, category "all"); about 100 items each. The feeds answer
 * ETags, so each feed's validators are kept in state and an unchanged feed
 * costs a 304. Attribution: every document keeps the job link and ends with
 * "Source: We Work Remotely — <url>".
 */
import type { JobDocument } from "../document";
import type { JobSource, PollContext, PollResult, SourceState } from "../source";
import { boardDocument, decodeEntities, describeJob, oneLine, singleCountry } from "./html";
import { conditionalGet, intervalOf, joinUrl, type Validators } from "./http";

export const WWR_NAME = "weworkremotely";
const BOARD = "We Work Remotely";
const DEFAULT_BASE_URL = "https://weworkremotely.com";
const DEFAULT_INTERVAL_MS = 30 * 60_000;
const MIN_INTERVAL_MS = 5 * 60_000;

/** The fields of one RSS `<item>`, text decoded from the XML (descriptions are still HTML). */
export interface RssItem {
  title?: string;
  link?: string;
  guid?: string;
  pubDate?: string;
  description?: string;
  region?: string;
  country?: string;
  type?: string;
  skills?: string;
  categories: string[];
}

export function feedPath(category: string): string {
  const c = category.trim();
  return c === "all" ? "/remote-jobs.rss" : `/categories/${encodeURIComponent(c.replace(/\.rss$/, ""))}.rss`;
}

export function createWeWorkRemotelySource(opts: { baseUrl?: string; categories: string[]; intervalMs?: number; userAgent?: string }): JobSource {
  const categories = [...new Set(opts.categories.map((c) => c.trim()).filter(Boolean))];
  if (categories.length === 0) throw new Error(`${WWR_NAME}: give at least one category (e.g. "remote-programming-jobs", or "all")`);
  const base = opts.baseUrl ?? DEFAULT_BASE_URL;
  return {
    name: WWR_NAME,
    intervalMs: intervalOf(opts.intervalMs, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS),
    async poll(ctx: PollContext): Promise<PollResult> {
      // Validators per feed, keyed by category.
      const feeds: Record<string, Validators> = { ...feedsOf(ctx.state) };
      const docs: JobDocument[] = [];
      const seen = new Set<string>();
      for (const category of categories) {
        const url = joinUrl(base, feedPath(category));
        const got = await conditionalGet({
          fetch: ctx.fetch,
          source: WWR_NAME,
          url,
          validators: feeds[category],
          nowTs: ctx.nowTs,
          userAgent: opts.userAgent,
          accept: "application/rss+xml, application/xml;q=0.9, text/xml;q=0.8",
        });
        if (got.kind === "not-modified") continue;
        if (got.kind === "rate-limited") {
          // Keep what the feeds before this one gave; the rest waits for the next poll.
          ctx.log.warn("weworkremotely asked to slow down", { retryAfterMs: got.retryAfterMs, category });
          return { docs, state: { ...ctx.state, feeds }, retryAfterMs: got.retryAfterMs };
        }
        let items: RssItem[];
        try {
          items = parseRss(got.body);
        } catch (err) {
          throw new Error(`${WWR_NAME}: malformed RSS from ${url}: ${err instanceof Error ? err.message : String(err)}`);
        }
        for (const item of items) {
          const doc = toDocument(item);
          if (doc === null || seen.has(doc.id)) continue;
          seen.add(doc.id);
          docs.push(doc);
        }
        feeds[category] = { etag: got.etag, lastModified: got.lastModified };
      }
      ctx.log.debug("weworkremotely polled", { feeds: categories.length, docs: docs.length });
      return { docs, state: { ...ctx.state, feeds } };
    },
  };
}

function feedsOf(state: SourceState): Record<string, Validators> {
  const f = state.feeds;
  return typeof f === "object" && f !== null && !Array.isArray(f) ? (f as Record<string, Validators>) : {};
}

/** One RSS item → a web job document; null without a title or an id (guid or link). */
export function toDocument(item: RssItem): JobDocument | null {
  // RSS text is plain text once the XML is decoded: "<" in a title is a character, not a tag.
  const fullTitle = oneLine(item.title);
  const link = item.link?.trim() || (item.guid && /^https?:\/\//.test(item.guid.trim()) ? item.guid.trim() : "");
  const key = idOf(item.guid?.trim() || link);
  if (fullTitle === "" || key === "") return null;
  // Titles read "Company: Role".
  const colon = fullTitle.indexOf(": ");
  const company = colon > 0 ? fullTitle.slice(0, colon).trim() : "";
  const title = colon > 0 && fullTitle.slice(colon + 2).trim() !== "" ? fullTitle.slice(colon + 2).trim() : fullTitle;
  const url = link || `https://weworkremotely.com/remote-jobs/${encodeURIComponent(key)}`;
  const region = oneLine(item.region);
  const country = oneLine(item.country?.replace(/[\u{1F1E6}-\u{1F1FF}]/gu, "")); // "🇺🇸 United States"
  const location = [region, country].filter(Boolean).join(", ");
  const type = oneLine(item.type);
  const published = item.pubDate ? Date.parse(item.pubDate.trim()) : NaN;
  return boardDocument({
    source: WWR_NAME,
    key,
    url,
    title,
    description: describeJob({
      html: item.description ?? "",
      details: [company && `Company: ${company}`, location && `Location: ${location}`, type && `Type: ${type}`],
      boardName: BOARD,
      url,
    }),
    tags: item.skills ? item.skills.split(",") : item.categories,
    publishTime: Number.isFinite(published) ? new Date(published).toISOString() : null,
    company,
    country: singleCountry(country || region),
    location,
  });
}

/** The job's slug from its URL (`…/remote-jobs/acme-senior-dev` → `acme-senior-dev`), else the guid as given. */
function idOf(guid: string): string {
  const m = /^https?:\/\/[^/]+\/(?:[^?#]*\/)?([^/?#]+)\/?(?:[?#].*)?$/.exec(guid);
  return (m?.[1] ?? guid).trim();
}

// ---- A small RSS reader: elements, attributes skipped, CDATA and entities handled. ----

/** One element of the feed's XML (XmlElement, so the DOM's global Element type is not shadowed). */
interface XmlElement {
  name: string;
  /** Raw inner XML. */
  inner: string;
}

const NAME = /^[A-Za-z_][\w.:-]*/;

/** The child elements of an XML fragment, in order; throws when one is not closed. */
function childElements(xml: string): XmlElement[] {
  const out: XmlElement[] = [];
  let pos = 0;
  for (;;) {
    const lt = xml.indexOf("<", pos);
    if (lt === -1) return out;
    if (xml.startsWith("<!--", lt)) pos = endOf(xml, "-->", lt, "comment");
    else if (xml.startsWith("<![CDATA[", lt)) pos = endOf(xml, "]]>", lt, "CDATA section");
    else if (xml.startsWith("<?", lt)) pos = endOf(xml, "?>", lt, "processing instruction");
    else if (xml.startsWith("<!", lt)) pos = endOf(xml, ">", lt, "declaration");
    else if (xml.startsWith("</", lt)) throw new Error(`unexpected closing tag at offset ${lt}`);
    else {
      const name = NAME.exec(xml.slice(lt + 1, lt + 200))?.[0];
      if (!name) throw new Error(`invalid tag at offset ${lt}`);
      const gt = xml.indexOf(">", lt);
      if (gt === -1) throw new Error(`<${name}> at offset ${lt} is cut off`);
      if (xml[gt - 1] === "/") {
        out.push({ name, inner: "" });
        pos = gt + 1;
        continue;
      }
      const close = closingTag(xml, name, gt + 1);
      if (close === -1) throw new Error(`<${name}> at offset ${lt} is not closed`);
      out.push({ name, inner: xml.slice(gt + 1, close) });
      pos = xml.indexOf(">", close) + 1;
    }
  }
}

function endOf(xml: string, terminator: string, from: number, what: string): number {
  const end = xml.indexOf(terminator, from);
  if (end === -1) throw new Error(`${what} at offset ${from} is not closed`);
  return end + terminator.length;
}

/** Offset of the `</name>` closing an element opened just before `from`, skipping CDATA, comments and nested same-name elements. */
function closingTag(xml: string, name: string, from: number): number {
  let depth = 0;
  let pos = from;
  for (;;) {
    const lt = xml.indexOf("<", pos);
    if (lt === -1) return -1;
    if (xml.startsWith("<![CDATA[", lt)) pos = endOf(xml, "]]>", lt, "CDATA section");
    else if (xml.startsWith("<!--", lt)) pos = endOf(xml, "-->", lt, "comment");
    else if (xml.startsWith(`</${name}`, lt) && /[\s>]/.test(xml[lt + name.length + 2] ?? "")) {
      if (depth === 0) return lt;
      depth--;
      pos = lt + 1;
    } else if (xml.startsWith(`<${name}`, lt) && /[\s>/]/.test(xml[lt + name.length + 1] ?? "")) {
      const gt = xml.indexOf(">", lt);
      if (gt !== -1 && xml[gt - 1] !== "/") depth++;
      pos = lt + 1;
    } else pos = lt + 1;
  }
}

/** Text content: CDATA kept verbatim, entities decoded elsewhere. */
function textOf(inner: string): string {
  let out = "";
  let pos = 0;
  for (;;) {
    const start = inner.indexOf("<![CDATA[", pos);
    if (start === -1) return out + decodeEntities(inner.slice(pos));
    out += decodeEntities(inner.slice(pos, start));
    const end = endOf(inner, "]]>", start, "CDATA section");
    out += inner.slice(start + 9, end - 3);
    pos = end;
  }
}

/** The items of an RSS 2.0 document; throws on anything that is not a well-formed `<rss><channel>`. */
export function parseRss(xml: string): RssItem[] {
  const root = childElements(xml);
  const rss = root.find((e) => e.name === "rss");
  if (!rss) throw new Error(`no <rss> element (found ${root.map((e) => `<${e.name}>`).join(", ") || "no elements"})`);
  const channel = childElements(rss.inner).find((e) => e.name === "channel");
  if (!channel) throw new Error("no <channel> in <rss>");
  const items: RssItem[] = [];
  for (const el of childElements(channel.inner)) {
    if (el.name !== "item") continue;
    const item: RssItem = { categories: [] };
    for (const field of childElements(el.inner)) {
      const text = textOf(field.inner);
      switch (field.name) {
        case "title":
        case "link":
        case "guid":
        case "pubDate":
        case "description":
        case "region":
        case "country":
        case "type":
        case "skills":
          item[field.name] = text;
          break;
        case "category":
          item.categories.push(text);
          break;
      }
    }
    items.push(item);
  }
  return items;
}
