import type { Logger } from "../../lib/log";
import { createMarketplaceClient, type MarketplaceClient, type MarketplaceClientOptions } from "./client";
import { readEngagementByJob } from "./proposals";

/** Reads whether clients viewed or replied to proposals, keyed by job ciphertext. */
export interface EngagementTracker {
  name: string;
  /** Only the jobs the tracker could find are in the map; the caller asks the driver about the rest. */
  engagementByJob(jobCiphertexts: string[]): Promise<Map<string, { viewed: boolean; replied: boolean }>>;
}

/**
 * The `marketplace-api` tracker: when the user connected the official API
 * (`jobpilot source connect marketplace`), the apply sync loop reads proposal
 * engagement from it (viewedByClient; a conversation room means replied).
 * Null when the API is not configured (no settings); until tokens are stored it reports
 * nothing, so an unconnected install does not log an error every sync.
 */
export function createMarketplaceApiTracker(
  settings: Pick<MarketplaceClientOptions, "apiUrl" | "tokenUrl" | "clientId" | "clientSecret" | "secretKey" | "tokenVault"> | null,
  log: Logger,
  fetchImpl?: typeof fetch,
): EngagementTracker | null {
  if (settings === null) return null;
  let client: MarketplaceClient | null = null;
  return {
    name: "marketplace-api",
    async engagementByJob(jobCiphertexts) {
      if (jobCiphertexts.length === 0 || (await settings.tokenVault.load()) === null) return new Map();
      client ??= createMarketplaceClient({ ...settings, fetch: fetchImpl, log });
      return readEngagementByJob(client, [...new Set(jobCiphertexts)]);
    },
  };
}
