/**
 * Reading what the person pasted on the options page, and the host access a paired server needs. Pure functions,
 * so the server's tests can check them against what the dashboard gives (src/modules/companion/model.ts pairingText).
 */
import { SANDBOX_PREFIX } from "./adapter";

/** Hosts the manifest already lists for the sandbox website (every port): no permission to ask for. */
export const BUILT_IN_HOSTS: readonly string[] = ["localhost", "127.0.0.1"];

export type PairingInput = { server: string; code: string } | { error: string; field: "server" | "code" };

/**
 * The server's origin and the code from the two fields. The dashboard's pairing line is `CODE@ORIGIN`: pasted into
 * the code field it fills both, and its address wins over the server field (the line is what the server said it is).
 */
export function readPairingInput(serverField: string, codeField: string): PairingInput {
  const pasted = codeField.trim();
  const at = pasted.indexOf("@");
  const code = (at === -1 ? pasted : pasted.slice(0, at)).trim();
  const address = (at === -1 ? serverField : pasted.slice(at + 1)).trim();
  if (code === "") return { error: "Paste the pairing line (or the code) from the dashboard's Browser companion page.", field: "code" };
  if (address === "") return { error: "Enter the jobpilot server address, or paste the whole pairing line from the dashboard.", field: "server" };
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { error: `"${address}" is not a web address: it looks like http://203.0.113.5:3000 or https://jobs.example.com.`, field: "server" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { error: "The server address must start with http:// or https://.", field: "server" };
  return { server: url.origin, code };
}

/**
 * The host permission a paired server needs so the companion can read the sandbox website it serves (the API
 * itself answers CORS): every port of its host, as the manifest's own sandbox patterns are. Null for the hosts the
 * manifest already lists.
 */
export function hostPermissionFor(server: string): string | null {
  const url = new URL(server);
  return BUILT_IN_HOSTS.includes(url.hostname) ? null : `${url.protocol}//${url.hostname}/*`;
}

/** Where the content script runs on a paired server: its sandbox website (any port, like the manifest's patterns). */
export function sandboxMatchFor(server: string): string {
  const url = new URL(server);
  return `${url.protocol}//${url.hostname}${SANDBOX_PREFIX}/*`;
}
