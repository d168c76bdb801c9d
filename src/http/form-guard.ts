/**
 * Login CSRF for any sign-in form a browser posts (the dashboard's, the sandbox website's): another site's page
 * could post the form with the attacker's credential, and the victim would then work inside the attacker's
 * account. A sign-in POST must carry the token of a form this browser was given (double submit: a
 * SameSite=Strict cookie and a hidden field that match, which a page on another site can neither read nor
 * send), and a browser that says the POST came from another site is refused outright. The Origin header is not
 * used: under a no-referrer policy browsers send `Origin: null` even for a site's own forms.
 */
import { randomToken } from "../lib/ids";
import { sameSecret } from "../lib/same-secret";

interface ResponseHeaders {
  headers: Record<string, string | number>;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Secure only over https, or the cookie would never come back on a plain-http localhost install. */
export function isHttps(request: Request): boolean {
  return request.url.startsWith("https:") || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/**
 * The pre-session token for a sign-in form: the one this browser already holds under `cookie`, so two open tabs
 * both work, or a new one set as a cookie scoped to `path`. The form carries it back in a hidden field.
 */
export function signInFormToken(request: Request, set: ResponseHeaders, cookie: string, path: string): string {
  const held = readCookie(request, cookie);
  if (held && TOKEN_SHAPE.test(held)) return held;
  const token = randomToken();
  const secure = isHttps(request) ? "; Secure" : "";
  set.headers["set-cookie"] = `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=${path}${secure}`;
  return token;
}

/** Whether a sign-in POST came from somewhere other than a form this browser was given (see above). */
export function isForeignSignIn(request: Request, presented: string | undefined, cookie: string): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return true;
  const held = readCookie(request, cookie);
  return !held || !presented || !sameSecret(held, presented);
}
