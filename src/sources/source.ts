import type { Logger } from "../lib/log";

/**
 * A job source yields archived job documents (the spec's RawMarketplaceJob
 * shape, see src/modules/jobs/document/index.ts). `serve` polls each enabled source
 * on its interval and ingests what it returns; ingestion de-duplicates, so a
 * source may return a job it returned before. A source keeps what it needs
 * between polls (ETag, Last-Modified, a cursor, the ids it saw last) in
 * `state`, which the runner stores in SQLite, so a restart neither refetches
 * everything nor forgets where it was.
 */
export interface SourceState {
  etag?: string | null;
  lastModified?: string | null;
  cursor?: string | null;
  [key: string]: unknown;
}

export interface PollContext {
  nowTs: number;
  state: SourceState;
  /** fetch to use (tests point it at a local server through the source's base URL instead). */
  fetch: typeof fetch;
  log: Logger;
}

export interface PollResult {
  docs: unknown[];
  /** The state to keep for the next poll (omitted = unchanged). */
  state?: SourceState;
  /** Ask to be polled again later than usual (e.g. a 429's Retry-After), in ms from now. */
  retryAfterMs?: number;
}

export interface JobSource {
  name: string;
  /** Pause between polls. */
  intervalMs: number;
  /** A cron pattern that decides the next poll instead of intervalMs (after a success; failures still back off). */
  cron?: string;
  /** Throws on failure (network, 5xx, unparsable answer): the runner backs off and keeps the other sources going. */
  poll(ctx: PollContext): Promise<PollResult> | PollResult;
}

/** A failure a user must act on (e.g. re-authorise), shown as the source's last error. */
export class SourceError extends Error {}
