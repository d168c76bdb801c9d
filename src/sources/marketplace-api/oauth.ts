/**
 * OAuth2 authorization-code flow for the marketplace's official API
 * (docs/reference/marketplace-data.md §2.1): the user opens the authorize URL,
 * the marketplace redirects back with `?code=…&state=…`, we trade the code for
 * an access token (24 h) and a refresh token, and later trade the refresh token
 * for a new pair. Scopes are set on the API key, not in the URL.
 *
 * Failures are split by who can fix them: a refused grant or client is a
 * SourceError (the user must act; the runner shows it), while network errors
 * and 5xx answers are plain Errors so the runner backs off and tries again.
 */
import { readCapped } from "../../lib/read-capped";
import { SourceError } from "../source";

export const DEFAULT_AUTHORIZE_URL = "https://www.upwork.com/ab/account-security/oauth2/authorize";

export const CONNECT_COMMAND = "`jobpilot source connect marketplace`";
export const REAUTHORISE_MESSAGE = `re-authorise needed: run ${CONNECT_COMMAND}`;

/** When the token endpoint leaves out expires_in: assume an hour, so we refresh early rather than late. */
const DEFAULT_EXPIRES_IN_S = 3600;
const TOKEN_TIMEOUT_MS = 30_000;
const MAX_TOKEN_BODY_BYTES = 64 * 1024;

export interface MarketplaceTokens {
  accessToken: string;
  refreshToken: string;
  /** Unix ms when the access token stops working. */
  expiresAt: number;
}

export interface AuthorizeUrlOptions {
  clientId: string;
  redirectUri: string;
  /** Random, checked on the callback against CSRF. */
  state: string;
  /** Defaults to the marketplace's authorize page. */
  authorizeUrl?: string;
}

export function authorizeUrl(opts: AuthorizeUrlOptions): string {
  const url = new URL(opts.authorizeUrl ?? DEFAULT_AUTHORIZE_URL);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", opts.clientId);
  url.searchParams.set("redirect_uri", opts.redirectUri);
  url.searchParams.set("state", opts.state);
  return url.toString();
}

interface TokenRequestBase {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
  /** Clock for expiresAt; defaults to Date.now. */
  now?: () => number;
}

export interface ExchangeCodeOptions extends TokenRequestBase {
  redirectUri: string;
  code: string;
}

export interface RefreshOptions extends TokenRequestBase {
  refreshToken: string;
}

/** A token-endpoint refusal the user must act on; `code` is the OAuth error code (invalid_grant, invalid_client…). */
export class OAuthError extends SourceError {
  constructor(
    message: string,
    readonly code: string | null,
    readonly status: number,
  ) {
    super(message);
    this.name = "OAuthError";
  }
}

export async function exchangeCode(opts: ExchangeCodeOptions): Promise<MarketplaceTokens> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: opts.code,
    redirect_uri: opts.redirectUri,
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
  });
  return requestTokens(opts, form, "exchange", null);
}

export async function refresh(opts: RefreshOptions): Promise<MarketplaceTokens> {
  const form = new URLSearchParams({
    grant_type: "refresh_token",
    refresh_token: opts.refreshToken,
    client_id: opts.clientId,
    client_secret: opts.clientSecret,
  });
  return requestTokens(opts, form, "refresh", opts.refreshToken);
}

async function requestTokens(
  opts: TokenRequestBase,
  form: URLSearchParams,
  kind: "exchange" | "refresh",
  previousRefreshToken: string | null,
): Promise<MarketplaceTokens> {
  const doFetch = opts.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(opts.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`marketplace token endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await readBody(res);
  const body = parseTokenBody(text);

  if (!res.ok) {
    const code = typeof body?.error === "string" ? body.error : null;
    const description = typeof body?.error_description === "string" ? body.error_description.slice(0, 300) : null;
    const detail = [code, description].filter(Boolean).join(": ") || `HTTP ${res.status}`;
    // Transient: the endpoint is down or busy; the runner retries with backoff.
    if (res.status >= 500 || res.status === 429) throw new Error(`marketplace token endpoint answered ${res.status} (${detail})`);
    if (code === "invalid_grant" && kind === "refresh") {
      // Revoked, expired (two weeks) or already used (a refresh rotates it): only a new consent helps.
      throw new OAuthError(`${REAUTHORISE_MESSAGE} (the refresh token was refused: ${detail})`, code, res.status);
    }
    if (code === "invalid_grant") {
      throw new OAuthError(
        `the authorisation code was refused (${detail}); codes are single-use and short-lived: run ${CONNECT_COMMAND} again`,
        code,
        res.status,
      );
    }
    if (code === "invalid_client" || code === "unauthorized_client" || res.status === 401) {
      throw new OAuthError(`the marketplace refused the client id or secret (${detail}): check the API key settings`, code, res.status);
    }
    throw new OAuthError(`marketplace token ${kind} failed (${detail})`, code, res.status);
  }

  const accessToken = typeof body?.access_token === "string" ? body.access_token : "";
  if (accessToken === "") throw new Error(`marketplace token endpoint answered ${res.status} without an access_token`);
  // A refresh normally rotates the refresh token; if it does not, the old one stays valid.
  const refreshToken = typeof body?.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : previousRefreshToken;
  if (refreshToken === null) throw new Error("marketplace token endpoint answered without a refresh_token");
  const expiresIn = Number(body?.expires_in);
  const seconds = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_EXPIRES_IN_S;
  const now = (opts.now ?? Date.now)();
  return { accessToken, refreshToken, expiresAt: now + Math.round(seconds * 1000) };
}

async function readBody(res: Response): Promise<string> {
  try {
    return new TextDecoder().decode(await readCapped(res.body, MAX_TOKEN_BODY_BYTES));
  } catch {
    return "";
  }
}

/** JSON as documented; a form-encoded body (some OAuth servers still answer so) is accepted too. */
function parseTokenBody(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    if (!trimmed.includes("=") || trimmed.startsWith("<")) return null;
    return Object.fromEntries(new URLSearchParams(trimmed));
  }
}
