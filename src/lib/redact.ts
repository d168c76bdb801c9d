/**
 * A request path (with or without its query string) as it may be written to a
 * log: secrets that travel in URLs are replaced by "[redacted]". Logs are
 * copied to places the secrets must never go (shippers, tickets, screenshots),
 * and a one-time sign-in link is as good as a password until it is used.
 *
 * Nothing here knows the routes: a segment is a secret when it follows a word
 * that announces one (`/link/…`, `/pair/…`), or when it looks like one (32 or
 * more URL-safe characters, as API keys, sign-in tokens and hashes are; UUIDs
 * are ids, not secrets, and are kept). Query values are secrets by their name.
 */
const REDACTED = "[redacted]";
const SECRET_AFTER = new Set(["link", "pair", "pairing", "token"]);
const TOKEN_SHAPED = /^[A-Za-z0-9_-]{32,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SECRET_PARAM = /token|secret|passw|api[-_]?key|^key$|^code$|^state$|^sig$|signature|session/i;

function redactSegment(segment: string, previous: string | undefined): string {
  if (segment === "") return segment;
  if (previous !== undefined && SECRET_AFTER.has(previous.toLowerCase())) return REDACTED;
  return TOKEN_SHAPED.test(segment) && !UUID.test(segment) ? REDACTED : segment;
}

function redactParam(pair: string): string {
  const eq = pair.indexOf("=");
  if (eq < 0) return pair;
  const name = pair.slice(0, eq);
  return SECRET_PARAM.test(name) ? `${name}=${REDACTED}` : `${name}=${redactSegment(pair.slice(eq + 1), undefined)}`;
}

export function redactPath(path: string): string {
  const q = path.indexOf("?");
  const segments = (q < 0 ? path : path.slice(0, q)).split("/");
  const out = segments.map((s, i) => redactSegment(s, segments[i - 1])).join("/");
  return q < 0
    ? out
    : `${out}?${path
        .slice(q + 1)
        .split("&")
        .map(redactParam)
        .join("&")}`;
}
