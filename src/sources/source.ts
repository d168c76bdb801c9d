/**
 * A job source yields archived job documents (the spec's RawMarketplaceJob
 * shape, see src/modules/jobs/document.ts). `serve` polls each enabled source
 * on its interval and ingests what it returns; ingestion de-duplicates, so a
 * source may return a job it returned before.
 */
export interface JobSource {
  name: string;
  /** Pause between polls. */
  intervalMs: number;
  poll(nowTs: number): Promise<unknown[]> | unknown[];
}
