/**
 * A link that came from outside (a job's url) ends up as an href, in the
 * dashboard and in API clients' pages, so only an absolute http or https URL
 * counts as one: javascript:, data:, file:, protocol-relative and relative
 * links never do. Parsed the way a browser parses an href (tabs and newlines
 * inside the scheme are ignored, case does not matter).
 */
export type WebUrlCheck = { url: string } | { problem: string };

export function checkWebUrl(text: string): WebUrlCheck {
  const trimmed = text.trim();
  const parsed = URL.parse(trimmed);
  if (parsed === null) return { problem: "only http and https links are kept (got a relative or malformed link)" };
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { problem: `only http and https links are kept (got a ${parsed.protocol} link)` };
  return { url: trimmed };
}

/** The link when it is an absolute http or https URL, else null. */
export function webUrl(text: string | null | undefined): string | null {
  if (typeof text !== "string") return null;
  const checked = checkWebUrl(text);
  return "url" in checked ? checked.url : null;
}
