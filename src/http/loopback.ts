import ipaddr from "ipaddr.js";

/**
 * Headers a reverse proxy adds to say whom it forwards for. A proxy on the same machine (Caddy, nginx)
 * connects from loopback, so the peer address alone would make every request it forwards look local.
 */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip", "x-forwarded-host", "cf-connecting-ip", "true-client-ip"];

/**
 * Whether a request comes straight from this machine: the TCP peer (Bun's `server.requestIP`; unknown when
 * the app is called without a server, as in tests) is a loopback address, and no proxy header says it
 * was forwarded for someone else. A proxy that forwards without any of these headers is indistinguishable
 * from a local client: routes that trust loopback must be kept off such a proxy (or use a token).
 */
export function isDirectLoopback(peerAddress: string | undefined, headers: Headers): boolean {
  if (!peerAddress) return false;
  for (const name of FORWARDING_HEADERS) if (headers.has(name)) return false;
  try {
    return ipaddr.process(peerAddress).range() === "loopback";
  } catch {
    return false;
  }
}

/**
 * The client a sign-in limit counts: the TCP peer, or, when the peer is a proxy on this machine (loopback) that
 * says whom it forwards for, the first address of X-Forwarded-For (or X-Real-IP). Only a local proxy is believed:
 * a remote client could write any header, and behind a local proxy every visitor would otherwise share its address
 * (five failures by anyone would lock everyone out).
 */
export function clientAddressOf(peerAddress: string | undefined, headers: Headers): string {
  if (!peerAddress) return "unknown";
  let loopback = false;
  try {
    loopback = ipaddr.process(peerAddress).range() === "loopback";
  } catch {
    return peerAddress;
  }
  if (!loopback) return peerAddress;
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim() || headers.get("x-real-ip")?.trim();
  return forwarded && ipaddr.isValid(forwarded) ? ipaddr.process(forwarded).toString() : peerAddress;
}
