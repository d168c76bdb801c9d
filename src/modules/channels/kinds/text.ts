/**
 * The text every kind's message is made of: cutting untrusted text to a
 * platform's limit at a sentence (fitText), the labelled facts of an alert
 * (factLines), and a digest as one text within a limit (listDigest). Each
 * kind escapes for its own format through the `escapeFor` it passes.
 */
import type { AlertFacts } from "../format";
import type { DigestContext, DigestItem } from "../render";

const CUT_MARK = " …";

/** Line breaks and runs of spaces to single spaces: titles, reasons and skills stay on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * `text` in at most `max` characters: whole when it fits, else cut after the last sentence that fits (a
 * ".", "!", "?" or "…" before a space, or a line break) and ended with " …". When no sentence ends in the
 * second half of the room, it is cut after a word instead, and failing that anywhere (never inside a
 * surrogate pair).
 */
export function cutAtSentence(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= CUT_MARK.length) return "";
  const room = text.slice(0, max - CUT_MARK.length);
  const floor = Math.floor(room.length / 2);
  let end = -1;
  for (const m of room.matchAll(/[.!?…](?=[\s"')\]]|$)["')\]]*|\n/g)) {
    const at = m.index + m[0].length;
    // A sentence that ends exactly where the room ends only counts if the text really breaks there.
    if (at === room.length && !/\s/.test(text.charAt(at))) continue;
    end = at;
  }
  if (end < floor) {
    end = room.lastIndexOf(" ") > floor ? room.lastIndexOf(" ") : room.length;
    const last = text.charCodeAt(end - 1);
    if (end === room.length && last >= 0xd800 && last <= 0xdbff) end--;
  }
  return text.slice(0, end).trimEnd() + CUT_MARK;
}

/**
 * `text` cut at a sentence so that, once escaped for the platform, it measures at most `max` (characters by
 * default, or e.g. UTF-8 bytes). Escaping only ever lengthens text, so the first cut is the raw text at
 * `max`, and each further one shrinks in proportion to the overshoot: a few rounds at most.
 */
export function fitText(text: string, max: number, escapeFor: (s: string) => string = (s) => s, measure: (s: string) => number = (s) => s.length): string {
  let budget = Math.min(text.length, max);
  for (;;) {
    const out = escapeFor(cutAtSentence(text, budget));
    const size = measure(out);
    if (size <= max || budget <= 0) return size <= max ? out : "";
    budget = Math.min(budget - 1, Math.floor((budget * max) / size));
  }
}

const encoder = new TextEncoder();
export const utf8Bytes = (s: string): number => encoder.encode(s).length;

// ---------------------------------------------------------------------------
// Alert and digest text

/**
 * Fields shown before the description, bounded so they always leave it room; MAX_LINE, escaped, also stays
 * within a Slack field (2,000) and a Discord field value (1,024).
 */
export const MAX_TITLE = 300;
export const MAX_REASON = 600;
export const MAX_LINE = 400;

const jobsCount = (n: number) => (n === 1 ? "1 new job" : `${n} new jobs`);

/**
 * A digest's heading: how many jobs, and the feed they matched ("3 new jobs — React contracts"), since one chat
 * or channel may take the digests of several feeds. A digest is of one feed, so its first job names it.
 */
export function digestTitle(total: number, items: DigestItem[]): string {
  const feed = items[0]?.facts.feedTitle ?? "";
  return feed === "" ? jobsCount(total) : `${jobsCount(total)} — ${feed}`;
}

/** The labelled facts shown under the title, in order; `escapeFor` is the format's escaping. */
export function factLines(f: AlertFacts, escapeFor: (s: string) => string): [label: string, value: string][] {
  const lines: [string, string][] = [];
  lines.push(["Match", f.reason === null ? f.score : `${f.score} — ${fitText(f.reason, MAX_REASON, escapeFor)}`]);
  // A signal's words read "Kind: why"; the kind is the label: "⚠ Scam risk: asks to talk off the platform".
  for (const flag of f.flags) {
    const at = flag.indexOf(": ");
    lines.push(at > 0 ? [`⚠ ${escapeFor(flag.slice(0, at))}`, fitText(flag.slice(at + 2), MAX_LINE, escapeFor)] : ["⚠", fitText(flag, MAX_LINE, escapeFor)]);
  }
  if (f.budget !== null) lines.push(["Budget", escapeFor(f.budget)]);
  if (f.value !== null) lines.push(["Value", escapeFor(f.value)]);
  if (f.client !== null) lines.push(["Client", escapeFor(f.client)]);
  if (f.clientScore !== null) lines.push(["Client score", escapeFor(f.clientScore)]);
  if (f.posted !== null) lines.push(["Posted", f.posted]);
  if (f.skills.length > 0) lines.push(["Skills", fitText(f.skills.join(", "), MAX_LINE, escapeFor)]);
  lines.push(["Feed", fitText(f.feedTitle, MAX_LINE, escapeFor)]);
  return lines;
}

/**
 * A digest as one text: heading, as many items as fit within `limit` (measured by `measure`), and "and K
 * more" for the rest. Shared by the text-shaped formats (Telegram, Discord's description, ntfy).
 */
export function listDigest<M>(
  items: DigestItem[],
  ctx: DigestContext,
  limit: number,
  measure: (text: string) => number,
  parts: { heading: (total: number) => string; item: (item: DigestItem) => string; more: (k: number) => string; separator: string; done: (text: string) => M },
): M {
  const total = items.length + ctx.more;
  const heading = parts.heading(total);
  // Room for the longest "and K more" line whatever K ends up being.
  const reserve = measure(parts.more(total)) + measure(parts.separator);
  const kept: string[] = [];
  let used = measure(heading);
  for (const item of items) {
    const text = parts.item(item);
    const size = measure(parts.separator) + measure(text);
    if (used + size + reserve > limit) break;
    kept.push(text);
    used += size;
  }
  const more = total - kept.length;
  return parts.done([heading, ...kept, ...(more > 0 ? [parts.more(more)] : [])].join(parts.separator));
}
