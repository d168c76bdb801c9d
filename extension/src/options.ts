/** The options page: pairing (server address + one-time code → the companion's own API key) and watch mode. */
import type { Settings } from "./messages";
import { DEFAULT_INTERVAL_MIN, MIN_INTERVAL_MIN } from "./messages";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => {
  $("status").textContent = text;
};

async function render(): Promise<void> {
  const s = (await chrome.storage.local.get(null)) as Settings;
  $<HTMLInputElement>("server").value = s.server ?? "";
  $("paired").textContent = s.apiKey ? `Paired with ${s.server}.` : "Not paired yet.";
  $<HTMLTextAreaElement>("urls").value = (s.watchUrls ?? []).join("\n");
  $<HTMLInputElement>("interval").value = String(s.intervalMin ?? DEFAULT_INTERVAL_MIN);
  $<HTMLInputElement>("enabled").checked = s.watchEnabled === true;
  status(
    [
      s.needsYou ? `Needs you: the marketplace shows a ${s.needsYou} page. Solve it in the watch tab and watching resumes.` : "",
      s.lastStatus ?? "",
      `${s.sentCount ?? 0} jobs sent so far.`,
    ]
      .filter(Boolean)
      .join(" "),
  );
}

$<HTMLFormElement>("pair").addEventListener("submit", (event) => {
  event.preventDefault();
  void (async () => {
    let server: string;
    try {
      const url = new URL($<HTMLInputElement>("server").value.trim());
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
      server = url.origin;
    } catch {
      status("The server address must be an http or https URL.");
      return;
    }
    try {
      const res = await fetch(`${server}/api/v1/companion/pair`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: $<HTMLInputElement>("code").value.trim() }),
        credentials: "omit",
      });
      const body = (await res.json().catch(() => ({}))) as { apiKey?: string; error?: string };
      if (res.status !== 201 || !body.apiKey) {
        status(`Pairing failed: ${body.error ?? `the server answered ${res.status}`}`);
        return;
      }
      await chrome.storage.local.set({ server, apiKey: body.apiKey, lastStatus: "paired" } satisfies Settings);
      $<HTMLInputElement>("code").value = "";
      await render();
    } catch {
      status(`Could not reach ${server}.`);
    }
  })();
});

$<HTMLFormElement>("watch").addEventListener("submit", (event) => {
  event.preventDefault();
  const watchUrls = $<HTMLTextAreaElement>("urls")
    .value.split("\n")
    .map((u) => u.trim())
    .filter(Boolean);
  const intervalMin = Math.max(MIN_INTERVAL_MIN, Number($<HTMLInputElement>("interval").value) || DEFAULT_INTERVAL_MIN);
  void chrome.storage.local.set({ watchUrls, intervalMin, watchEnabled: $<HTMLInputElement>("enabled").checked } satisfies Settings).then(render);
});

chrome.storage.onChanged.addListener(() => void render());
void render();
