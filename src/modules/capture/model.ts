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
