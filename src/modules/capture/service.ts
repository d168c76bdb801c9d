/**
 * Captured pages: a job posting the user is viewing in their own browser,
 * posted by the bookmarklet (or any client) and archived like any other job.
 * Nothing here fetches the page: for the professional network we only ever
 * see what the user chose to send (shared/research/marketplace-data.md §4).
 */
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { normalizeCountry } from "../../lib/countries";
import type { AuthContext } from "../accounts/service";
import { matchesOfJob } from "../feeds/repo";
import type { JobDocument } from "../jobs/document";
import { ingestDocuments } from "../jobs/ingest";
import { normalizeJob } from "../jobs/normalize";
import { MAX_DESCRIPTION_TEXT, type CaptureBody, type CaptureResult } from "./model";

export const CAPTURE_SOURCE = "capture";

function invalid(field: string, problem: string): AppError {
  return new AppError("bad_request", `Invalid body: ${field} ${problem}`, { details: [`${field} ${problem}`] });
}

// ---------------------------------------------------------------------------
// URL → job id

/** Query parameters that only say how the user got to the page; they must not make one job look like two. */
const TRACKING_PARAMS = new Set([
  "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "mkt_tok",
  "ref", "ref_src", "refid", "trackingid", "trk", "trkinfo", "lipi", "licu", "originalsubdomain", "ebp", "recommendedflavor",
  "gh_src", "lever-source", "lever-origin",
]);

function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_PARAMS.has(lower);
}

/** The URL without fragment and tracking parameters, the rest sorted, and no trailing slash: one string per page. */
export function normalizeUrl(url: URL): string {
  const clean = new URL(url.href);
  clean.hash = "";
  const kept = [...clean.searchParams].filter(([name]) => !isTracking(name)).sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  clean.search = new URLSearchParams(kept).toString();
  if (clean.pathname.length > 1 && clean.pathname.endsWith("/")) clean.pathname = clean.pathname.replace(/\/+$/, "");
  return clean.href;
}

// "/jobs/view/123", "/jobs/view/senior-engineer-at-acme-123/": the id is the trailing digits of the segment.
const JOB_VIEW_PATH = /\/jobs\/view\/(?:[^/]*-)?(\d{1,20})(?:\/|$)/;
const DIGITS = /^\d{1,20}$/;

/**
 * The document id and the URL to store. A professional-network job id from the
 * path or `currentJobId` makes every view of the job (search page, job page,
 * localized host) one job; anything else is keyed by a hash of the normalized URL.
 */
export function captureIdentity(platform: "professional_network" | "web", url: URL): { id: string; url: string } {
  if (platform === "professional_network") {
    const fromPath = JOB_VIEW_PATH.exec(url.pathname)?.[1];
    const fromQuery = url.searchParams.get("currentJobId")?.trim();
    const jobId = fromPath ?? (fromQuery && DIGITS.test(fromQuery) ? fromQuery : undefined);
    if (jobId !== undefined) return { id: jobId, url: `${url.origin}/jobs/view/${jobId}/` };
  }
  const normalized = normalizeUrl(url);
  return { id: new Bun.CryptoHasher("sha256").update(normalized).digest("hex").slice(0, 24), url: normalized };
}

// ---------------------------------------------------------------------------
// Location → country

// Two-letter parts of a location are usually US states or provinces ("Austin, TX", "Toronto, ON"), not countries.
const TWO_LETTER_COUNTRIES: Record<string, string> = { UK: "GB", US: "US" };
const LOCATION_SEPARATORS = /[,;()[\]|·•/]| - /;
const WORK_MODES = /\b(?:remote|hybrid|on-?site|in-?office)\b/gi;

/** ISO-2 code of the country a free-text location names ("Berlin, Germany (Remote)" → DE), or undefined. */
export function countryOfLocation(location: string | undefined): string | undefined {
  if (!location) return undefined;
  const parts = location.split(LOCATION_SEPARATORS).map((p) => p.replace(WORK_MODES, "").trim()).filter(Boolean);
  // The country is normally last; "Atlanta, Georgia" names a state, so Georgia counts only on its own.
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    if (part.length <= 2) {
      const code = TWO_LETTER_COUNTRIES[part.toUpperCase()];
      if (code) return code;
      continue;
    }
    if (part.toLowerCase() === "georgia" && parts.length > 1) continue;
    const code = normalizeCountry(part);
    if (code) return code;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// HTML → text

/** Elements whose content is never text: dropped with everything inside. */
const DROPPED = new Set(["script", "style", "noscript", "template", "head", "title", "iframe", "object", "svg", "math", "select", "textarea"]);
/** Elements that start a paragraph (blank line) or a line. */
const PARAGRAPH = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "blockquote", "pre", "section", "article", "header", "footer", "aside", "nav", "figure", "hr", "form", "fieldset", "address", "details"]);
const LINE = new Set(["div", "li", "tr", "dt", "dd", "br", "summary", "caption", "figcaption", "main", "center"]);
const CELL = new Set(["td", "th"]);

const ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", ensp: " ", emsp: " ", thinsp: " ", shy: "", zwnj: "", zwj: "",
  ndash: "–", mdash: "—", hellip: "…", lsquo: "‘", rsquo: "’", sbquo: "‚", ldquo: "“", rdquo: "”", bdquo: "„", laquo: "«", raquo: "»",
  bull: "•", middot: "·", copy: "©", reg: "®", trade: "™", euro: "€", pound: "£", yen: "¥", cent: "¢", deg: "°", times: "×", divide: "÷",
  plusmn: "±", frac12: "½", frac14: "¼", frac34: "¾", sect: "§", para: "¶", dagger: "†", larr: "←", rarr: "→", uarr: "↑", darr: "↓",
  check: "✓", star: "☆", hearts: "♥", iexcl: "¡", iquest: "¿", szlig: "ß", eacute: "é", egrave: "è", ecirc: "ê", aacute: "á", agrave: "à",
  acirc: "â", auml: "ä", ouml: "ö", uuml: "ü", Auml: "Ä", Ouml: "Ö", Uuml: "Ü", ccedil: "ç", ntilde: "ñ", oacute: "ó", iacute: "í", uacute: "ú",
  Eacute: "É", aring: "å", oslash: "ø", aelig: "æ", Aring: "Å", Oslash: "Ø", AElig: "Æ",
};
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g;

function codePoint(n: number): string {
  // NUL, surrogates and values beyond Unicode become the replacement character, as browsers do.
  return n === 0 || (n >= 0xd800 && n <= 0xdfff) || n > 0x10ffff ? "\uFFFD" : String.fromCodePoint(n);
}

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (dec !== undefined) return codePoint(Number(dec));
    if (hex !== undefined) return codePoint(parseInt(hex, 16));
    return ENTITIES[name!] ?? whole;
  });
}

// Block tags leave marks, resolved into line breaks once the whole text is known.
const LINE_MARK = "\u0001";
const PARAGRAPH_MARK = "\u0002";
const MARKS = /[\u0001\u0002]/g;
const BREAKS = /[ \t]*(?:[\u0001\u0002][ \t]*)+/g;
const TAG_NAME = /^\/?([a-zA-Z][a-zA-Z0-9:-]*)/;
const CLOSE_TAG = new Map([...DROPPED].map((name) => [name, new RegExp(`</${name}[\\s/>]`, "gi")]));

/**
 * Index just past the `>` that closes the tag opened at `lt`, skipping `>`
 * inside quoted attribute values (a quote opens one only right after `=`, as in
 * HTML, so `<p class=it's>` still ends at its `>`); -1 when it never closes.
 */
function tagEnd(html: string, lt: number): number {
  let quote = 0;
  let afterEquals = false;
  for (let i = lt + 1; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
      continue;
    }
    if (c === 62) return i + 1;
    if ((c === 34 || c === 39) && afterEquals) quote = c;
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) afterEquals = c === 61;
  }
  return -1;
}

/**
 * Readable text from an HTML fragment: scripts, styles and other non-text
 * elements removed with their content, tags dropped, entities decoded, and
 * block elements turned into line and paragraph breaks. One forward pass with
 * indexOf and anchored matches only, so hostile markup (200 KB of "<script")
 * costs linear time, not a regex backtracking storm.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let pre = 0;
  const text = (raw: string) => {
    if (raw === "") return;
    const decoded = decodeEntities(pre > 0 ? raw : raw.replace(/\s+/g, " "));
    out.push(decoded.includes(LINE_MARK) || decoded.includes(PARAGRAPH_MARK) ? decoded.replace(MARKS, "") : decoded);
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);
    const isLetter = (next >= 65 && next <= 90) || (next >= 97 && next <= 122);
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    if (!isLetter && next !== 47 /* / */ && next !== 33 /* ! */ && next !== 63 /* ? */) {
      text("<"); // "a < b" is text
      i = lt + 1;
      continue;
    }
    const end = tagEnd(html, lt);
    if (end === -1) break; // a tag cut off by the end of input is dropped, as a browser does
    i = end;
    const name = TAG_NAME.exec(html.slice(lt + 1, Math.min(end, lt + 40)))?.[1]?.toLowerCase();
    if (name === undefined) continue; // <!doctype>, <?xml?>
    const closing = next === 47;
    if (!closing && DROPPED.has(name) && !html.slice(lt, end).endsWith("/>")) {
      // Skip to the matching close tag; without one the rest of the input is the element's content.
      const close = CLOSE_TAG.get(name)!;
      close.lastIndex = end;
      const found = close.exec(html);
      if (found === null) break;
      const after = html.indexOf(">", found.index);
      i = after === -1 ? html.length : after + 1;
      continue;
    }
    if (name === "pre") pre = Math.max(0, pre + (closing ? -1 : 1));
    if (PARAGRAPH.has(name)) out.push(PARAGRAPH_MARK);
    else if (LINE.has(name)) out.push(LINE_MARK);
    else if (CELL.has(name) && !closing) out.push(" ");
    if (name === "li" && !closing) out.push("- ");
  }
  // "</li><li>" is one line break, "</p><p>" one blank line, however many block tags sit between two texts.
  return tidy(out.join("").replace(BREAKS, (run) => (run.includes(PARAGRAPH_MARK) ? "\n\n" : "\n")));
}

/** Trims each line, collapses runs of spaces, and keeps at most one blank line between paragraphs. */
function tidy(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n").map((line) => line.replace(/[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, " ").trim());
  const kept: string[] = [];
  for (const line of lines) {
    if (line === "" && (kept.length === 0 || kept[kept.length - 1] === "")) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  return kept.join("\n");
}

// ---------------------------------------------------------------------------
// The capture

const EMAIL = /^[^\s@<>()[\]",;:]+@[^\s@<>()[\]",;:]+\.[a-zA-Z]{2,24}$/;
type CaptureDeps = Pick<Deps, "db" | "clock" | "feedIndex" | "config" | "wake">;

/** The archived document for a capture, or a 400 naming the first bad field. */
export function captureDocument(body: CaptureBody, nowTs: number): JobDocument {
  let parsed: URL;
  try {
    parsed = new URL(body.url.trim());
  } catch {
    throw invalid("url", "must be an absolute http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("url", "must be an http or https URL");
  const title = body.title.replace(/\s+/g, " ").trim();
  if (title === "") throw invalid("title", "must not be blank");
  const contactEmail = body.contactEmail?.trim() || undefined;
  if (contactEmail !== undefined && !EMAIL.test(contactEmail)) throw invalid("contactEmail", "must be an e-mail address");

  const platform = body.platform ?? "professional_network";
  const { id, url } = captureIdentity(platform, parsed);
  // A page whose description could not be read still carries its title; normalizeJob needs some description.
  const fromHtml = body.descriptionHtml ? htmlToText(body.descriptionHtml) : "";
  const description = (fromHtml || tidy(body.description ?? "") || title).slice(0, MAX_DESCRIPTION_TEXT);
  const company = body.company?.replace(/\s+/g, " ").trim() || undefined;
  const location = body.location?.replace(/\s+/g, " ").trim() || undefined;
  const country = countryOfLocation(location);

  const doc: JobDocument = { platform, source: CAPTURE_SOURCE, id, title, description, url, jobTile: { job: { publishTime: new Date(nowTs).toISOString() } } };
  if (company !== undefined || country !== undefined) {
    doc.client = {};
    if (company !== undefined) doc.client.name = company;
    if (country !== undefined) doc.client.country = country;
  }
  if (location !== undefined) doc.location = location;
  if (contactEmail !== undefined) doc.contactEmail = contactEmail;
  return doc;
}

/**
 * Archives the page and runs it through every feed (ingestDocuments). `matched`
 * counts only the caller's feeds: other accounts' feeds see the job too, but
 * how many of them wanted it is theirs to know.
 */
export function captureJob(deps: CaptureDeps, auth: AuthContext, body: CaptureBody): { status: 200 | 201; result: CaptureResult } {
  const doc = captureDocument(body, deps.clock.now());
  const normalized = normalizeJob(doc);
  if (!normalized.ok) throw new AppError("bad_request", `Invalid body: ${normalized.error}`, { details: [normalized.error] });
  const ingested = ingestDocuments(deps, [doc], { source: CAPTURE_SOURCE });
  if (ingested.rejected > 0) {
    const error = ingested.errors[0]?.error ?? "the page could not be archived";
    throw new AppError("bad_request", `Invalid body: ${error}`, { details: [error] });
  }
  const ciphertext = normalized.job.ciphertext;
  const inserted = ingested.inserted > 0;
  // A job seen for the first time can only have the feed entries this ingest just wrote.
  const matched = inserted ? matchesOfJob(deps.db, auth.accountId, ciphertext).length : 0;
  return { status: inserted ? 201 : 200, result: { captured: true, ciphertext, inserted, matched } };
}
