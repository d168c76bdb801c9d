/** The options page: pairing (the dashboard's pairing line → the companion's own API key) and watch mode. */
import type { Settings } from "./messages";
import { DEFAULT_INTERVAL_MIN } from "./messages";
import { hostPermissionFor, readPairingInput } from "./pairing";
import { readInterval, watchStateLine } from "./watch";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => {
  $("status").textContent = text;
};

/** An error shown under its field, in the field's own words; null clears it. */
function fieldError(field: "server" | "code" | "urls" | "interval" | "risk", text: string | null): void {
  const box = $(`${field}-error`);
  box.textContent = text ?? "";
  box.hidden = text === null;
  $<HTMLInputElement>(field).setAttribute("aria-invalid", text === null ? "false" : "true");
}

/** Whether the companion reaches its server now, as the poll last found it (companion.ts keeps `connection`). */
function pairedLine(s: Settings): { text: string; state: string } {
  if (!s.apiKey) return { text: "Not paired yet.", state: "unpaired" };
  if (s.connection === "connected") return { text: `Paired with ${s.server}. Connected.`, state: "connected" };
  if (s.connection === "unreachable")
    return { text: `Paired with ${s.server}, but this browser could not reach it. ${s.lastStatus ?? ""}`, state: "unreachable" };
  if (s.connection === "refused") return { text: `Paired with ${s.server}, but it refused this companion's key: pair again.`, state: "unreachable" };
  if (s.connection === "replaced")
    return {
      text: `Replaced: the account on ${s.server} paired another browser companion since, which revoked this browser's key. Pair again here to use this browser instead.`,
      state: "unreachable",
    };
  return { text: `Paired with ${s.server}. Connecting…`, state: "paired" };
}

/**
 * The watch form shows what is saved when the page opens and after each save; the worker's own writes (each watch
 * turn records its state) re-render the page but must not undo what the user is typing.
 */
let watchFormFilled = false;

function fillWatchForm(s: Settings): void {
  watchFormFilled = true;
  $<HTMLTextAreaElement>("urls").value = (s.watchUrls ?? []).join("\n");
  $<HTMLInputElement>("interval").value = String(s.intervalMin ?? DEFAULT_INTERVAL_MIN);
  $<HTMLInputElement>("enabled").checked = s.watchEnabled === true;
  $<HTMLInputElement>("risk").checked = s.watchEnabled === true && s.watchRiskAccepted === true;
  showRisk();
}

/** Ticking Watch shows the marketplace's rule and the confirmation before it can be saved on. */
function showRisk(): void {
  $("watch-risk").hidden = !$<HTMLInputElement>("enabled").checked;
}

/** The paired server as last rendered: the Allow button must ask at once, without reading storage first. */
let pairedServer: string | undefined;

async function render(): Promise<void> {
  const s = (await chrome.storage.local.get(null)) as Settings;
  pairedServer = s.apiKey ? s.server : undefined;
  if (document.activeElement !== $("server")) $<HTMLInputElement>("server").value = s.server ?? "";
  const paired = pairedLine(s);
  $("paired").textContent = paired.text;
  $("paired").dataset.state = paired.state;
  // A server elsewhere whose host this browser has not allowed yet (the prompt was dismissed, or taken back later).
  const wanted = s.apiKey && s.server ? hostPermissionFor(s.server) : null;
  const missing = wanted !== null && !(await chrome.permissions.contains({ origins: [wanted] }));
  $("access").hidden = !missing;
  if (missing)
    $("access-text").textContent = `To read the sandbox website ${new URL(s.server!).host} serves, this browser must allow the companion on that host.`;
  const watch = watchStateLine(s);
  $("watch-state").textContent = watch.text;
  $("watch-state").dataset.state = watch.state;
  if (!watchFormFilled) fillWatchForm(s);
  status(
    [
      s.needsYou ? `Needs you: the marketplace shows a ${s.needsYou} page. Solve it in the watch tab and watching resumes.` : "",
      s.lastStatus ?? "",
      `${s.sentCount ?? 0} jobs sent so far.`,
    ]
      .filter(Boolean)
      .join(" · "),
  );
}

$<HTMLFormElement>("pair").addEventListener("submit", (event) => {
  event.preventDefault();
  fieldError("server", null);
  fieldError("code", null);
  const input = readPairingInput($<HTMLInputElement>("server").value, $<HTMLInputElement>("code").value);
  if ("error" in input) {
    fieldError(input.field, input.error);
    return;
  }
  const { server, code } = input;
  $<HTMLInputElement>("server").value = server;
  // Asked now, while the click still counts as the user's gesture (Chrome refuses the prompt later). Pairing does
  // not wait for it: the server's API answers CORS, and only reading its sandbox website needs this access.
  const wanted = hostPermissionFor(server);
  const access = wanted ? chrome.permissions.request({ origins: [wanted] }).catch(() => false) : Promise.resolve(true);
  const button = $<HTMLButtonElement>("pair-button");
  button.disabled = true;
  void (async () => {
    try {
      let res: Response;
      try {
        res = await fetch(`${server}/api/v1/companion/pair`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code }),
          credentials: "omit",
        });
      } catch {
        fieldError("server", `Could not reach ${server}. Check the address: opening it in this browser should show jobpilot.`);
        return;
      }
      const body = (await res.json().catch(() => ({}))) as { apiKey?: string; error?: string };
      if (res.status !== 201 || !body.apiKey) {
        // The server's sentence is written for a person (an unknown, used or expired code; the account's key limit).
        if (res.status === 404 || res.status === 409 || res.status === 400) fieldError("code", body.error ?? "The server refused this pairing code.");
        else fieldError("server", `Pairing failed: ${server} answered ${res.status}. Is this the address of a jobpilot server?`);
        return;
      }
      await chrome.storage.local.set({ server, apiKey: body.apiKey, connection: undefined, lastStatus: "paired" } satisfies Settings);
      $<HTMLInputElement>("code").value = "";
      await render();
      if (!(await access))
        status(`Paired. Access to ${new URL(server).host} was not allowed, so the sandbox website it serves will not be read; jobs and proposals still work.`);
    } finally {
      button.disabled = false;
    }
  })();
});

$("allow-host").addEventListener("click", () => {
  const wanted = pairedServer ? hostPermissionFor(pairedServer) : null;
  // Straight from the click: Chrome shows the prompt only during the user's gesture.
  if (wanted) void chrome.permissions.request({ origins: [wanted] }).then(render, render);
});

$("enabled").addEventListener("change", () => {
  showRisk();
  fieldError("risk", null);
});
$("risk").addEventListener("change", () => {
  if ($<HTMLInputElement>("risk").checked) fieldError("risk", null);
});

$<HTMLFormElement>("watch").addEventListener("submit", (event) => {
  event.preventDefault();
  for (const field of ["urls", "interval", "risk"] as const) fieldError(field, null);
  const lines = $<HTMLTextAreaElement>("urls")
    .value.split("\n")
    .map((u) => u.trim())
    .filter(Boolean);
  const enabled = $<HTMLInputElement>("enabled").checked;
  let ok = true;
  const bad = lines.find((line) => !URL.canParse(line) || !/^https?:$/.test(new URL(line).protocol));
  if (bad) {
    fieldError("urls", `Saved searches to watch: "${bad}" is not a web address (https://…).`);
    ok = false;
  } else if (enabled && lines.length === 0) {
    fieldError("urls", "Saved searches to watch: add at least one marketplace search URL to watch.");
    ok = false;
  }
  const interval = readInterval($<HTMLInputElement>("interval").value);
  if ("error" in interval) {
    fieldError("interval", interval.error);
    ok = false;
  }
  const accepted = $<HTMLInputElement>("risk").checked;
  if (enabled && !accepted) {
    fieldError("risk", "I understand the risk: tick it to turn watch mode on, or untick Watch.");
    ok = false;
  }
  if (!ok || "error" in interval) return;
  const patch: Settings = { watchUrls: lines, intervalMin: interval.minutes, watchEnabled: enabled, watchRiskAccepted: enabled && accepted };
  void chrome.storage.local.set(patch).then(async () => {
    fillWatchForm((await chrome.storage.local.get(null)) as Settings);
    await render();
  });
});

chrome.storage.onChanged.addListener(() => void render());
chrome.permissions.onAdded.addListener(() => void render());
chrome.permissions.onRemoved.addListener(() => void render());
void render();
