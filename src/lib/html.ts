/**
 * HTML → plain text, shared by captured pages and the job-board adapters: one implementation, since two copies
 * drifted apart on hostile markup. Hand-written as one forward pass so hostile input costs linear time; character
 * references are the `entities` package's (see docs/architecture.md, 'HTML to text by hand').
 */
import { decodeHTMLAttribute } from "entities";

// ---------------------------------------------------------------------------
// Character references

/**
 * Decodes character references with the `entities` package (the HTML
 * standard's full table, numeric references with the browser's Windows-1252
 * reading of &#128;–&#159;). Attribute-value rules, on purpose: a name needs
 * its ";" unless it is one of the legacy names browsers read bare, and even
 * those stay as written before a letter, digit or "=", so "AT&T",
 * "?a=1&copy=2" and "&ampx" survive while sloppy "Q&amp A" still decodes.
 * Unknown names stay as written ("&bogus;").
 */
export function decodeEntities(text: string): string {
  return text.includes("&") ? decodeHTMLAttribute(text) : text;
}

// ---------------------------------------------------------------------------
// Plain-text tidying

const SPACES = /[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g;

/** Trims each line, collapses runs of spaces, and keeps at most one blank line between paragraphs. */
export function tidy(text: string): string {
  return tidyLines(text, (line) => line.replace(SPACES, " ").trim());
}

function tidyLines(text: string, cleanLine: (line: string) => string): string {
  const kept: string[] = [];
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = cleanLine(raw);
    if (line === "" && (kept.length === 0 || kept[kept.length - 1] === "")) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  return kept.join("\n");
}

// ---------------------------------------------------------------------------
// HTML → text

/** Elements whose content is never text: dropped with everything inside. */
const DROPPED = new Set(["script", "style", "noscript", "template", "head", "title", "iframe", "object", "svg", "math", "select", "textarea"]);
/** Elements that start a paragraph (blank line) or a line. */
const PARAGRAPH = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "table",
  "blockquote",
  "pre",
  "section",
  "article",
  "header",
  "footer",
  "aside",
  "nav",
  "figure",
  "hr",
  "form",
  "fieldset",
  "address",
  "details",
]);
const LINE = new Set(["div", "li", "tr", "dt", "dd", "summary", "caption", "figcaption", "main", "center"]);
const CELL = new Set(["td", "th"]);
/**
 * Opening tags that show the field really is HTML. Without any of them the
 * source's own newlines are kept, since several boards send plain text in
 * their "HTML" field and would otherwise lose every line break.
 */
const BLOCK_MARKUP = new Set(["p", "br", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "tr", "pre", "blockquote"]);

// Placeholders in the text being built, resolved once the whole input is known. Each is a
// control character no readable text needs; any that arrive in the input are removed first
// so a page cannot forge a paragraph break or a kept space.
const LINE_MARK = "\u0001";
const PARAGRAPH_MARK = "\u0002";
/** A space inside <pre>: not collapsed and not trimmed away with the others. */
const PRE_SPACE = "\u0003";
/** A newline of the source text, kept or turned into a space depending on whether the input is block HTML. */
const SOURCE_NEWLINE = "\u0004";
const PLACEHOLDERS = /[\u0001-\u0004]/g;
const HAS_PLACEHOLDER = /[\u0001-\u0004]/;
const BETWEEN_PLACEHOLDERS = /[^\u0001-\u0004]+/g;
// A run of block boundaries and the space around them: "</li><li>" is one line break, not two.
const BREAKS = /[ \t\n]*(?:[\u0001\u0002][ \t\n]*)+/g;

const TAG_NAME = /^\/?([a-zA-Z][a-zA-Z0-9:-]*)/;
const CLOSE_TAG = new Map([...DROPPED].map((name) => [name, new RegExp(`</${name}[\\s/>]`, "gi")]));
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
/** Longer link targets are not worth showing to a reader, and bound the cost of comparing them with the link text. */
const MAX_TARGET = 2048;

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

/** The decoded href of an opening <a> tag, "" when it has none. */
function hrefOf(tag: string): string {
  const h = HREF.exec(tag);
  return decodeEntities((h?.[1] ?? h?.[2] ?? h?.[3] ?? "").trim()).replace(PLACEHOLDERS, "");
}

/**
 * What to add after a link's text so the reader still sees where it points:
 * " (jobs@x.io)" for a mailto, " (https://…)" for a URL hidden behind "apply
 * here"; nothing when the text already shows the target or it is not a web or
 * mail link (a relative path means nothing once out of the page).
 */
function linkSuffix(href: string, text: string): string {
  if (href.length > MAX_TARGET || !/^(?:https?:\/\/|mailto:)/i.test(href)) return "";
  const target = href.replace(/^mailto:/i, "").split("?")[0]!;
  if (target.length === 0 || text.includes(target)) return "";
  // Text shortened by the page ("https://x.io/lo...") still counts as showing the target only when it names all of it.
  const shown = text.endsWith("...") ? text.slice(0, -3) : text.endsWith("…") ? text.slice(0, -1) : text;
  return shown.includes(target.replace(/^https?:\/\//i, "")) ? "" : ` (${target})`;
}

/**
 * Removes the indentation every line of a <pre> block shares. Preformatted
 * text is often indented to line up with the surrounding markup; the relative
 * indentation is what carries meaning, so that is what we keep.
 */
function dedent(block: string): string {
  let common = Infinity;
  for (const m of block.matchAll(/(?:^|[\n\u0001\u0002])(\u0003*)(?=[^\n\u0001\u0002\u0003])/g)) common = Math.min(common, m[1]!.length);
  if (common === 0 || common === Infinity) return block;
  return block.replace(new RegExp(`(^|[\\n\\u0001\\u0002])\\u0003{${common}}`, "g"), "$1");
}

/**
 * Readable text from an HTML fragment (or from plain text sent as HTML):
 * scripts, styles, comments and other non-text elements removed with their
 * content, tags dropped, entities decoded after the tags are gone (so "&lt;b&gt;"
 * stays text), blocks and <br> turned into line breaks, paragraphs separated by
 * one blank line, list items as "- ", <pre> spacing kept, and link targets kept
 * after the link text when they add something.
 */
export function htmlToText(html: string | null | undefined): string {
  if (typeof html !== "string" || html.length === 0) return "";
  const out: string[] = [];
  let pre = 0;
  /** Where the outermost open <pre> block's text starts in `out`. */
  let preStart = 0;
  let sawBlockMarkup = false;
  let link: { href: string; start: number } | null = null;

  const text = (raw: string) => {
    if (raw === "") return;
    let t = HAS_PLACEHOLDER.test(raw) ? raw.replace(PLACEHOLDERS, "") : raw;
    if (pre > 0) t = t.replace(/\r\n?/g, "\n").replace(/[ \t]/g, PRE_SPACE);
    // Whether the input is plain text is only known at the end, so source newlines stay marked until then.
    else
      t = t.replace(/\s+/g, (run) =>
        /[\n\r]/.test(run)
          ? run
              .replace(/\r\n?/g, "\n")
              .replace(/[^\n]+/g, "")
              .replaceAll("\n", SOURCE_NEWLINE)
          : " ",
      );
    // A decoded "&#2;" must not turn into one of our placeholders: decode the runs between ours, drop any it made.
    out.push(t.includes("&") ? t.replace(BETWEEN_PLACEHOLDERS, (run) => decodeEntities(run).replace(PLACEHOLDERS, "")) : t);
  };
  // The whole <pre> block is known only at its close: dedent it then, once, so nested or repeated <pre> stays linear.
  const closePre = () => {
    const block = dedent(out.slice(preStart).join(""));
    out.length = preStart;
    out.push(block);
    if (link !== null && link.start > preStart) link.start = preStart;
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
      // An unclosed comment hides the rest of the input, as in a browser.
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
    if (!closing && BLOCK_MARKUP.has(name)) sawBlockMarkup = true;
    if (name === "a") {
      if (!closing) link = { href: hrefOf(html.slice(lt, end)), start: out.length };
      else if (link !== null) {
        out.push(linkSuffix(link.href, out.slice(link.start).join("")));
        link = null;
      }
      continue;
    }
    if (name === "pre" && closing && pre > 0 && --pre === 0) closePre();
    if (name === "br") out.push("\n");
    else if (PARAGRAPH.has(name)) out.push(PARAGRAPH_MARK);
    else if (LINE.has(name)) out.push(LINE_MARK);
    else if (CELL.has(name)) out.push(" ");
    if (name === "li" && !closing) out.push("- ");
    if (name === "pre" && !closing && pre++ === 0) preStart = out.length;
  }
  if (pre > 0) closePre();

  const joined = out.join("").replaceAll(SOURCE_NEWLINE, sawBlockMarkup ? " " : "\n");
  const broken = joined.replace(BREAKS, (run) => (run.includes(PARAGRAPH_MARK) || run.includes("\n\n") ? "\n\n" : "\n"));
  // Soft hyphens only mark where a word may break; left in, "devel&shy;oper" would not match "developer".
  return tidyLines(broken.replaceAll("\u00ad", ""), (raw) => {
    const line = raw.replace(SPACES, " ").trim();
    // <pre> spaces survive the collapsing and trimming above; only those ending a line go.
    return line.includes(PRE_SPACE) ? line.replaceAll(PRE_SPACE, " ").trimEnd() : line;
  });
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Text into HTML text or a quoted attribute value: & < > " ' are the whole rule for those two places
 * (the only ones our pages interpolate into), and five fixed replacements are easier to audit than a
 * dependency's options — so this direction stays hand-written while decoding uses `entities`.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
