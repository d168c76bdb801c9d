/**
 * The capture bookmarklet. `bookmarkletHref` is the tiny `javascript:` URL a
 * user keeps in the bookmarks bar; clicking it on a job page loads
 * `CAPTURE_SCRIPT` from jobpilot (GET /capture.js), which reads the page the
 * user is looking at and POSTs it to /api/v1/capture. Keeping the real script
 * on the server means selector fixes reach users without re-installing the
 * bookmark.
 *
 * The script is plain ES2017 in a string, not a compiled function, so what is
 * served is exactly what is reviewed here. It runs inside the job site's page,
 * so it writes to the page only with textContent and keeps its globals to one
 * localStorage entry and one window flag.
 */

/** The localStorage entry (on the job site's origin) holding `{ base, key }`. */
const CAPTURE_STORAGE_KEY = "jobpilot.capture.v1";

/** Turns `https://jobs.example.com/` into `https://jobs.example.com`; refuses anything but an http(s) base. */
function cleanBase(baseUrl: string): string {
  const url = new URL(baseUrl.trim());
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("baseUrl must be an http or https URL");
  return (url.origin + url.pathname).replace(/\/+$/, "");
}

/**
 * The `javascript:` URL to drag to the bookmarks bar: it loads
 * `<baseUrl>/capture.js` (a fresh copy each click) and says so when the script
 * cannot load, e.g. jobpilot is down or the page's security policy blocks it.
 */
export function bookmarkletHref(baseUrl: string): string {
  const src = JSON.stringify(`${cleanBase(baseUrl)}/capture.js`);
  const code =
    `(function(){var s=document.createElement("script");s.src=${src}+"?t="+Date.now();` +
    `s.onerror=function(){alert("jobpilot: could not load "+${src}+" (is jobpilot running? does this page block outside scripts?)")};` +
    `(document.head||document.documentElement).appendChild(s)})()`;
  return `javascript:${encodeURIComponent(code)}`;
}

export const CAPTURE_SCRIPT = String.raw`/* jobpilot capture: sends the job page you are viewing to your jobpilot server. */
(function () {
  "use strict";
  var STORE = ${JSON.stringify(CAPTURE_STORAGE_KEY)};
  var MAX_HTML = 200000;
  var MAX_TEXT = 100000;
  if (window.__jobpilotCapturing) return;
  window.__jobpilotCapturing = true;
  var done = function () { window.__jobpilotCapturing = false; };

  // Where this script came from: the default answer when asking for the jobpilot URL.
  var loadedFrom = "";
  try {
    var src = new URL(document.currentScript.src);
    loadedFrom = (src.origin + src.pathname).replace(/\/capture\.js$/, "");
  } catch (e) { /* inline copy */ }

  function say(message, ok) {
    var box = document.createElement("div");
    box.textContent = "jobpilot: " + message;
    var s = box.style;
    s.position = "fixed"; s.right = "16px"; s.bottom = "16px"; s.zIndex = "2147483647"; s.maxWidth = "360px";
    s.padding = "10px 14px"; s.borderRadius = "6px"; s.font = "14px/1.4 system-ui, sans-serif"; s.color = "#fff";
    s.background = ok ? "#1f7a3f" : "#a42a2a"; s.boxShadow = "0 2px 8px rgba(0,0,0,.3)";
    (document.body || document.documentElement).appendChild(box);
    setTimeout(function () { box.remove(); }, 7000);
  }

  function clean(text) { return (text || "").replace(/\s+/g, " ").trim(); }
  function textOf(el) { return el ? clean(el.innerText || el.textContent) : ""; }
  function first(selectors, root) {
    for (var i = 0; i < selectors.length; i++) {
      var el = (root || document).querySelector(selectors[i]);
      if (el && textOf(el)) return el;
    }
    return null;
  }

  // The professional network's job page (logged-in and public layouts), then generic fallbacks.
  var TITLE = [".job-details-jobs-unified-top-card__job-title h1", ".job-details-jobs-unified-top-card__job-title", ".jobs-unified-top-card__job-title",
    ".top-card-layout__title", ".topcard__title", "h1"];
  var COMPANY = [".job-details-jobs-unified-top-card__company-name a", ".job-details-jobs-unified-top-card__company-name", ".jobs-unified-top-card__company-name",
    ".topcard__org-name-link", ".top-card-layout__second-subline a", "[data-company-name]", "[itemprop=hiringOrganization] [itemprop=name]"];
  var LOCATION = [".job-details-jobs-unified-top-card__primary-description-container .tvm__text", ".job-details-jobs-unified-top-card__bullet",
    ".jobs-unified-top-card__bullet", ".topcard__flavor--bullet", "[itemprop=jobLocation]", "[class*=job-location]", "[class*=jobLocation]"];
  var DESCRIPTION = ["#job-details", ".jobs-description__content", ".jobs-description-content__text", ".show-more-less-html__markup", ".description__text",
    "[itemprop=description]", "[class*=job-description]", "[class*=jobDescription]", "main article", "article"];

  // Most job pages outside the professional network also carry schema.org JobPosting data.
  function jobPosting() {
    var scripts = document.querySelectorAll('script[type="application/ld+json"]');
    for (var i = 0; i < scripts.length; i++) {
      try {
        var data = JSON.parse(scripts[i].textContent);
        var items = [].concat(data && data["@graph"] ? data["@graph"] : data);
        for (var j = 0; j < items.length; j++) if (items[j] && items[j]["@type"] === "JobPosting") return items[j];
      } catch (e) { /* not ours to fix */ }
    }
    return {};
  }

  function read() {
    var ld = jobPosting();
    var org = ld.hiringOrganization || {};
    var place = [].concat(ld.jobLocation || [])[0] || {};
    var address = place.address || {};
    var country = address.addressCountry && (address.addressCountry.name || address.addressCountry);
    var descEl = first(DESCRIPTION);
    var page = {
      url: location.href,
      title: textOf(first(TITLE)) || clean(ld.title) || clean(document.title),
      company: textOf(first(COMPANY)) || clean(typeof org === "string" ? org : org.name) || undefined,
      location: textOf(first(LOCATION)) || clean([address.addressLocality, address.addressRegion, country].filter(Boolean).join(", ")) || undefined,
      platform: /(^|\.)linkedin\.com$/i.test(location.hostname) ? "professional_network" : "web"
    };
    var html = descEl ? descEl.innerHTML : (typeof ld.description === "string" ? ld.description : "");
    if (html && html.length <= MAX_HTML) page.descriptionHtml = html;
    else page.description = (descEl ? descEl.innerText : (document.body && document.body.innerText) || "").slice(0, MAX_TEXT);
    var mail = (descEl && descEl.querySelector('a[href^="mailto:"]')) || document.querySelector('a[href^="mailto:"]');
    if (mail) {
      var email = "";
      try { email = decodeURIComponent(mail.getAttribute("href").slice(7).split("?")[0]).split(",")[0].trim(); } catch (e) { /* bad escape */ }
      if (/^[^\s@]+@[^\s@]+\.[a-z]{2,24}$/i.test(email)) page.contactEmail = email;
    }
    if (page.title.length > 500) page.title = page.title.slice(0, 500);
    return page;
  }

  function settings() {
    var saved = null;
    try { saved = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { /* storage blocked or corrupt */ }
    if (saved && saved.base && saved.key) return saved;
    var base = prompt("jobpilot: your jobpilot server URL (asked once)", loadedFrom || "http://localhost:3000");
    if (!base) return null;
    try {
      var u = new URL(base.trim());
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
      base = (u.origin + u.pathname).replace(/\/+$/, "");
    } catch (e) { say("that is not an http(s) URL", false); return null; }
    var key = prompt("jobpilot: your API key (stored in this site's localStorage, sent only to " + base + ")");
    if (!key || !key.trim()) return null;
    saved = { base: base, key: key.trim() };
    try { localStorage.setItem(STORE, JSON.stringify(saved)); } catch (e) { /* works this once */ }
    return saved;
  }

  var conf = settings();
  if (!conf) { done(); return; }
  var page = read();
  if (!page.title) { say("no job title found on this page", false); done(); return; }
  fetch(conf.base + "/api/v1/capture", {
    method: "POST",
    mode: "cors",
    credentials: "omit",
    headers: { "content-type": "application/json", "x-api-key": conf.key },
    body: JSON.stringify(page)
  }).then(function (res) {
    return res.json().catch(function () { return {}; }).then(function (body) {
      if (res.status === 201) say("saved" + (body.matched ? " and added to " + body.matched + " of your feeds" : ""), true);
      else if (res.status === 200) say("already saved", true);
      else if (res.status === 401) {
        try { localStorage.removeItem(STORE); } catch (e) { /* nothing stored */ }
        say("the API key was refused; click the bookmark again to enter it", false);
      } else say((body && body.error) || "error " + res.status, false);
    });
  }, function () {
    say("could not reach " + conf.base + " (is it running? this page may block connections to it)", false);
  }).then(done, done);
})();
`;
