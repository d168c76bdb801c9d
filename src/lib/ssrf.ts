import { lookup } from "node:dns/promises";

/**
 * Outgoing requests to user-supplied URLs (webhooks) without SSRF.
 *
 * The rule: resolve the host once, refuse unless every address is globally
 * routable (or explicitly allowed), then connect to the checked address itself.
 * Bun's fetch has no connect-time hook (no Agent / lookup option), so instead of
 * checking inside the connector we rewrite the URL to the pinned IP and keep the
 * original name where it matters: the Host header, and for https `tls.serverName`
 * (SNI and certificate check). Bun 1.4.5 verifies the certificate against
 * `tls.serverName` and never against the Host header (oven-sh/bun#35886);
 * tests/lib/ssrf.test.ts checks both.
 */

export interface EgressPolicy {
  /** JOBPILOT_WEBHOOK_ALLOW_PRIVATE=true: any address is allowed (self-hosters pointing at a local automation server). */
  allowPrivate: boolean;
  /** Hostnames ("hooks.internal", "*.lan") and CIDRs ("10.0.0.0/8", "fd00::/8", "127.0.0.1/32") allowed even when private. */
  allowlist: string[];
  /** Appended to every refusal of a non-public address: how to allow one (the caller names its own settings). */
  privateHint?: string;
}

/** Every A and AAAA address of a hostname. */
export type Resolver = (hostname: string) => Promise<string[]>;

export class EgressBlockedError extends Error {
  override name = "EgressBlockedError";
}

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

// checkUrl has no caller-given deadline; a resolver that never answers must not hold an API request forever.
const SAVE_RESOLVE_TIMEOUT_MS = 5_000;

// ---------------------------------------------------------------------------
// Parsing. Everything is compared as bytes, never as strings, so no textual
// form (compressed, mixed, upper case, odd IPv4 notations) can dodge a range.

type Ip = { version: 4 | 6; bytes: Uint8Array }; // 4 or 16 bytes

const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

function parseDottedQuad(text: string): Uint8Array | null {
  const m = DOTTED_QUAD.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((n) => n <= 255) ? Uint8Array.from(parts) : null;
}

/**
 * IPv4 as the WHATWG URL parser (and inet_aton) reads it: "0x7f.1", "2130706433",
 * "017700000001" and "127.1" all mean 127.0.0.1. Reading them the same way fetch
 * would is what keeps them from slipping through as "not an address".
 */
function parseIPv4(text: string): Uint8Array | null {
  const strict = parseDottedQuad(text);
  if (strict) return strict;
  if (!/^[0-9a-fA-Fx.]+$/.test(text)) return null; // keeps "@", "/", ":" away from the URL parser
  let hostname: string;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  return parseDottedQuad(hostname);
}

function parseIPv6(text: string): Uint8Array | null {
  if (text.includes("%")) return null; // zone ids name an interface, not a destination; refuse them
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups: number[][] = [];
  for (let h = 0; h < halves.length; h++) {
    const out: number[] = [];
    const pieces = halves[h] === "" ? [] : halves[h]!.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (piece.includes(".")) {
        // Mixed notation ("::ffff:127.0.0.1"): only as the very last piece.
        const isLast = h === halves.length - 1 && i === pieces.length - 1;
        const v4 = isLast ? parseDottedQuad(piece) : null;
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    groups.push(out);
  }
  let words: number[];
  if (groups.length === 1) {
    words = groups[0]!;
    if (words.length !== 8) return null;
  } else {
    const [head, tail] = groups as [number[], number[]];
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  }
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function parseIp(text: string): Ip | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.includes(":")) {
    const bytes = parseIPv6(bare);
    return bytes && { version: 6, bytes };
  }
  const bytes = parseIPv4(bare);
  return bytes && { version: 4, bytes };
}

/** ::ffff:a.b.c.d is the IPv4 host a.b.c.d; everything about it (class, allowlist, where we connect) uses the IPv4. */
function canonical(ip: Ip): Ip {
  if (ip.version === 6 && startsWith(ip.bytes, MAPPED_PREFIX, 96)) return { version: 4, bytes: ip.bytes.slice(12) };
  return ip;
}

function format(ip: Ip): string {
  if (ip.version === 4) return ip.bytes.join(".");
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  return words.join(":");
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i / 8]! & mask) !== (prefix[i / 8]! & mask)) return false;
  }
  return true;
}

type Cidr = { ip: Ip; bits: number };

function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return null;
  const max = ip.version === 4 ? 32 : 128;
  const bitsText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return null;
  return { ip, bits: Number(bitsText) };
}

function inCidr(ip: Ip, cidr: Cidr): boolean {
  return ip.version === cidr.ip.version && startsWith(ip.bytes, cidr.ip.bytes, cidr.bits);
}

// ---------------------------------------------------------------------------
// Classification (IANA IPv4 and IPv6 special-purpose address registries).
// Lists are searched in order, so more specific blocks come first.

const MAPPED_PREFIX = parseIPv6("::ffff:0:0")!;

const block = (cidr: string, range: string) => ({ cidr: parseCidr(cidr)!, range });
const IPV4_SPECIAL = [
  block("255.255.255.255/32", "limited broadcast"),
  block("0.0.0.0/8", "this network (0.0.0.0/8)"),
  block("10.0.0.0/8", "private (RFC 1918)"),
  block("100.64.0.0/10", "shared address space (CGNAT)"),
  block("127.0.0.0/8", "loopback"),
  block("169.254.0.0/16", "link-local"),
  block("172.16.0.0/12", "private (RFC 1918)"),
  block("192.0.0.0/24", "IETF protocol assignments"),
  block("192.0.2.0/24", "documentation (TEST-NET-1)"),
  block("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
  block("192.168.0.0/16", "private (RFC 1918)"),
  block("198.18.0.0/15", "benchmarking"),
  block("198.51.100.0/24", "documentation (TEST-NET-2)"),
  block("203.0.113.0/24", "documentation (TEST-NET-3)"),
  block("224.0.0.0/4", "multicast"),
  block("240.0.0.0/4", "reserved"),
];

// Blocks that carry an IPv4 address inside: judged by that address. (IPv4-mapped is handled by canonical().)
const IPV6_EMBEDDING = [
  { cidr: parseCidr("64:ff9b::/96")!, name: "NAT64", at: 12 },
  { cidr: parseCidr("2002::/16")!, name: "6to4", at: 2 },
];

const IPV6_SPECIAL = [
  block("::/128", "unspecified"),
  block("::1/128", "loopback"),
  block("64:ff9b:1::/48", "NAT64 local-use"),
  block("100::/64", "discard-only"),
  block("2001::/32", "TEREDO"),
  block("2001::/23", "IETF protocol assignments"),
  block("2001:db8::/32", "documentation"),
  block("3fff::/20", "documentation"),
  block("5f00::/16", "SRv6 SIDs"),
  block("fc00::/7", "unique local"),
  block("fec0::/10", "site-local (deprecated)"),
  block("fe80::/10", "link-local"),
  block("ff00::/8", "multicast"),
];
// Only 2000::/3 is allocated for global unicast; anything else unnamed above is reserved space.
const IPV6_GLOBAL_UNICAST = parseCidr("2000::/3")!;

function classify(ip: Ip): { global: boolean; range?: string } {
  if (ip.version === 4) {
    const hit = IPV4_SPECIAL.find((entry) => inCidr(ip, entry.cidr));
    return hit ? { global: false, range: hit.range } : { global: true };
  }
  for (const embedding of IPV6_EMBEDDING) {
    if (!inCidr(ip, embedding.cidr)) continue;
    const inner = classify({ version: 4, bytes: ip.bytes.slice(embedding.at, embedding.at + 4) });
    return inner.global
      ? { global: true, range: embedding.name }
      : { global: false, range: `${inner.range} (inside ${embedding.name})` };
  }
  const hit = IPV6_SPECIAL.find((entry) => inCidr(ip, entry.cidr));
  if (hit) return { global: false, range: hit.range };
  return inCidr(ip, IPV6_GLOBAL_UNICAST) ? { global: true } : { global: false, range: "reserved" };
}

/** Whether an address is globally routable; `range` names the special-purpose block it falls in. Unparseable text is never global. */
export function classifyAddress(ip: string): { global: boolean; range?: string } {
  const parsed = parseIp(ip);
  return parsed ? classify(canonical(parsed)) : { global: false, range: "not an IP address" };
}

// ---------------------------------------------------------------------------
// Policy

/** Why an allowlist entry is unusable, or undefined when it is fine. For config validation: a bad CIDR otherwise just never matches. */
export function allowlistEntryError(entry: string): string | undefined {
  if (entry.includes("/") || entry.includes(":") || /^[\d.]+$/.test(entry)) {
    return parseCidr(entry) ? undefined : `"${entry}" is not a valid IP address or CIDR`;
  }
  return /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i.test(entry) ? undefined : `"${entry}" is not a valid hostname pattern`;
}

function isAllowlistedHost(hostname: string, allowlist: string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return allowlist.some((raw) => {
    if (allowlistEntryError(raw) || raw.includes("/") || parseIp(raw)) return false;
    const entry = raw.toLowerCase().replace(/\.$/, "");
    // "*.lan" covers every name under lan, not "lan" itself.
    return entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry;
  });
}

/** The special-purpose range that makes the address off limits under the policy, or undefined when it is allowed. */
function blockedRange(ip: Ip, policy: EgressPolicy): string | undefined {
  if (policy.allowPrivate) return undefined;
  const { global, range } = classify(ip);
  if (global) return undefined;
  for (const entry of policy.allowlist) {
    const cidr = parseCidr(entry);
    if (cidr && inCidr(ip, canonicalCidr(cidr))) return undefined;
  }
  return range;
}

// "::ffff:10.0.0.0/104" in an allowlist means 10.0.0.0/8, since addresses are canonicalised the same way.
function canonicalCidr(cidr: Cidr): Cidr {
  return cidr.ip.version === 6 && cidr.bits >= 96 && startsWith(cidr.ip.bytes, MAPPED_PREFIX, 96)
    ? { ip: canonical(cidr.ip), bits: cidr.bits - 96 }
    : cidr;
}

export function isAllowedAddress(ip: string, policy: EgressPolicy): { allowed: true } | { allowed: false; reason: string } {
  const parsed = parseIp(ip);
  if (!parsed) return { allowed: false, reason: `"${ip}" is not an IP address` };
  const range = blockedRange(canonical(parsed), policy);
  return range === undefined ? { allowed: true } : { allowed: false, reason: notPublic(`${ip} is not a public address (${range})`, policy) };
}

function notPublic(reason: string, policy: EgressPolicy): string {
  return policy.privateHint ? `${reason}; ${policy.privateHint}` : reason;
}

// ---------------------------------------------------------------------------
// URLs

type Target = { ok: true; url: URL; address: Ip } | { ok: false; reason: string; transient?: boolean };

function parseTarget(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: `${url.protocol} URLs are not allowed (http and https only)` };
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  if (!url.hostname) return { ok: false, reason: "the URL has no host" };
  return { ok: true, url };
}

/**
 * Resolves the URL's host (literal IPs without DNS; the URL parser has already
 * normalised "0x7f.1"-style hosts to dotted quads) and checks every address, so
 * a name with one public and one private answer is refused whichever a later
 * connect would pick.
 */
async function resolveTarget(raw: string, policy: EgressPolicy, resolve: Resolver, signal: AbortSignal): Promise<Target> {
  const parsed = parseTarget(raw);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const host = url.hostname;
  const literal = host.startsWith("[") ? parseIp(host) : parseDottedQuad(host) && parseIp(host);
  if (literal) {
    const address = canonical(literal);
    const range = blockedRange(address, policy);
    return range === undefined ? { ok: true, url, address } : { ok: false, reason: notPublic(`${host} is not a public address (${range})`, policy) };
  }

  let answers: string[];
  try {
    answers = await untilAborted(resolve(host), signal);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const code = (err as { code?: string }).code ?? (err as Error).message;
    return { ok: false, reason: `could not resolve ${host} (${code})`, transient: true };
  }
  if (answers.length === 0) return { ok: false, reason: `${host} resolves to no address`, transient: true };

  const trusted = isAllowlistedHost(host, policy.allowlist);
  const addresses: Ip[] = [];
  for (const answer of answers) {
    const parsedAnswer = parseIp(answer);
    if (!parsedAnswer) return { ok: false, reason: `${host} resolves to "${answer}", which is not an IP address` };
    const address = canonical(parsedAnswer);
    const range = trusted ? undefined : blockedRange(address, policy);
    if (range !== undefined) return { ok: false, reason: notPublic(`${host} resolves to ${answer}, which is not a public address (${range})`, policy) };
    addresses.push(address);
  }
  return { ok: true, url, address: addresses[0]! };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Validates a URL for saving (400 at the API): http/https only, no credentials in the URL, a host; resolves it and checks every address. */
export async function checkUrl(
  url: string,
  policy: EgressPolicy,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const signal = AbortSignal.timeout(SAVE_RESOLVE_TIMEOUT_MS);
  let target: Target;
  try {
    target = await resolveTarget(url, policy, resolve, signal);
  } catch {
    return { ok: false, reason: `resolving the host took longer than ${SAVE_RESOLVE_TIMEOUT_MS} ms` };
  }
  return target.ok ? { ok: true } : { ok: false, reason: target.reason };
}

/**
 * fetch() to a user-supplied URL without SSRF: resolve the host once, check every address, then connect to the
 * checked address itself (so a second DNS answer cannot point elsewhere: no rebinding gap), keeping the Host
 * header and, for https, the TLS server name / certificate check for the original hostname. Never follows
 * redirects (a 3xx is returned as is). Times out after timeoutMs (AbortSignal), DNS included. Throws
 * EgressBlockedError (with the reason) when the destination is not allowed; a host that does not resolve is a
 * plain Error (worth retrying later), a timeout the signal's TimeoutError.
 */
export async function safeFetch(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
  policy: EgressPolicy,
  resolve: Resolver = systemResolver,
): Promise<Response> {
  const signal = AbortSignal.timeout(init.timeoutMs);
  const target = await resolveTarget(url, policy, resolve, signal);
  if (!target.ok) throw target.transient ? new Error(target.reason) : new EgressBlockedError(target.reason);
  const { url: original, address } = target;

  const pinned = new URL(original.href);
  pinned.hostname = address.version === 6 ? `[${format(address)}]` : format(address);
  pinned.hash = "";
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers)) if (name.toLowerCase() !== "host") headers[name] = value;
  headers.host = original.host; // includes a non-default port, as any client would send it

  const isNameHost = !original.hostname.startsWith("[") && !parseDottedQuad(original.hostname);
  return fetch(pinned, {
    method: init.method,
    headers,
    body: init.body,
    redirect: "manual",
    signal,
    // SNI + certificate identity for the name the user gave; an IP-literal URL is verified against its IP as usual.
    tls: original.protocol === "https:" && isNameHost ? { serverName: original.hostname.replace(/\.$/, "") } : undefined,
  });
}
