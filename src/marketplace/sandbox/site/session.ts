/**
 * The sandbox website's sign-in: the browser holds a cookie naming a jobpilot account and the API key it signed
 * in with, signed with HMAC so it cannot be forged; the session ends when that key is revoked (index.ts checks). The key is JOBPILOT_SECRET_KEY when set, else one drawn when the process starts (a restart
 * then signs everyone out, as a marketplace session expiring would). The cookie only says who the browser is;
 * whether that session still works is the sandbox's `sandbox_sessions` row, which the admin route can
 * invalidate to send the browser to the login page.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SITE_COOKIE = "sbx_session";
const SESSION_MS = 30 * 24 * 60 * 60_000;

export interface SiteSession {
  accountId: string;
  keyId: string;
}

export interface SiteSigner {
  issue(session: SiteSession, nowTs: number): string;
  /** The account and key the cookie names, or null when it is missing, forged or expired. */
  read(cookie: string | undefined, nowTs: number): SiteSession | null;
}

export function siteSigner(secret: string | null): SiteSigner {
  const key = secret ?? crypto.getRandomValues(new Uint8Array(32));
  const mac = (payload: string) => createHmac("sha256", key).update(`jobpilot/sandbox-site/${payload}`).digest("base64url");
  return {
    issue({ accountId, keyId }, nowTs) {
      const payload = `${Buffer.from(accountId).toString("base64url")}.${Buffer.from(keyId).toString("base64url")}.${nowTs + SESSION_MS}`;
      return `${payload}.${mac(payload)}`;
    },
    read(cookie, nowTs) {
      const parts = cookie?.split(".");
      if (parts?.length !== 4) return null;
      const payload = `${parts[0]}.${parts[1]}.${parts[2]}`;
      const given = Buffer.from(parts[3]!);
      const expected = Buffer.from(mac(payload));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      if (!(Number(parts[2]) > nowTs)) return null;
      return { accountId: Buffer.from(parts[0]!, "base64url").toString(), keyId: Buffer.from(parts[1]!, "base64url").toString() };
    },
  };
}
