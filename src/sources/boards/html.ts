/**
 * Text helpers for the public job-board adapters: the pieces every board
 * document shares (description with its attribution line, skills from tags)
 * and "is this location a single country?". HTML → plain text itself lives in
 * src/lib/html.ts, shared with captured pages.
 */
import { normalizeCountry } from "../../lib/countries";
import { htmlToText } from "../../lib/html";
import type { JobDocument, OntologySkill } from "../document";

// The HTML converter is shared with captured pages (src/lib/html.ts); re-exported so the
// adapters keep importing every text helper from this one module.
export { decodeEntities, htmlToText } from "../../lib/html";

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
  const doc: JobDocument = {
    platform: "web",
    source: job.source,
    id: `${job.source}:${job.key}`,
    url: job.url,
    title: job.title,
    description: job.description,
  };
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
const REGION =
  /\b(?:worldwide|anywhere|global(?:ly)?|international|europe|european|eu|emea|americas?|latam|apac|asia|africa|oceania|middle east|nordics?|timezones?|utc|gmt|cet|est|pst)\b/i;
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
  const parts = location
    .replace(FLAGS, " ")
    .split(SPLIT)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
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
