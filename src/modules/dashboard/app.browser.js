// The dashboard's own script (served at /dashboard/app.js, next to htmx), for what only the browser can do well:
// show times relative and in the reader's own language and time zone, copy a secret to the clipboard, the inbox's
// keyboard shortcuts, the stages of writing a proposal as they happen, and the unread count in the tab title.
// Pages are complete without it: times stay absolute (UTC), secrets stay selectable text, every shortcut is a
// button or link on the page, and the copy and close buttons are rendered hidden.
(() => {
  const lang = navigator.language || "en";
  const rel = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const abs = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  const units = [
    ["year", 31536e6],
    ["month", 2592e6],
    ["week", 6048e5],
    ["day", 864e5],
    ["hour", 36e5],
    ["minute", 6e4],
    ["second", 1e3],
  ];
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
      button.onclick = () =>
        navigator.clipboard.writeText(target.textContent.trim()).then(() => {
          button.textContent = "Copied";
        });
    }
  }
  function closeButtons(root) {
    for (const button of root.querySelectorAll("button[data-close-panel]")) {
      button.hidden = false;
      button.onclick = closePanel;
    }
  }
  // The outcome form's "When" is a wall time in the reader's zone: the form sends the zone's name along, says
  // which zone it is, and lets the calendar go up to now there (without script all of it is UTC, and says so).
  function zones(root) {
    let zone = "";
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch {
      return;
    }
    if (!zone) return;
    for (const input of root.querySelectorAll("input[data-time-zone]")) input.value = zone;
    for (const el of root.querySelectorAll("[data-time-zone-name]")) el.textContent = zone;
    const now = new Date();
    const local = new Date(now.getTime() - now.getTimezoneOffset() * 6e4).toISOString().slice(0, 16);
    for (const input of root.querySelectorAll("input[data-local-max]")) input.max = local;
  }
  function enhance(root) {
    times(root);
    zones(root);
    copyButtons(root);
    closeButtons(root);
  }
  document.addEventListener("DOMContentLoaded", () => enhance(document));
  // Rows htmx swaps in get the same treatment.
  document.addEventListener("htmx:afterSwap", (e) => enhance(e.detail.elt.parentNode || document));

  // ---- the inbox ----
  const panel = () => document.getElementById("panel");
  function closePanel() {
    const p = panel();
    if (!p || !document.body.classList.contains("panel-open")) return;
    document.body.classList.remove("panel-open");
    const card = selected();
    if (card) card.querySelector("a.open")?.focus();
  }
  function cards() {
    return [...document.querySelectorAll("#cards .card")];
  }
  // By id: a triaged card is swapped for a new element and stays selected.
  let selectedId = null;
  function selected() {
    const card = selectedId && document.getElementById(selectedId);
    if (card) card.classList.add("selected");
    return card || null;
  }
  function select(card) {
    if (!card) return;
    selectedId = card.id;
    for (const c of cards()) c.classList.toggle("selected", c === card);
    card.scrollIntoView({ block: "nearest" });
    card.querySelector("a.open, button")?.focus();
  }
  function press(root, key) {
    root?.querySelector('button[data-key="' + key + '"]')?.click();
  }
  // The tab title and the count follow the server's unread count, wherever it arrives from.
  function unread(n) {
    if (Number.isNaN(n)) return;
    document.title = document.title.replace(/^\(\d+\) /, "");
    if (n > 0) document.title = "(" + n + ") " + document.title;
  }
  document.addEventListener("htmx:afterSettle", (e) => {
    selected(); // a card swapped in (triaged, or read as the panel opened) stays marked as the selected one
    const from = document.querySelector("#new-badge[data-unread]");
    const count = document.getElementById("unread-count");
    if (count) unread(Number(count.dataset.unread));
    else if (from) unread(Number(from.dataset.unread));
    if (e.detail.target && e.detail.target.id === "panel") {
      document.body.classList.add("panel-open");
      document.getElementById("panel-title")?.focus();
    }
  });
  document.addEventListener("htmx:afterSwap", (e) => {
    // The badge's poll carries the latest unread count.
    if (e.detail.elt && e.detail.elt.id === "new-badge") {
      const n = Number(e.detail.elt.dataset.unread);
      const count = document.getElementById("unread-count");
      if (count && !Number.isNaN(n)) {
        count.dataset.unread = String(n);
        count.textContent = n + " unread";
      }
      unread(n);
    }
  });
  document.addEventListener("click", (e) => {
    const open = e.target.closest?.("#cards a.open");
    if (open) {
      const card = open.closest(".card");
      select(card);
      card.classList.remove("unread");
      card.querySelector(".unread-badge")?.remove();
    }
  });
  // Writing a proposal: the job's form is posted here, with everything in it (the picked freelancer too), to
  // the button's formaction, and the answer read as it streams — each stage as the server starts it (kept in
  // a list with the seconds it took, the current one ticking), then the panel or page to show (progress.ts).
  // The form's buttons stay disabled meanwhile; an answer that is not a stream (a refusal page) is shown as
  // it is. Caught while capturing, before htmx's own listener on the form would post it to apply.
  const secs = (ms) => (ms / 1000).toFixed(1) + " s";
  document.addEventListener("submit", async (e) => {
    const button = e.submitter?.dataset?.progress ? e.submitter : null;
    const form = e.target;
    if (!button || !window.fetch || !window.ReadableStream || !window.htmx) return;
    e.preventDefault();
    e.stopPropagation();
    if (form.dataset.busy) return;
    const out = document.getElementById(button.dataset.progress);
    const text = out?.querySelector(".progress-text");
    const list = out?.querySelector(".stages");
    const buttons = [...form.querySelectorAll("button[type=submit]:not([disabled])")];
    const inPanel = !!form.closest("#panel");
    const started = Date.now();
    let current = null;
    let currentAt = 0;
    const tick = () => {
      if (text) text.textContent = (current ? current.textContent : "Writing the proposal") + "… " + Math.round((Date.now() - started) / 1000) + " s";
    };
    const stage = (label, atMs) => {
      if (current) {
        current.classList.add("done");
        current.textContent += " — " + secs(atMs - currentAt);
      }
      current = document.createElement("li");
      current.textContent = label;
      currentAt = atMs;
      list?.append(current);
      tick();
    };
    form.dataset.busy = "1";
    form.classList.add("writing");
    out?.classList.remove("failed");
    for (const b of buttons) b.disabled = true;
    if (list) list.replaceChildren();
    tick();
    const ticking = setInterval(tick, 1000);
    // A failure stays on screen (the spinner stops) until the next try.
    const fail = (message) => {
      clearInterval(ticking);
      out?.classList.add("failed");
      if (text) text.textContent = message;
    };
    const show = (html) => {
      if (inPanel) window.htmx.swap(panel(), html, { swapStyle: "innerHTML" });
      else {
        const doc = new DOMParser().parseFromString(html, "text/html");
        const main = doc.querySelector("main");
        if (!main) {
          document.documentElement.innerHTML = doc.documentElement.innerHTML;
          return;
        }
        document.title = doc.title;
        window.htmx.swap(document.querySelector("main"), main.innerHTML, { swapStyle: "innerHTML" });
        window.scrollTo(0, 0);
      }
      enhance(inPanel ? panel() : document);
    };
    try {
      const headers = { accept: "text/event-stream" };
      if (inPanel) headers["hx-request"] = "true";
      const res = await fetch(button.formAction, { method: "POST", body: new URLSearchParams(new FormData(form)), headers, credentials: "same-origin" });
      if (!(res.headers.get("content-type") || "").startsWith("text/event-stream")) {
        form.classList.remove("writing");
        show(await res.text());
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] || "null");
          if (event === "stage") stage(data.text, data.atMs);
          else if (event === "done") show(data.html);
          else if (event === "failed") {
            fail(data.message);
            return;
          }
        }
      }
      form.classList.remove("writing");
    } catch {
      fail("The connection was lost while writing. Try again.");
    } finally {
      clearInterval(ticking);
      delete form.dataset.busy;
      for (const b of buttons) b.disabled = false;
    }
  });
  // The `a` shortcut asks before it sends (job-views.ts renders the dialog): one key pressed by mistake must
  // not spend a credit and the freelancer's Connects. The dialog names who the application goes out as.
  function confirmApply(root) {
    const apply = root?.querySelector('button[data-key="a"]');
    const dialog = apply?.form?.querySelector("dialog[data-confirm-apply]");
    if (!apply || apply.disabled) return;
    if (!dialog || typeof dialog.showModal !== "function") {
      apply.click();
      return;
    }
    const picker = apply.form.querySelector('select[name="profileId"]');
    const as = dialog.querySelector("[data-confirm-as]");
    if (as) as.textContent = picker?.selectedOptions[0] ? picker.selectedOptions[0].textContent : "your primary profile";
    dialog.querySelector("[data-confirm-send]").onclick = () => {
      dialog.close();
      apply.click();
    };
    dialog.querySelector("[data-confirm-cancel]").onclick = () => {
      dialog.close();
      apply.focus();
    };
    dialog.showModal();
    dialog.querySelector("[data-confirm-cancel]").focus();
  }
  document.addEventListener("keydown", (e) => {
    if (!document.getElementById("cards") || e.ctrlKey || e.metaKey || e.altKey) return;
    // An open dialog (the apply confirmation) has the keyboard: its own Esc closes it, not the panel.
    if (document.querySelector("dialog[open]")) return;
    const t = e.target;
    const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (e.key === "Escape") {
      closePanel();
      return;
    }
    if (typing) return;
    const list = cards();
    const current = selected();
    const at = current ? list.indexOf(current) : -1;
    switch (e.key) {
      case "j":
        select(list[Math.min(list.length - 1, at + 1)]);
        break;
      case "k":
        select(list[Math.max(0, at - 1)]);
        break;
      case "o":
      case "Enter":
        if (current && e.key === "o") current.querySelector("a.open")?.click();
        else return;
        break;
      case "s":
        press(current, "s");
        break;
      case "x":
        press(current, "x");
        break;
      case "d":
        press(panel(), "d");
        break;
      case "a":
        confirmApply(panel());
        break;
      case "?": {
        const help = document.getElementById("keys-help");
        if (help) {
          help.open = !help.open;
          if (help.open) help.querySelector("summary").focus();
        }
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  });
})();
