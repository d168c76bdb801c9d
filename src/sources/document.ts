/**
 * The archived job document (the spec's RawMarketplaceJob) as sources produce
 * it and the archive stores it. Field locations follow the marketplace's own
 * web GraphQL (see docs/reference/marketplace-data.md §1): a search tile
 * (`jobTile.job` + siblings), the public details body `jobDetailsResponse`
 * (`{data:{jobPubDetails}}`) and the authenticated details body
 * `authJobDetailsResponse` (`{data:{jobAuthDetails}}`). Sections are optional
 * and kept as given; readers must treat every nested field as possibly absent,
 * null, a string where a number is expected, or `ExecutionAborted`.
 *
 * Non-marketplace documents (`platform: "professional_network" | "web"`) use the
 * same top level: `id`, `title`, `description`, `url`, optional
 * `ontologySkills`, `jobTile.job.publishTime`, `client.country`, `contactEmail`.
 *
 * It lives beside the JobSource interface so adapters can produce it without
 * importing a feature module; jobs (normalize, archive) and the rest read it.
 */
import type { Platform } from "../db/enums";

export interface OntologySkill {
  uid: string;
  prefLabel: string;
  [k: string]: unknown;
}

export interface JobDocument {
  id: string;
  title: string;
  description: string;
  /** Absent means marketplace. */
  platform?: Platform;
  /** Canonical job page; for the marketplace derived from the ciphertext when absent. Null when ingest dropped a link that was not http or https. */
  url?: string | null;
  ontologySkills?: OntologySkill[];
  jobTile?: {
    job?: {
      id?: string;
      ciphertext?: string;
      jobType?: "HOURLY" | "FIXED" | string;
      publishTime?: string;
      hourlyBudgetMin?: string | number | null;
      hourlyBudgetMax?: string | number | null;
      fixedPriceAmount?: { amount?: string | number | null; isoCurrencyCode?: string | null } | null;
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  /** Sibling of jobTile in search results: the client summary. */
  upworkHistoryData?: { client?: Record<string, unknown> } & Record<string, unknown>;
  /** Connects needed to apply (search tiles carry it). */
  connectPrice?: number;
  exploredAt?: number;
  screeningQuestions?: { position: number; question: string }[];
  jobDetailsResponse?: { data?: { jobPubDetails?: Record<string, any> } } & Record<string, unknown>;
  authJobDetailsResponse?: { data?: { jobAuthDetails?: Record<string, any> } } & Record<string, unknown>;
  /** Non-marketplace sources: where the job came from (e.g. "remoteok") and a contact address if one was given. */
  source?: string;
  contactEmail?: string;
  client?: { country?: string; name?: string; [k: string]: unknown };
  [k: string]: unknown;
}
