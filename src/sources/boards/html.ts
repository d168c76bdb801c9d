/**
 * Text helpers for the public job-board adapters: HTML → plain text (tags
 * stripped, entities decoded, paragraph breaks kept), the pieces every board
 * document shares (description with its attribution line, skills from tags)
 * and "is this location a single country?".
 *
 * Hand-written rather than a dependency: board descriptions are simple HTML
 * fragments, and all we need is readable text for matching and e-mail
 * extraction, not a DOM.
 */
import { normalizeCountry } from "../../lib/countries";
import type { JobDocument, OntologySkill } from "../../modules/jobs/document";

// HTML 4 Latin-1 entities name the code points 160..255 in order.
const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest " +
  "Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig " +
  "agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const OTHER_ENTITIES: Record<string, number> = {
  quot: 34, amp: 38, apos: 39, lt: 60, gt: 62, OElig: 338, oelig: 339, Scaron: 352, scaron: 353, Yuml: 376, fnof: 402, circ: 710, tilde: 732,
  ensp: 8194, emsp: 8195, thinsp: 8201, zwnj: 8204, zwj: 8205, lrm: 8206, rlm: 8207, ndash: 8211, mdash: 8212, lsquo: 8216, rsquo: 8217,
  sbquo: 8218, ldquo: 8220, rdquo: 8221, bdquo: 8222, dagger: 8224, Dagger: 8225, bull: 8226, hellip: 8230, permil: 8240, prime: 8242,
  Prime: 8243, lsaquo: 8249, rsaquo: 8250, euro: 8364, trade: 8482, larr: 8592, uarr: 8593, rarr: 8594, darr: 8595, harr: 8596,
  minus: 8722, le: 8804, ge: 8805, ne: 8800, hearts: 9829, check: 10003, star: 9734, nbhy: 8209,
};
const NAMED = new Map<string, string>(Object.entries(OTHER_ENTITIES).map(([k, v]) => [k, String.fromCodePoint(v)]));
LATIN1.split(" ").forEach((name, i) => NAMED.set(name, String.fromCodePoint(160 + i)));

// Browsers read &#128;–&#159; as Windows-1252, and old CMS content relies on it (&#146; for ’).
const CP1252 = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

const ENTITY = /&(?:#(\d{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|([a-zA-Z][a-zA-Z0-9]{1,31});)/g;

function fromCode(code: number): string {
  if (code >= 0x80 && code <= 0x9f) return CP1252[code - 0x80]!;
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
  return String.fromCodePoint(code);
}

/** Decodes character references; unknown named ones stay as written ("AT&T" is left alone). */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (dec !== undefined) return fromCode(Number.parseInt(dec, 10));
    if (hex !== undefined) return fromCode(Number.parseInt(hex, 16));
    return NAMED.get(name!) ?? whole;
  });
}

// Tags that start a new paragraph, and those that only start a new line.
const PARAGRAPH_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "blockquote", "pre", "table", "hr", "section", "article", "header", "footer", "figure", "address"]);
const LINE_TAGS = new Set(["div", "tr", "li", "dt", "dd", "main", "nav", "aside", "form"]);
// Content of these never reaches the reader.
const HIDDEN = /<(script|style|head|template|noscript)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const COMMENT = /<!--[\s\S]*?-->/g;
// A tag, with quoted attribute values that may themselves contain ">".
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/g;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const BLOCK_MARKUP = /<(?:p|br|div|li|h[1-6]|ul|ol|table|tr|pre|blockquote)\b/i;
const PRE_SPACE = "\u0001";
const PARA = "\u0000P\u0000";
const LINE = "\u0000L\u0000";

/**
 * Plain text from an HTML fragment: tags removed, entities decoded, blocks and
 * <br> turned into line breaks, paragraphs separated by one blank line. Link
 * targets are kept after the link text when they add something (a mailto
 * address, a URL hidden behind "apply here"). Text without block markup keeps
 * its own newlines, since several boards send plain text in the "HTML" field.
 */
export function htmlToText(html: string | null | undefined): string {
  if (typeof html !== "string" || html.length === 0) return "";
  const source = html.replace(/[\u0000\u0001]/g, "").replace(COMMENT, "").replace(HIDDEN, "");
  const plainNewlines = !BLOCK_MARKUP.test(source);
  const out: string[] = [];
  let pre = 0;
  let link: { href: string; start: number } | null = null;
  const pushText = (raw: string) => {
    if (raw.length === 0) return;
    let t = raw;
    if (pre === 0) t = plainNewlines ? t.replace(/\r\n?/g, "\n").replace(/[^\S\n]+/g, " ") : t.replace(/\s+/g, " ");
    else t = t.replace(/\r\n?/g, "\n").replace(/[ \t]/g, PRE_SPACE); // survives the space collapsing in tidy()
    out.push(decodeEntities(t));
  };
  let last = 0;
  for (const m of source.matchAll(TAG)) {
    pushText(source.slice(last, m.index));
    last = m.index + m[0].length;
    const closing = m[1] === "/";
    const name = m[2]!.toLowerCase();
    if (name === "pre") pre = Math.max(0, pre + (closing ? -1 : 1));
    if (name === "a") {
      if (!closing) {
        const h = HREF.exec(m[3] ?? "");
        link = { href: decodeEntities((h?.[1] ?? h?.[2] ?? h?.[3] ?? "").trim()), start: out.length };
      } else if (link) {
        const text = out.slice(link.start).join("");
        const target = link.href.replace(/^mailto:/i, "").split("?")[0]!;
        const useful = /^(?:https?:\/\/|mailto:)/i.test(link.href) && target.length > 0;
        if (useful && !text.includes(target) && !text.replace(/\.\.\.$|…$/, "").includes(target.replace(/^https?:\/\//, ""))) out.push(` (${target})`);
        link = null;
      }
      continue;
    }
    if (name === "br") out.push("\n");
    else if (name === "li") out.push(LINE, closing ? "" : "- ");
    else if (PARAGRAPH_TAGS.has(name)) out.push(PARA);
    else if (LINE_TAGS.has(name)) out.push(LINE);
    else if ((name === "td" || name === "th") && closing) out.push(" ");
  }
  pushText(source.slice(last));
  return tidy(out.join(""));
}

// A run of block boundaries (and the space between them): "</li><li>" is one line break, not two.
const BREAKS = /[ \t\n]*(?:\u0000[PL]\u0000[ \t\n]*)+/g;

/** Line breaks from markers, spaces trimmed per line, at most one blank line in a row. */
function tidy(text: string): string {
  return text
    .replace(/\u00a0/g, " ")
    .replace(BREAKS, (run) => (run.includes(PARA) || run.includes("\n\n") ? "\n\n" : "\n"))
    .split("\n")
    .map((l) => l.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replaceAll(PRE_SPACE, " ")
    .trim();
}

/** Text that is already plain (an RSS element's text) on one line. */
export function oneLine(value: unknown): string {
  return typeof value === "string" ? value.replace(/\s+/g, " ").trim() : "";
}

/** The text of a one-line field given as HTML (a title, a company name in JSON): entities decoded, tags and extra space removed. */
export function inlineText(value: unknown): string {
  if (typeof value !== "string") return "";
  return htmlToText(value).replace(/\s+/g, " ").trim();
}

export interface DescriptionParts {
  /** The board's own text, as HTML (or plain text). */
  html: string | null | undefined;
  /** "Company: …", "Location: …" and the like, added under the text when present. */
  details?: (string | null | undefined | false)[];
  boardName: string;
  url: string;
}

/**
 * The document description: the job text, a few detail lines, and the
 * attribution every board asks for ("Source: Remote OK — <link>") as the last line.
 */
export function describeJob(parts: DescriptionParts): string {
  const body = htmlToText(parts.html);
  const details = (parts.details ?? []).filter((d): d is string => typeof d === "string" && d.trim().length > 0).join("\n");
  return [body, details, `Source: ${parts.boardName} — ${parts.url}`].filter((s) => s.length > 0).join("\n\n");
}

/** What every board knows about a job, in plain values; `boardDocument` turns it into the archive's document. */
export interface BoardJob {
  source: string;
  /** The board's own id of the job (made unique across boards by the source prefix). */
  key: string;
  url: string;
  title: string;
  /** The plain-text description, attribution line included (see describeJob). */
  description: string;
  tags?: unknown;
  /** ISO time, or null/undefined when the board gave none. */
  publishTime?: string | null;
  company?: string;
  /** ISO country of the client, when the location names exactly one. */
  country?: string | null;
  location?: string;
  contactEmail?: string;
}

/** The `web` job document of a board's job: one shape for every board. */
export function boardDocument(job: BoardJob): JobDocument {
  const doc: JobDocument = { platform: "web", source: job.source, id: `${job.source}:${job.key}`, url: job.url, title: job.title, description: job.description };
  const skills = skillsFromTags(job.source, job.tags);
  if (skills) doc.ontologySkills = skills;
  if (job.publishTime) doc.jobTile = { job: { publishTime: job.publishTime } };
  if (job.company || job.country) doc.client = { ...(job.company ? { name: job.company } : {}), ...(job.country ? { country: job.country } : {}) };
  if (job.location) doc.location = job.location;
  if (job.contactEmail) doc.contactEmail = job.contactEmail;
  return doc;
}

/** Board tags as ontology skills, `uid` namespaced by the source, de-duplicated case-insensitively. */
export function skillsFromTags(source: string, tags: unknown): OntologySkill[] | undefined {
  const list = typeof tags === "string" ? tags.split(",") : Array.isArray(tags) ? tags : [];
  const seen = new Set<string>();
  const out: OntologySkill[] = [];
  for (const tag of list) {
    const label = inlineText(tag);
    const key = label.toLowerCase();
    if (label.length === 0 || label.length > 100 || seen.has(key)) continue;
    seen.add(key);
    out.push({ uid: `${source}:${key}`, prefLabel: label });
  }
  return out.length > 0 ? out : undefined;
}

/** A mailto: link's address, for `contactEmail`. */
export function mailtoAddress(link: unknown): string | undefined {
  if (typeof link !== "string" || !/^mailto:/i.test(link.trim())) return undefined;
  const address = decodeURIComponent(link.trim().slice(7).split("?")[0]!).trim();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) ? address : undefined;
}

const US_STATES =
  "AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|DC District of Columbia|FL Florida|GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|KS Kansas|KY Kentucky|LA Louisiana|ME Maine|MD Maryland|MA Massachusetts|MI Michigan|MN Minnesota|MS Mississippi|MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|NJ New Jersey|NM New Mexico|NY New York|NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|PA Pennsylvania|RI Rhode Island|SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|VT Vermont|VA Virginia|WA Washington|WV West Virginia|WI Wisconsin|WY Wyoming";
const STATE_CODES = new Set<string>();
const STATE_NAMES = new Set<string>();
for (const entry of US_STATES.split("|")) {
  STATE_CODES.add(entry.slice(0, 2));
  STATE_NAMES.add(entry.slice(3).toLowerCase());
}
// A part naming more than one country: the location is not a single country.
const REGION = /\b(?:worldwide|anywhere|global(?:ly)?|international|europe|european|eu|emea|americas?|latam|apac|asia|africa|oceania|middle east|nordics?|timezones?|utc|gmt|cet|est|pst)\b/i;
// Words around a country that do not change which country it is.
const FILLER = /\b(?:remote|only|fully|hybrid|onsite|on-site|based|residents?|in|from|within|anywhere in)\b/gi;
const SPLIT = /[,;/|()[\]]|\s+(?:or|and|&)\s+|\s+[-–—]\s+/;
const FLAGS = /[\u{1F1E6}-\u{1F1FF}]/gu;

/**
 * The ISO-2 code when a free-text location names exactly one country
 * ("Berlin, Germany" → DE, "USA Only" → US, "Austin, TX" → US), else
 * undefined ("Worldwide", "US or Canada", "Europe", "Berlin").
 */
export function singleCountry(location: unknown): string | undefined {
  if (typeof location !== "string") return undefined;
  const parts = location.replace(FLAGS, " ").split(SPLIT).map((p) => p.trim()).filter((p) => p.length > 0);
  const found = new Set<string>();
  for (const part of parts) {
    if (REGION.test(part)) return undefined;
    const bare = part.replace(FILLER, " ").replace(/\s+/g, " ").trim();
    if (bare.length === 0) continue;
    // In "Austin, TX" the two letters are a state; alone, "CA" is Canada.
    const upper = bare.toUpperCase();
    if (parts.length > 1 && bare.length === 2 && STATE_CODES.has(upper) && upper === bare) found.add("US");
    else if (STATE_NAMES.has(bare.toLowerCase()) && bare.toLowerCase() !== "georgia") found.add("US");
    else {
      const code = normalizeCountry(bare);
      if (code !== null) found.add(code);
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}
