import type { Extraction } from "./adapter";

/** What the content script tells the service worker about the page it runs in. */
export interface PageReport {
  type: "page";
  href: string;
  extraction: Extraction;
}

/** What the extension keeps in chrome.storage.local (never in a page's storage). */
export interface Settings {
  /** The paired jobpilot server, e.g. "http://127.0.0.1:3000". */
  server?: string;
  /** The companion's own API key, from pairing. */
  apiKey?: string;
  /** Saved searches (marketplace URLs) watch mode reloads. */
  watchUrls?: string[];
  watchEnabled?: boolean;
  /** Minutes between reloads (default 5, minimum 2). */
  intervalMin?: number;
  /** Tests only: milliseconds between reloads, overriding intervalMin (the e2e test's fast setting). */
  testIntervalMs?: number;
  /** Set while the marketplace shows a login or bot-check page: watching waits for the user. */
  needsYou?: "login" | "challenge" | null;
  watchTabId?: number;
  watchIndex?: number;
  sentCount?: number;
  lastStatus?: string;
}

export const DEFAULT_INTERVAL_MIN = 5;
export const MIN_INTERVAL_MIN = 2;
