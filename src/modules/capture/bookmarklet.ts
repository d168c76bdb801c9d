/**
 * The capture bookmarklet. `bookmarkletHref` is the tiny `javascript:` URL a
 * user keeps in the bookmarks bar (bookmarklet.browser.js); clicking it on a
 * job page loads `CAPTURE_SCRIPT` (capture.browser.js) from jobpilot
 * (GET /capture.js), which reads the page the user is looking at and POSTs it
 * to /api/v1/capture. Keeping the real script on the server means selector
 * fixes reach users without re-installing the bookmark.
 *
 * Both are real files, linted like the rest, and imported as text so the
 * compiled binary embeds them: what is served is exactly what is reviewed.
 */
// Bundled as text by `bun build --compile`, as the dashboard does with its scripts.
import CAPTURE_SOURCE from "./capture.browser.js" with { type: "text" };
import BOOKMARKLET_SOURCE from "./bookmarklet.browser.js" with { type: "text" };

export const CAPTURE_SCRIPT: string = CAPTURE_SOURCE;

/** The string literal in bookmarklet.browser.js that stands for the capture script's address. */
const SCRIPT_URL_PLACEHOLDER = '"{{captureScriptUrl}}"';

/** Turns `https://jobs.example.com/` into `https://jobs.example.com`; refuses anything but an http(s) base. */
function cleanBase(baseUrl: string): string {
  const url = new URL(baseUrl.trim());
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("baseUrl must be an http or https URL");
  return (url.origin + url.pathname).replace(/\/+$/, "");
}

let compactLoader: string | undefined;
/** The bookmarklet's code on one line, comments dropped: a bookmark's URL should be short. Made once, when first asked for. */
function loaderCode(): string {
  if (compactLoader === undefined) {
    const code = new Bun.Transpiler({ loader: "js", minifyWhitespace: true }).transformSync(BOOKMARKLET_SOURCE);
    // Exactly one place takes the address: a loader edited without it must fail here, not make a bookmark that loads nothing.
    if (code.split(SCRIPT_URL_PLACEHOLDER).length !== 2) throw new Error(`bookmarklet.browser.js must contain ${SCRIPT_URL_PLACEHOLDER} exactly once`);
    compactLoader = code;
  }
  return compactLoader;
}

/**
 * The `javascript:` URL to drag to the bookmarks bar: it loads
 * `<baseUrl>/capture.js` (a fresh copy each click) and says so when the script
 * cannot load, e.g. jobpilot is down or the page's security policy blocks it.
 */
export function bookmarkletHref(baseUrl: string): string {
  // A JSON string is a valid JavaScript string literal, so the address cannot end the string early. A replacer
  // function, not a replacement string, so a `$&` or `$'` in the address is copied as it is.
  const src = JSON.stringify(`${cleanBase(baseUrl)}/capture.js`);
  return `javascript:${encodeURIComponent(loaderCode().replace(SCRIPT_URL_PLACEHOLDER, () => src))}`;
}
