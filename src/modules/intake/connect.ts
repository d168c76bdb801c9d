import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { authorizeUrl, exchangeCode } from "../../sources/marketplace-api/oauth";
import { saveTokens } from "../../sources/marketplace-api/token-store";
import { marketplaceApiOptions, marketplaceApiSettings } from "./registry";
import * as repo from "./repo";

const PROVIDER = "marketplace";
/** How long an authorize link stays usable: long enough to log in and approve, short enough that a leaked link goes stale. */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

type ConnectDeps = Pick<Deps, "config" | "db" | "clock">;

/** A fresh random `state` value (128 bits, URL-safe): single-use, checked on the callback against CSRF. */
export function newOAuthState(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
}

/** Starts the OAuth2 authorization-code flow: a fresh single-use `state` and the marketplace page to open. */
export async function startMarketplaceConnect(deps: ConnectDeps): Promise<{ url: string; state: string; expiresAtTs: number }> {
  const settings = marketplaceApiSettings(deps.config);
  const state = newOAuthState();
  const nowTs = deps.clock.now();
  const expiresAtTs = nowTs + OAUTH_STATE_TTL_MS;
  await repo.addOAuthState(deps.db, { state, provider: PROVIDER, expiresAtTs }, nowTs);
  const url = authorizeUrl({
    clientId: settings.clientId,
    redirectUri: deps.config.marketplaceRedirectUri,
    state,
    authorizeUrl: deps.config.marketplaceAuthorizeUrl,
  });
  return { url, state, expiresAtTs };
}

/**
 * What a user pastes after approving: the redirect URL (we check its state) or
 * the bare code (no state to check; the user started the flow themselves).
 */
export function parsePastedCode(input: string): { code: string; state: string | null } {
  const text = input.trim();
  if (!text) throw new AppError("bad_request", "Paste the code or the whole redirect URL");
  if (/^https?:\/\//.test(text)) {
    const url = new URL(text);
    const error = url.searchParams.get("error");
    if (error) throw new AppError("bad_request", `The marketplace refused the authorisation: ${url.searchParams.get("error_description") ?? error}`);
    const code = url.searchParams.get("code");
    if (!code) throw new AppError("bad_request", "That URL has no code parameter");
    return { code, state: url.searchParams.get("state") };
  }
  return { code: text, state: null };
}

/** Trades the code for tokens and stores them encrypted in the database; a given `state` must be pending and is used up first (once only, CSRF). */
export async function finishMarketplaceConnect(deps: ConnectDeps, input: { code: string; state: string | null }): Promise<{ expiresAt: number }> {
  const settings = marketplaceApiOptions(deps.config, deps.db);
  if (input.state !== null && !(await repo.takeOAuthState(deps.db, PROVIDER, input.state, deps.clock.now()))) {
    throw new AppError("bad_request", "Unknown, used or expired state: run `jobpilot source connect marketplace` again");
  }
  const tokens = await exchangeCode({ ...settings, redirectUri: deps.config.marketplaceRedirectUri, code: input.code, now: () => deps.clock.now() });
  await saveTokens(settings.tokenVault, settings.secretKey, tokens, deps.clock.now());
  return { expiresAt: tokens.expiresAt };
}
