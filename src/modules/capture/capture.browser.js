/* jobpilot capture: sends the job page you are viewing to your jobpilot server. */
// Served as it is at GET /capture.js (no build step), so what runs is exactly what is reviewed here; the bookmarklet
// (bookmarklet.browser.js) loads a fresh copy each click, so selector fixes reach users without re-installing it.
// It runs inside the job site's page, so it writes to the page only with textContent and keeps its globals to one
// localStorage entry and one window flag.
(() => {
  // biome-ignore lint/suspicious/noRedundantUseStrict: the page loads this as a classic script, which is not strict by default.
  "use strict";
  const STORE = "jobpilot.capture.v1";
  const MAX_HTML = 200000;
  const MAX_TEXT = 100000;
  if (window.__jobpilotCapturing) return;
  window.__jobpilotCapturing = true;
  const done = () => {
    window.__jobpilotCapturing = false;
  };

  // Where this script came from: the default answer when asking for the jobpilot URL.
  let loadedFrom = "";
  try {
    const src = new URL(document.currentScript.src);
    loadedFrom = (src.origin + src.pathname).replace(/\/capture\.js$/, "");
  } catch {
    /* inline copy */
  }

  function say(message, ok) {
    const box = document.createElement("div");
    box.textContent = "jobpilot: " + message;
    const s = box.style;
    s.position = "fixed";
    s.right = "16px";
    s.bottom = "16px";
    s.zIndex = "2147483647";
    s.maxWidth = "360px";
    s.padding = "10px 14px";
    s.borderRadius = "6px";
    s.font = "14px/1.4 system-ui, sans-serif";
    s.color = "#fff";
    s.background = ok ? "#1f7a3f" : "#a42a2a";
    s.boxShadow = "0 2px 8px rgba(0,0,0,.3)";
    (document.body || document.documentElement).appendChild(box);
    setTimeout(() => {
      box.remove();
    }, 7000);
  }

  function clean(text) {
    return (text || "").replace(/\s+/g, " ").trim();
  }
  function textOf(el) {
    // biome-ignore lint/performance/useDomNodeTextContent: innerText is the text as shown (no hidden elements, line breaks kept), which is what a job page says.
    return el ? clean(el.innerText || el.textContent) : "";
  }
  function first(selectors, root) {
    for (let i = 0; i < selectors.length; i++) {
      const el = (root || document).querySelector(selectors[i]);
      if (el && textOf(el)) return el;
    }
    return null;
  }

  // The professional network's job page (logged-in and public layouts), then generic fallbacks.
  const TITLE = [
    ".job-details-jobs-unified-top-card__job-title h1",
    ".job-details-jobs-unified-top-card__job-title",
    ".jobs-unified-top-card__job-title",
    ".top-card-layout__title",
    ".topcard__title",
    "h1",
  ];
  const COMPANY = [
    ".job-details-jobs-unified-top-card__company-name a",
    ".job-details-jobs-unified-top-card__company-name",
    ".jobs-unified-top-card__company-name",
    ".topcard__org-name-link",
    ".top-card-layout__second-subline a",
    "[data-company-name]",
    "[itemprop=hiringOrganization] [itemprop=name]",
  ];
  const LOCATION = [
    ".job-details-jobs-unified-top-card__primary-description-container .tvm__text",
    ".job-details-jobs-unified-top-card__bullet",
    ".jobs-unified-top-card__bullet",
    ".topcard__flavor--bullet",
    "[itemprop=jobLocation]",
    "[class*=job-location]",
    "[class*=jobLocation]",
  ];
  const DESCRIPTION = [
    "#job-details",
    ".jobs-description__content",
    ".jobs-description-content__text",
    ".show-more-less-html__markup",
    ".description__text",
    "[itemprop=description]",
    "[class*=job-description]",
    "[class*=jobDescription]",
    "main article",
    "article",
  ];

  // Most job pages outside the professional network also carry schema.org JobPosting data.
  function jobPosting() {
    const scripts = document.querySelectorAll('script[type="application/ld+json"]');
    for (let i = 0; i < scripts.length; i++) {
      try {
        const data = JSON.parse(scripts[i].textContent);
        const items = [].concat(data?.["@graph"] ? data["@graph"] : data);
        for (let j = 0; j < items.length; j++) if (items[j] && items[j]["@type"] === "JobPosting") return items[j];
      } catch {
        /* not ours to fix */
      }
    }
    return {};
  }

  function read() {
    const ld = jobPosting();
    const org = ld.hiringOrganization || {};
    const place = [].concat(ld.jobLocation || [])[0] || {};
    const address = place.address || {};
    const country = address.addressCountry && (address.addressCountry.name || address.addressCountry);
    const descEl = first(DESCRIPTION);
    const page = {
      url: location.href,
      title: textOf(first(TITLE)) || clean(ld.title) || clean(document.title),
      company: textOf(first(COMPANY)) || clean(typeof org === "string" ? org : org.name) || undefined,
      location: textOf(first(LOCATION)) || clean([address.addressLocality, address.addressRegion, country].filter(Boolean).join(", ")) || undefined,
      platform: /(^|\.)linkedin\.com$/i.test(location.hostname) ? "professional_network" : "web",
    };
    const html = descEl ? descEl.innerHTML : typeof ld.description === "string" ? ld.description : "";
    if (html && html.length <= MAX_HTML) page.descriptionHtml = html;
    // biome-ignore lint/performance/useDomNodeTextContent: as in textOf, the text as shown.
    else page.description = (descEl ? descEl.innerText : document.body?.innerText || "").slice(0, MAX_TEXT);
    const mail = descEl?.querySelector('a[href^="mailto:"]') || document.querySelector('a[href^="mailto:"]');
    if (mail) {
      let email = "";
      try {
        email = decodeURIComponent(mail.getAttribute("href").slice(7).split("?")[0]).split(",")[0].trim();
      } catch {
        /* bad escape */
      }
      if (/^[^\s@]+@[^\s@]+\.[a-z]{2,24}$/i.test(email)) page.contactEmail = email;
    }
    if (page.title.length > 500) page.title = page.title.slice(0, 500);
    return page;
  }

  function settings() {
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(STORE) || "null");
    } catch {
      /* storage blocked or corrupt */
    }
    if (saved?.base && saved.key) return saved;
    let base = prompt("jobpilot: your jobpilot server URL (asked once)", loadedFrom || "http://localhost:3000");
    if (!base) return null;
    try {
      const u = new URL(base.trim());
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
      base = (u.origin + u.pathname).replace(/\/+$/, "");
    } catch {
      say("that is not an http(s) URL", false);
      return null;
    }
    const key = prompt("jobpilot: your API key (stored in this site's localStorage, sent only to " + base + ")");
    if (!key?.trim()) return null;
    saved = { base: base, key: key.trim() };
    try {
      localStorage.setItem(STORE, JSON.stringify(saved));
    } catch {
      /* works this once */
    }
    return saved;
  }

  const conf = settings();
  if (!conf) {
    done();
    return;
  }
  const page = read();
  if (!page.title) {
    say("no job title found on this page", false);
    done();
    return;
  }
  fetch(conf.base + "/api/v1/capture", {
    method: "POST",
    mode: "cors",
    credentials: "omit",
    headers: { "content-type": "application/json", "x-api-key": conf.key },
    body: JSON.stringify(page),
  })
    .then(
      (res) =>
        res
          .json()
          .catch(() => ({}))
          .then((body) => {
            if (res.status === 201) say("saved" + (body.matched ? " and added to " + body.matched + " of your feeds" : ""), true);
            else if (res.status === 200) say("already saved", true);
            else if (res.status === 401) {
              try {
                localStorage.removeItem(STORE);
              } catch {
                /* nothing stored */
              }
              say("the API key was refused; click the bookmark again to enter it", false);
            } else say(body?.error || "error " + res.status, false);
          }),
      () => {
        say("could not reach " + conf.base + " (is it running? this page may block connections to it)", false);
      },
    )
    .then(done, done);
})();
