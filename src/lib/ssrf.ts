import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Outgoing requests to user-supplied URLs (webhooks) without SSRF: resolve the host once, refuse unless every
 * address is globally routable (or explicitly allowed), then connect to the checked address itself, keeping the
 * name for the Host header and TLS. Address reading and the block table are hand-written so the guard reads an
 * address as fetch does (see docs/architecture.md, 'Outgoing requests without SSRF').
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

const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

// checkUrl has no caller-given deadline; a resolver that never answers must not hold an API request forever.
const SAVE_RESOLVE_TIMEOUT_MS = 5_000;

// ---------------------------------------------------------------------------
// Parsing. Text is read the way fetch reads a URL host, then ipaddr.js holds it
// as numbers and compares it bitwise, so no textual form (compressed, mixed,
// upper case, odd IPv4 notations) can dodge a range.

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

function parseDottedQuad(text: string): ipaddr.IPv4 | null {
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
}

/**
 * IPv4 as the WHATWG URL parser (and inet_aton) reads it: "0x7f.1", "2130706433",
 * "017700000001" and "127.1" all mean 127.0.0.1. Reading them the same way fetch
 * would is what keeps them from slipping through as "not an address".
 */
function parseIPv4(text: string): ipaddr.IPv4 | null {
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

/**
 * IPv6 as RFC 4291 writes it. ipaddr.js alone is lenient in ways fetch is not: it reads "::1.2.3.4" as
 * IPv4-mapped (fetch: ::102:304), accepts octal and hex pieces in a trailing IPv4 and keeps zone ids. So the
 * trailing IPv4, if any, must be a strict dotted quad and is respelled as two hex groups, and ipaddr.js only
 * ever sees hex groups and colons. (Not the URL parser as for IPv4: Bun's refuses some valid mixed forms.)
 */
function parseIPv6(text: string): ipaddr.IPv6 | null {
  let hex = text;
  const tail = /:([^:]*\.[^:]*)$/.exec(text);
  if (tail) {
    const v4 = parseDottedQuad(tail[1]!);
    if (!v4) return null;
    const [a, b, c, d] = v4.octets as [number, number, number, number];
    hex = `${text.slice(0, tail.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  if (!/^[0-9a-fA-F:]+$/.test(hex)) return null; // zone ids ("%eth0") name an interface, not a destination; refuse them
  try {
    return ipaddr.IPv6.parse(hex);
  } catch {
    return null;
  }
}

function parseIp(text: string): Ip | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return bare.includes(":") ? parseIPv6(bare) : parseIPv4(bare);
}

const MAPPED_PREFIX = ipaddr.parseCIDR("::ffff:0:0/96");

/** ::ffff:a.b.c.d is the IPv4 host a.b.c.d; everything about it (class, allowlist, where we connect) uses the IPv4. */
function canonical(ip: Ip): Ip {
  return ip instanceof ipaddr.IPv6 && ip.match(MAPPED_PREFIX) ? ip.toIPv4Address() : ip;
}

type Cidr = [Ip, number];

function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return null;
  const max = ip.kind() === "ipv4" ? 32 : 128;
  const bitsText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > max) return null;
  return [ip, Number(bitsText)];
}

function inCidr(ip: Ip, [network, bits]: Cidr): boolean {
  return ip.kind() === network.kind() && ip.match(network, bits);
}

// ---------------------------------------------------------------------------
// Classification (IANA IPv4 and IPv6 special-purpose address registries).
// ipaddr.subnetMatch answers the first name whose blocks hold the address, so
// more specific blocks come first. Its own range() is too coarse for a guard:
// documentation, benchmarking and 6to4 relay are all "reserved" there, and any
// IPv6 address it does not know is "unicast" where only 2000::/3 is.

const GLOBAL = "global";
const blocks = (...cidrs: string[]) => cidrs.map((cidr) => ipaddr.parseCIDR(cidr));

const IPV4_SPECIAL: Record<string, Cidr[]> = {
  "limited broadcast": blocks("255.255.255.255/32"),
  "this network (0.0.0.0/8)": blocks("0.0.0.0/8"),
  "private (RFC 1918)": blocks("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
  "shared address space (CGNAT)": blocks("100.64.0.0/10"),
  loopback: blocks("127.0.0.0/8"),
  "link-local": blocks("169.254.0.0/16"),
  "IETF protocol assignments": blocks("192.0.0.0/24"),
  "documentation (TEST-NET-1)": blocks("192.0.2.0/24"),
  "6to4 relay anycast (deprecated)": blocks("192.88.99.0/24"),
  benchmarking: blocks("198.18.0.0/15"),
  "documentation (TEST-NET-2)": blocks("198.51.100.0/24"),
  "documentation (TEST-NET-3)": blocks("203.0.113.0/24"),
  multicast: blocks("224.0.0.0/4"),
  reserved: blocks("240.0.0.0/4"),
};

// Blocks that carry an IPv4 address inside: judged by that address. (IPv4-mapped is handled by canonical().)
const IPV6_EMBEDDING = [
  { cidr: ipaddr.parseCIDR("64:ff9b::/96"), name: "NAT64", at: 12 },
  { cidr: ipaddr.parseCIDR("2002::/16"), name: "6to4", at: 2 },
];

const IPV6_SPECIAL: Record<string, Cidr[]> = {
  unspecified: blocks("::/128"),
  loopback: blocks("::1/128"),
  "NAT64 local-use": blocks("64:ff9b:1::/48"),
  "discard-only": blocks("100::/64"),
  TEREDO: blocks("2001::/32"),
  "IETF protocol assignments": blocks("2001::/23"),
  documentation: blocks("2001:db8::/32", "3fff::/20"),
  "SRv6 SIDs": blocks("5f00::/16"),
  "unique local": blocks("fc00::/7"),
  "site-local (deprecated)": blocks("fec0::/10"),
  "link-local": blocks("fe80::/10"),
  multicast: blocks("ff00::/8"),
  // Only 2000::/3 is allocated for global unicast; anything else unnamed above is reserved space.
  [GLOBAL]: blocks("2000::/3"),
};

function classify(ip: Ip): { global: boolean; range?: string } {
  if (ip.kind() === "ipv4") {
    const range = ipaddr.subnetMatch(ip, IPV4_SPECIAL, GLOBAL);
    return range === GLOBAL ? { global: true } : { global: false, range };
  }
  for (const embedding of IPV6_EMBEDDING) {
    if (!inCidr(ip, embedding.cidr)) continue;
    const inner = classify(ipaddr.fromByteArray(ip.toByteArray().slice(embedding.at, embedding.at + 4)));
    return inner.global ? { global: true, range: embedding.name } : { global: false, range: `${inner.range} (inside ${embedding.name})` };
  }
  const range = ipaddr.subnetMatch(ip, IPV6_SPECIAL, "reserved");
  return range === GLOBAL ? { global: true } : { global: false, range };
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
function canonicalCidr([network, bits]: Cidr): Cidr {
  return bits >= 96 && inCidr(network, MAPPED_PREFIX) ? [canonical(network), bits - 96] : [network, bits];
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
export async function checkUrl(url: string, policy: EgressPolicy, resolve: Resolver = systemResolver): Promise<{ ok: true } | { ok: false; reason: string }> {
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
 * The checked address to connect to for a user-chosen host reached by another protocol than http (an SMTP
 * server): the host is read as a URL host is (so "0x7f.1" is 127.0.0.1), resolved once and every address
 * checked exactly as for safeFetch; the caller connects to the address returned (IPv6 without brackets) and
 * keeps the name for TLS. Throws as safeFetch does: EgressBlockedError when refused, a plain Error when the
 * name does not resolve, the signal's TimeoutError after timeoutMs.
 */
export async function resolvePinned(hostname: string, policy: EgressPolicy, timeoutMs: number, resolve: Resolver = systemResolver): Promise<string> {
  const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  if (/[/?#@\\\s]/.test(host)) throw new EgressBlockedError(`"${hostname}" is not a host name`);
  const target = await resolveTarget(`http://${host}/`, policy, resolve, AbortSignal.timeout(timeoutMs));
  if (!target.ok) throw target.transient ? new Error(target.reason) : new EgressBlockedError(target.reason);
  return target.address.toString();
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
  pinned.hostname = address.kind() === "ipv6" ? `[${address.toString()}]` : address.toString();
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
