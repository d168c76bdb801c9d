/**
 * GraphQL client for the marketplace's official API (docs/reference/marketplace-data.md §2.1).
 *
 * - Authorises every request with the stored access token, refreshing it a few
 *   minutes before it expires and once more if the API answers 401; each new
 *   pair is stored at once, because a refresh spends the old refresh token,
 *   and only one process of a cluster refreshes at a time (token-store.ts).
 * - Keeps under the documented 10 requests/second per IP with a spacer
 *   between request starts, and waits out a 429's Retry-After in place when it
 *   is short (longer waits surface as RateLimitedError for the caller to
 *   reschedule).
 * - The API reports a missing scope as HTTP 200 with `errors[]` classified
 *   `ExecutionAborted`; that becomes a MissingScopeError (a SourceError) naming
 *   the scope, never an empty result.
 */
import type { Logger } from "../../lib/log";
import { readCapped } from "../../lib/read-capped";
import { retryAfterMs } from "../../lib/retry-after";
import { iso } from "../../lib/time";
import { SourceError } from "../source";
import { CONNECT_COMMAND, REAUTHORISE_MESSAGE, refresh, type MarketplaceTokens } from "./oauth";
import { DEFAULT_REFRESH_LEASE_MS, loadTokens, NOT_CONNECTED_MESSAGE, refreshStoredTokens, type TokenVault } from "./token-store";

export const JOB_POSTINGS_SCOPE = "Read marketplace Job Postings";
const COMMON_ENTITIES_SCOPE = "Common Entities - Read-Only Access";

const DEFAULT_MIN_INTERVAL_MS = 110; // ≈9 requests/second, under the 10/s limit
const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;
const DEFAULT_MAX_WAIT_MS = 10_000;
const DEFAULT_RATE_LIMIT_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface GraphQLResponse<T = unknown> {
  data: T | null;
  errors: GraphQLError[];
}

export interface RequestOptions {
  /** The API-key scope this query needs, named in the error when the key lacks it. */
  scope?: string;
}

export interface MarketplaceClient {
  /** The `data` of a query; any GraphQL error throws. */
  query<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<T>;
  /** Data and errors both, for callers that can use partial answers; scope, auth and transport failures still throw. */
  request<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<GraphQLResponse<T>>;
}

export interface MarketplaceClientOptions {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where the encrypted tokens live (modules/intake hands in the database row). */
  tokenVault: TokenVault;
  secretKey: string;
  fetch?: typeof fetch;
  /** Clock for token expiry and Retry-After dates. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  log?: Logger;
  /** Optional organisation selector (X-Upwork-API-TenantId). */
  tenantId?: string;
  minIntervalMs?: number;
  refreshMarginMs?: number;
  /** A 429 asking for a longer wait than this is not waited out here but thrown as RateLimitedError. */
  maxRetryAfterMs?: number;
  rateLimitRetries?: number;
  timeoutMs?: number;
  /** How long one process may hold the token refresh before another may take it over. */
  refreshLeaseMs?: number;
  /** How often a process waiting for another's refresh re-reads the stored tokens (real time). */
  refreshLeasePollMs?: number;
}

/** The API keeps answering 429; `retryAfterMs` is how long it asked us to wait. */
export class RateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`marketplace API rate limit: asked to wait ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = "RateLimitedError";
  }
}

/** The API key lacks a scope (HTTP 200, errors[] classified ExecutionAborted). */
export class MissingScopeError extends SourceError {
  constructor(
    readonly scope: string | null,
    readonly fields: string[],
  ) {
    const what = scope !== null ? `the "${scope}" scope` : "a scope this query needs";
    const refused = fields.length > 0 ? ` (refused fields: ${fields.slice(0, 10).join(", ")})` : "";
    super(
      `the marketplace API key lacks ${what}${refused}: enable it and "${COMMON_ENTITIES_SCOPE}" on the key ` +
        `in the marketplace's API Center, then run ${CONNECT_COMMAND} (changing scopes revokes existing tokens)`,
    );
    this.name = "MissingScopeError";
  }
}

export function createMarketplaceClient(opts: MarketplaceClientOptions): MarketplaceClient {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  const minIntervalMs = opts.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  const refreshMarginMs = opts.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? DEFAULT_MAX_WAIT_MS;
  const rateLimitRetries = opts.rateLimitRetries ?? DEFAULT_RATE_LIMIT_RETRIES;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = (input: string, init: RequestInit) => (opts.fetch ?? fetch)(input, init);

  let tokens: MarketplaceTokens | null = null;
  let refreshing: Promise<MarketplaceTokens> | null = null;
  // Start time reserved for the next request; reserved synchronously so concurrent callers queue up too.
  let nextSlotAt = 0;

  async function spacer(): Promise<void> {
    const t = performance.now();
    const wait = nextSlotAt - t;
    nextSlotAt = Math.max(t, nextSlotAt) + minIntervalMs;
    if (wait > 0) await sleep(wait);
  }

  async function currentTokens(): Promise<MarketplaceTokens> {
    // Read lazily and again after a failure, so `source connect` run while serving takes effect on the next poll.
    if (tokens === null) {
      tokens = await loadTokens(opts.tokenVault, opts.secretKey);
      if (tokens === null) throw new SourceError(NOT_CONNECTED_MESSAGE);
    }
    return tokens;
  }

  function refreshTokens(stale: MarketplaceTokens): Promise<MarketplaceTokens> {
    // One refresh at a time in this client; refreshStoredTokens keeps other clients and processes to one too.
    refreshing ??= (async () => {
      try {
        const next = await refreshStoredTokens(
          {
            vault: opts.tokenVault,
            secretKey: opts.secretKey,
            now,
            // Tokens another process (a second server, the connect command) stored meanwhile.
            usable: (stored) => stored.expiresAt > stale.expiresAt && stored.expiresAt - now() > refreshMarginMs,
            refresh: (refreshToken) =>
              refresh({ tokenUrl: opts.tokenUrl, clientId: opts.clientId, clientSecret: opts.clientSecret, refreshToken, fetch: opts.fetch, now }),
            // Keep the new pair in memory even if storing it fails: the old refresh token is already spent.
            onRefreshed: (pair) => {
              tokens = pair;
              opts.log?.info("marketplace access token refreshed", { expiresAt: iso(pair.expiresAt) });
            },
            leaseMs: opts.refreshLeaseMs ?? DEFAULT_REFRESH_LEASE_MS,
            leasePollMs: opts.refreshLeasePollMs,
            log: opts.log,
          },
          stale,
        );
        tokens = next;
        return next;
      } catch (err) {
        if (err instanceof SourceError) tokens = null;
        throw err;
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function freshTokens(): Promise<MarketplaceTokens> {
    const t = await currentTokens();
    return t.expiresAt - now() <= refreshMarginMs ? refreshTokens(t) : t;
  }

  async function post(accessToken: string, body: string): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json",
    };
    if (opts.tenantId) headers["x-upwork-api-tenantid"] = opts.tenantId;
    try {
      return await doFetch(opts.apiUrl, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new Error(`marketplace API unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function request<T>(query: string, variables: Record<string, unknown> = {}, ro: RequestOptions = {}): Promise<GraphQLResponse<T>> {
    const body = JSON.stringify({ query, variables });
    let current = await freshTokens();
    let refreshedAfter401 = false;
    let rateLimited = 0;
    for (;;) {
      await spacer();
      const res = await post(current.accessToken, body);
      if (res.status === 401) {
        await res.body?.cancel().catch(() => {});
        if (refreshedAfter401) {
          tokens = null;
          throw new SourceError(`the marketplace API refused a freshly refreshed access token: ${REAUTHORISE_MESSAGE}`);
        }
        refreshedAfter401 = true;
        current = await refreshTokens(current);
        continue;
      }
      if (res.status === 429) {
        await res.body?.cancel().catch(() => {});
        const waitMs = retryAfterMs(res.headers.get("retry-after"), now()) ?? 1000 * 2 ** rateLimited;
        if (rateLimited >= rateLimitRetries || waitMs > maxRetryAfterMs) throw new RateLimitedError(waitMs);
        rateLimited++;
        opts.log?.warn("marketplace API rate limit, waiting", { waitMs });
        await sleep(waitMs);
        continue;
      }
      const text = await readText(res);
      const parsed = parseJson(text);
      // Scope refusals can come with a non-200 status too; name the scope whatever the status.
      const errors = errorsOf(parsed);
      throwIfScopeMissing(errors, ro.scope ?? null);
      if (!res.ok) {
        const detail = errors.length > 0 ? errors.map((e) => e.message).join("; ") : summarize(text);
        if (res.status === 403) throw new SourceError(`the marketplace API refused access (403: ${detail}); check the API key and its scopes`);
        throw new Error(`marketplace API answered ${res.status}: ${detail}`);
      }
      if (parsed === undefined || typeof parsed !== "object" || parsed === null) {
        throw new Error(`marketplace API answered ${res.status} with an unparsable body: ${summarize(text)}`);
      }
      const data = (parsed as { data?: T | null }).data ?? null;
      return { data, errors };
    }
  }

  return {
    request,
    async query<T>(query: string, variables?: Record<string, unknown>, ro?: RequestOptions): Promise<T> {
      const { data, errors } = await request<T>(query, variables, ro);
      if (errors.length > 0)
        throw new Error(
          `marketplace API error: ${errors
            .map((e) => e.message)
            .join("; ")
            .slice(0, 500)}`,
        );
      if (data === null) throw new Error("marketplace API answered without data");
      return data;
    },
  };
}

function throwIfScopeMissing(errors: GraphQLError[], scope: string | null): void {
  const refusals = errors.filter(isScopeError);
  if (refusals.length === 0) return;
  const fields = new Set<string>();
  for (const e of refusals) {
    // "…doesn't have enough oauth2 permissions/scopes to access: [Money.currency, Money.rawValue]."
    const list = /\[([^\]]*)\]/.exec(e.message)?.[1];
    for (const f of list?.split(",") ?? []) if (f.trim() !== "") fields.add(f.trim());
  }
  throw new MissingScopeError(scope, [...fields]);
}

function isScopeError(e: GraphQLError): boolean {
  const ext = e.extensions ?? {};
  return (
    ext.classification === "ExecutionAborted" ||
    ext.code === "ExecutionAborted" ||
    /permissions\/scopes|oauth2 permissions|missing scope|insufficient[_ ]scope/i.test(e.message)
  );
}

function errorsOf(parsed: unknown): GraphQLError[] {
  if (typeof parsed !== "object" || parsed === null) return [];
  const list = (parsed as { errors?: unknown }).errors;
  if (!Array.isArray(list)) return [];
  return list.map((e) => {
    const o = (typeof e === "object" && e !== null ? e : {}) as Record<string, unknown>;
    return {
      message: typeof o.message === "string" ? o.message : JSON.stringify(e).slice(0, 300),
      path: Array.isArray(o.path) ? (o.path as (string | number)[]) : undefined,
      extensions: typeof o.extensions === "object" && o.extensions !== null ? (o.extensions as Record<string, unknown>) : undefined,
    };
  });
}

async function readText(res: Response): Promise<string> {
  return new TextDecoder().decode(await readCapped(res.body, MAX_RESPONSE_BYTES));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Error pages can be large HTML; keep a short hint for the log. */
function summarize(text: string): string {
  const t = text.trim();
  if (t.startsWith("<")) return `[HTML, ${t.length} bytes]`;
  return t.length > 300 ? `${t.slice(0, 300)}…` : t || "(empty body)";
}
