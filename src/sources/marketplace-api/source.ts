/**
 * The marketplace's official API as a job source ("marketplace-api"): one search per term, newest first, paged
 * until the newest job seen for that term last time or `maxPages`, with the per-term marker in the runner's state.
 * A failing `pagination_eq` turns paging off for the process
 * (see docs/architecture.md, 'Paging the marketplace API').
 */
import { timestamp } from "../../lib/json-readers";
import type { Logger } from "../../lib/log";
import { SourceError, type JobSource, type PollContext, type PollResult, type SourceState } from "../source";
import { createMarketplaceClient, JOB_POSTINGS_SCOPE, RateLimitedError, type MarketplaceClient, type MarketplaceClientOptions } from "./client";
import { ciphertextOf, normalizeMarketplaceNode } from "./normalize";

export const SOURCE_NAME = "marketplace-api";
const DEFAULT_INTERVAL_MS = 10 * 60_000;
const DEFAULT_MAX_PAGES = 3;
const DEFAULT_PAGE_SIZE = 50;
const MAX_QUERIES = 50;
const MAX_QUERY_LENGTH = 500;

const SEARCH_QUERY = `
query marketplaceJobPostingsSearch(
  $marketPlaceJobFilter: MarketplaceJobPostingsSearchFilter,
  $searchType: MarketplaceJobPostingSearchType,
  $sortAttributes: [MarketplaceJobPostingSearchSortAttribute]
) {
  marketplaceJobPostingsSearch(marketPlaceJobFilter: $marketPlaceJobFilter, searchType: $searchType, sortAttributes: $sortAttributes) {
    totalCount
    edges {
      cursor
      node {
        id ciphertext title description
        createdDateTime publishedDateTime renewedDateTime
        duration durationLabel engagement engagementDuration { id label weeks } experienceLevel
        amount { rawValue currency displayValue }
        hourlyBudgetType
        hourlyBudgetMin { rawValue currency displayValue }
        hourlyBudgetMax { rawValue currency displayValue }
        totalApplicants freelancersToHire applied premium enterprise
        preferredFreelancerLocation preferredFreelancerLocationMandatory
        skills { name prettyName }
        client {
          totalHires totalPostedJobs totalReviews totalFeedback verificationStatus companyOrgUid hasFinancialPrivacy
          totalSpent { rawValue currency displayValue }
          location { city country state timezone }
        }
      }
    }
    pageInfo { endCursor hasNextPage }
  }
}`;

export interface MarketplaceApiSourceOptions
  extends Pick<
    MarketplaceClientOptions,
    "apiUrl" | "tokenUrl" | "clientId" | "clientSecret" | "tokenVault" | "secretKey" | "fetch" | "now" | "sleep" | "minIntervalMs"
  > {
  /** Search terms: the active feeds' includes plus configured extras; read at every poll. */
  queries: () => string[] | Promise<string[]>;
  intervalMs?: number;
  maxPages?: number;
  pageSize?: number;
}

/** Per search term: the newest job seen last time. */
interface Seen {
  ciphertext: string;
  publishedAt: number | null;
}

interface SearchData {
  marketplaceJobPostingsSearch?: {
    edges?: ({ node?: unknown } | null)[] | null;
    pageInfo?: { endCursor?: string | null; hasNextPage?: boolean | null } | null;
  } | null;
}

export function createMarketplaceApiSource(opts: MarketplaceApiSourceOptions): JobSource {
  const maxPages = Math.max(1, opts.maxPages ?? DEFAULT_MAX_PAGES);
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  let pollFetch: typeof fetch = fetch;
  let pollLog: Logger | undefined;
  let pagingWorks = true;
  let client: MarketplaceClient | null = null;

  const getClient = () =>
    (client ??= createMarketplaceClient({
      apiUrl: opts.apiUrl,
      tokenUrl: opts.tokenUrl,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      tokenVault: opts.tokenVault,
      secretKey: opts.secretKey,
      // opts.fetch wins (tests); else whatever fetch the runner hands the current poll.
      fetch: ((input: string | URL | Request, init?: RequestInit) => (opts.fetch ?? pollFetch)(input, init)) as typeof fetch,
      now: opts.now,
      sleep: opts.sleep,
      minIntervalMs: opts.minIntervalMs,
      log: forwardTo(() => pollLog),
    }));

  async function searchPage(query: string, after: string | undefined): Promise<SearchData> {
    const filter: Record<string, unknown> = { searchExpression_eq: query };
    if (pagingWorks) filter.pagination_eq = after === undefined ? { first: pageSize } : { first: pageSize, after };
    return getClient().query<SearchData>(
      SEARCH_QUERY,
      { marketPlaceJobFilter: filter, searchType: "USER_JOBS_SEARCH", sortAttributes: [{ field: "RECENCY" }] },
      { scope: JOB_POSTINGS_SCOPE },
    );
  }

  /** New nodes for one term, newest first, and the marker to keep. */
  async function searchTerm(query: string, seen: Seen | undefined, log: Logger): Promise<{ nodes: unknown[]; newest: Seen | undefined }> {
    const nodes: unknown[] = [];
    let newest: Seen | undefined;
    let after: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      let data: SearchData;
      try {
        data = await searchPage(query, after);
      } catch (err) {
        if (err instanceof SourceError || err instanceof RateLimitedError) throw err;
        if (page === 0 && pagingWorks) {
          // Only blame pagination when the same search works without it; otherwise it was the API failing.
          pagingWorks = false;
          try {
            data = await searchPage(query, undefined);
          } catch (retryErr) {
            pagingWorks = true;
            throw retryErr;
          }
          log.warn("marketplace search fails with pagination_eq; paging turned off until restart", { query, err });
        } else if (page > 0) {
          log.warn("marketplace search paging failed; keeping the pages read so far", { query, page, err });
          break;
        } else throw err;
      }
      const conn = data.marketplaceJobPostingsSearch;
      if (conn === null || conn === undefined) throw new Error("marketplace search answered without marketplaceJobPostingsSearch");
      let reachedSeen = false;
      for (const edge of conn.edges ?? []) {
        const node = edge?.node;
        const fields = typeof node === "object" && node !== null ? (node as Record<string, unknown>) : undefined;
        const ciphertext = fields ? ciphertextOf(fields) : null;
        if (fields === undefined || ciphertext === null) continue;
        const publishedAt = recencyOf(fields);
        if (seen !== undefined && ciphertext === seen.ciphertext) {
          reachedSeen = true;
          break;
        }
        // Older than the marker: skip it and stop paging, but finish the page in case the order is not strict.
        if (seen !== undefined && publishedAt !== null && seen.publishedAt !== null && publishedAt < seen.publishedAt) {
          reachedSeen = true;
          continue;
        }
        if (newest === undefined) newest = { ciphertext, publishedAt };
        else if (publishedAt !== null && (newest.publishedAt === null || publishedAt > newest.publishedAt)) newest.publishedAt = publishedAt;
        nodes.push(node);
      }
      const cursor = conn.pageInfo?.endCursor;
      if (reachedSeen || !pagingWorks || conn.pageInfo?.hasNextPage !== true || typeof cursor !== "string" || cursor === "") break;
      after = cursor;
    }
    // Nothing new keeps the old marker; a new top keeps the later of the two publish times.
    if (newest === undefined) return { nodes, newest: seen };
    if (seen?.publishedAt != null && (newest.publishedAt === null || newest.publishedAt < seen.publishedAt)) newest.publishedAt = seen.publishedAt;
    return { nodes, newest };
  }

  return {
    name: SOURCE_NAME,
    intervalMs: opts.intervalMs ?? DEFAULT_INTERVAL_MS,
    async poll(ctx: PollContext): Promise<PollResult> {
      pollFetch = ctx.fetch;
      pollLog = ctx.log;
      const queries = [...new Set((await opts.queries()).map((q) => q.trim()).filter((q) => q !== "" && q.length <= MAX_QUERY_LENGTH))].slice(0, MAX_QUERIES);
      const previous = seenOf(ctx.state);
      if (queries.length === 0) {
        ctx.log.debug("marketplace-api: no search terms (no active feed has includes)");
        return { docs: [] };
      }
      const next: Record<string, Seen> = {};
      const docs: unknown[] = [];
      const ciphertexts = new Set<string>();
      let succeeded = 0;
      let lastError: unknown;
      const stateWith = (): SourceState => ({ ...ctx.state, lastSeen: next });

      for (const [i, query] of queries.entries()) {
        try {
          const { nodes, newest } = await searchTerm(query, previous[query], ctx.log);
          if (newest !== undefined) next[query] = newest;
          succeeded++;
          for (const node of nodes) {
            const doc = normalizeMarketplaceNode(node, { exploredAt: ctx.nowTs });
            const cipher = doc?.jobTile?.job?.ciphertext;
            if (doc === null || cipher === undefined || ciphertexts.has(cipher)) continue;
            ciphertexts.add(cipher);
            docs.push(doc);
          }
        } catch (err) {
          if (err instanceof SourceError) throw err;
          if (err instanceof RateLimitedError) {
            // The terms not searched yet keep their markers, so the next poll resumes them.
            for (const q of queries.slice(i)) if (previous[q] !== undefined) next[q] = previous[q];
            return { docs, state: stateWith(), retryAfterMs: err.retryAfterMs };
          }
          if (previous[query] !== undefined) next[query] = previous[query];
          ctx.log.warn("marketplace search failed for one term", { query, err });
          lastError = err;
        }
      }
      // A transient failure on every term is the source failing: let the runner back off.
      if (succeeded === 0 && lastError !== undefined) throw lastError;
      ctx.log.debug("marketplace-api polled", { queries: queries.length, docs: docs.length });
      return { docs, state: stateWith() };
    },
  };
}

/** The time recency sorting goes by: a renewed job moves up the list with its renewal time. */
function recencyOf(node: Record<string, unknown>): number | null {
  const published = timestamp(node.publishedDateTime) ?? timestamp(node.createdDateTime);
  const renewed = timestamp(node.renewedDateTime);
  if (published === null) return renewed;
  return renewed !== null && renewed > published ? renewed : published;
}

function seenOf(state: SourceState): Record<string, Seen> {
  const raw = state.lastSeen;
  if (typeof raw !== "object" || raw === null) return {};
  const out: Record<string, Seen> = {};
  for (const [q, v] of Object.entries(raw as Record<string, unknown>)) {
    const s = v as Partial<Seen> | null;
    if (s && typeof s.ciphertext === "string") out[q] = { ciphertext: s.ciphertext, publishedAt: typeof s.publishedAt === "number" ? s.publishedAt : null };
  }
  return out;
}

/** The client is built once, but the logger arrives with each poll: forward to the current one. */
function forwardTo(current: () => Logger | undefined): Logger {
  const self: Logger = {
    debug: (m, f) => current()?.debug(m, f),
    info: (m, f) => current()?.info(m, f),
    warn: (m, f) => current()?.warn(m, f),
    error: (m, f) => current()?.error(m, f),
    child: (fields) => current()?.child(fields) ?? self,
    isEnabled: (level) => current()?.isEnabled(level) ?? false,
  };
  return self;
}
