/**
 * The dashboard's own script (served at /dashboard/app.js, next to htmx), for
 * the two things only the browser can do well: show times relative and in the
 * reader's own language and time zone, and copy a secret to the clipboard.
 * Pages are complete without it: times stay absolute (UTC) and secrets stay
 * selectable text; the copy buttons are rendered hidden and shown by it.
 */
export const APP_SCRIPT = `(() => {
  const lang = navigator.language || "en";
  const rel = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const abs = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  const units = [["year", 31536e6], ["month", 2592e6], ["week", 6048e5], ["day", 864e5], ["hour", 36e5], ["minute", 6e4], ["second", 1e3]];
  function relative(ms) {
    for (const [unit, size] of units) if (Math.abs(ms) >= size || unit === "second") return rel.format(Math.round(ms / size), unit);
  }
  function times(root) {
    for (const el of root.querySelectorAll("time[datetime]")) {
      const at = Date.parse(el.getAttribute("datetime"));
      if (Number.isNaN(at)) continue;
      el.title = abs.format(at);
      el.textContent = relative(at - Date.now());
    }
  }
  function copyButtons(root) {
    for (const button of root.querySelectorAll("button[data-copy]")) {
      const target = document.getElementById(button.dataset.copy);
      if (!target || !navigator.clipboard) continue;
      button.hidden = false;
      button.onclick = () => navigator.clipboard.writeText(target.textContent.trim()).then(() => { button.textContent = "Copied"; });
    }
  }
  function enhance(root) { times(root); copyButtons(root); }
  document.addEventListener("DOMContentLoaded", () => enhance(document));
  // Rows htmx swaps in get the same treatment.
  document.addEventListener("htmx:afterSwap", (e) => enhance(e.detail.elt.parentNode || document));
})();
`;
