import { t } from "elysia";
import type { Platform } from "../../db/enums";
import { literalUnion } from "../../http/schemas";

/** The capture route. Kept here, free of HTTP imports, so the auth plugin can name it without an import cycle. */
export const CAPTURE_PATH = "/api/v1/capture";

/** Largest accepted `descriptionHtml`, in characters (about 200 KB of markup). */
const MAX_DESCRIPTION_HTML = 200_000;
/** The archive refuses longer descriptions (normalizeJob), so plain text stops here too. */
export const MAX_DESCRIPTION_TEXT = 100_000;

export const CapturePlatform = literalUnion(["professional_network", "web"] as const satisfies readonly Platform[], {
  description: 'Where the page came from. Default "professional_network"; "web" for any other job page.',
});

/**
 * A job page the user is looking at in their own browser, as the bookmarklet
 * reads it. Only url and title are required: the rest depends on what the page
 * shows. The url scheme and the blank-title case are checked in the service,
 * which names the field in its message (a schema `pattern` would only say
 * "must be a string").
 */
export const CaptureBody = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 2048, description: "The page address (http or https)." }),
    title: t.String({ minLength: 1, maxLength: 500, description: "The job title." }),
    company: t.Optional(t.String({ maxLength: 500 })),
    location: t.Optional(
      t.String({ maxLength: 500, description: 'As shown on the page, e.g. "Berlin, Germany (Remote)"; a named country becomes client.country.' }),
    ),
    descriptionHtml: t.Optional(
      t.String({
        maxLength: MAX_DESCRIPTION_HTML,
        description: "The description element's HTML; converted to text (tags, scripts and styles removed, entities decoded).",
      }),
    ),
    description: t.Optional(
      t.String({ maxLength: MAX_DESCRIPTION_TEXT, description: "Plain-text description, used when descriptionHtml is absent or has no text." }),
    ),
    contactEmail: t.Optional(t.String({ maxLength: 320 })),
    platform: t.Optional(CapturePlatform),
  },
  { title: "CaptureRequest" },
);
export type CaptureBody = typeof CaptureBody.static;

export const CaptureResult = t.Object(
  {
    captured: t.Literal(true),
    ciphertext: t.String({ description: "The archived job's key (GET /api/v1/jobs/{ciphertext})." }),
    inserted: t.Boolean({ description: "false when the same job was captured (or ingested) before; its document is refreshed." }),
    matched: t.Integer({ description: "How many of the caller's feeds the job entered now (feeds with a profilePrompt are scored later and not counted)." }),
  },
  { title: "CaptureResult" },
);
export type CaptureResult = typeof CaptureResult.static;

/** The browser companion's routes: a batch of marketplace jobs read from one page, and its watch state. */
export const CAPTURE_JOBS_PATH = "/api/v1/capture/jobs";
export const CAPTURE_STATUS_PATH = "/api/v1/capture/status";
export const MAX_CAPTURED_JOBS = 50;

export const CaptureJobsBody = t.Object(
  {
    pageUrl: t.String({ minLength: 1, maxLength: 2048, description: "The marketplace page the jobs were read from." }),
    jobs: t.Array(t.Unknown({ description: "An archived job document (RawMarketplaceJob shape) as the companion's site adapter reads it." }), {
      minItems: 1,
      maxItems: MAX_CAPTURED_JOBS,
    }),
  },
  { title: "CaptureJobsRequest" },
);
export type CaptureJobsBody = typeof CaptureJobsBody.static;

export const CaptureJobsResult = t.Object(
  {
    received: t.Integer(),
    inserted: t.Integer({ description: "Jobs jobpilot had not seen before." }),
    updated: t.Integer({ description: "Jobs seen before (same ciphertext): their document is refreshed, nothing is notified again." }),
    rejected: t.Integer(),
    matched: t.Integer({
      description: "How many entries the new jobs made in the caller's feeds (feeds with a profilePrompt are scored later and not counted).",
    }),
    errors: t.Array(t.Object({ at: t.Integer({ description: "0-based index in `jobs`" }), error: t.String() })),
  },
  { title: "CaptureJobsResult" },
);
export type CaptureJobsResult = typeof CaptureJobsResult.static;

export const CaptureStatusBody = t.Object(
  {
    watch: literalUnion(["watching", "paused", "off"] as const, { description: "The companion's watch mode." }),
    needsYou: t.Optional(
      t.Union([literalUnion(["login", "challenge"] as const), t.Null()], {
        description: "The marketplace shows a login or bot-check page: watching waits for the user. null or absent: it does not.",
      }),
    ),
  },
  { title: "CaptureStatusRequest" },
);
export type CaptureStatusBody = typeof CaptureStatusBody.static;
