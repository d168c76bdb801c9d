/**
 * Runs on marketplace pages (and the sandbox website's): reads the page through the site adapter and hands the
 * result to the service worker, which alone talks to the paired server. Nothing is written to the page.
 */
import { type DomDocument, extractJobs, SANDBOX_PREFIX } from "./adapter";
import type { PageReport } from "./messages";

function report(): void {
  // The manifest runs this script only on the marketplace and on /sandbox/site/ of a local server, so this page's origin counts as the sandbox's.
  const sandboxOrigins = location.pathname.startsWith(`${SANDBOX_PREFIX}/`) ? [location.origin] : [];
  const extraction = extractJobs(document as unknown as DomDocument, location.href, sandboxOrigins, Date.now());
  const message: PageReport = { type: "page", href: location.href, extraction };
  chrome.runtime.sendMessage(message).catch(() => {
    // The service worker is restarting; the next page load reports again.
  });
}

report();
