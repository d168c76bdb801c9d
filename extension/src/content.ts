/**
 * Runs on marketplace pages (and the sandbox website's): reads the page through the site adapter and hands the
 * result to the service worker, which alone talks to the paired server. For a submission (part 2) the service
 * worker asks this script, in the apply tab, to read the page, fill the form, highlight it for review, or click
 * submit and confirm; the page logic is in apply.ts.
 */
import { classifyPage, type DomDocument, type DomElement, extractJobs, first, SANDBOX_PREFIX, SELECTORS, sitePath } from "./adapter";
import { boostTyped, fillApplyForm, readApplyPage, readFreelancers, readProposals } from "./apply";
import type { BoostReport, CompanionCommand, PageRead, PageReport } from "./messages";

// The manifest runs this script only on the marketplace and on /sandbox/site/ of a local server, so this page's origin counts as the sandbox's.
const sandboxOrigins = location.pathname.startsWith(`${SANDBOX_PREFIX}/`) ? [location.origin] : [];
const doc = document as unknown as DomDocument;
/** Tells one page load from the next: after a click the service worker waits for a new page. */
const pageId = crypto.randomUUID();

/** Also what wakes a stopped service worker (a review then resumes), so a message lost while it restarts is sent again. */
function report(attempt = 0): void {
  const extraction = extractJobs(doc, location.href, sandboxOrigins, Date.now());
  const message: PageReport = { type: "page", href: location.href, extraction };
  chrome.runtime.sendMessage(message).catch(() => {
    if (attempt < 3) setTimeout(() => report(attempt + 1), 1000);
  });
}

// The visible text is what the contract keeps for diagnosis (what a person saw), so innerText, not textContent.
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
const visibleText = () => (document.body?.innerText ?? "").slice(0, 65_536);

/** The events a page's framework listens to, as a user's typing would fire them. */
const notify = (el: DomElement) => {
  for (const type of ["input", "change"]) (el as unknown as HTMLElement).dispatchEvent(new Event(type, { bubbles: true }));
};

function read(command: Extract<CompanionCommand, { type: "companion.read" }>): PageRead {
  const path = sitePath(location.href, sandboxOrigins);
  const kind = path === null ? "other" : classifyPage(doc, path);
  return {
    pageId,
    href: location.href,
    kind,
    apply: command.apply ? readApplyPage(doc, location.href, sandboxOrigins, visibleText(), command.apply) : undefined,
    proposals: kind === "proposals" ? readProposals(doc) : undefined,
    freelancers: kind === "profiles" ? readFreelancers(doc) : undefined,
  };
}

/** Review mode: outlines what was filled and says, on the page, that the click is the user's. */
function highlight(filled: string[]): void {
  for (const name of filled) {
    const el = /^applyQuestions\[/.test(name) ? null : (first(doc, name as keyof typeof SELECTORS) as unknown as HTMLElement | null);
    if (el) el.style.outline = "3px solid #f59e0b";
  }
  for (const el of document.querySelectorAll<HTMLElement>(SELECTORS.applyQuestions.css.join(","))) el.style.outline = "3px solid #f59e0b";
  const banner = document.createElement("div");
  banner.setAttribute("data-jobpilot", "review-banner");
  banner.setAttribute("role", "status");
  banner.textContent = "jobpilot filled this proposal (outlined). Check it, then click the submit button yourself. Nothing is sent until you do.";
  banner.style.cssText = "position:sticky;top:0;z-index:2147483647;background:#fef3c7;border:2px solid #f59e0b;padding:8px;font:16px sans-serif";
  document.body.prepend(banner);
  // The user may change the boost before clicking: what the box holds at the click is what they bid, and what the
  // submission's Connects report says. Read in the capture phase, before the click sends the form and unloads the page.
  document.addEventListener(
    "click",
    (event) => {
      const target = event.target as Node | null;
      const buttons = [first(doc, "applySubmit"), first(doc, "applyConfirm")] as unknown as (HTMLElement | null)[];
      if (!target || !buttons.some((b) => b?.contains(target))) return;
      const boost = boostTyped((first(doc, "applyBoost") as unknown as HTMLInputElement | null)?.value ?? "");
      if (boost !== null) chrome.runtime.sendMessage({ type: "boost", boost } satisfies BoostReport).catch(() => {});
    },
    true,
  );
}

const visible = (el: Element | null): el is HTMLElement => !!el && (el as HTMLElement).offsetParent !== null;

/** Auto mode: click submit, then the confirmation modal's checkbox and its button (research §3.2). */
async function submit(): Promise<{ clicked: boolean; confirm?: () => void; message?: string }> {
  const button = first(doc, "applySubmit") as unknown as HTMLElement | null;
  if (!button) return { clicked: false, message: "The submit button was not found" };
  button.click();
  const deadline = Date.now() + 5000;
  for (;;) {
    const confirm = first(doc, "applyConfirm") as unknown as HTMLElement | null;
    if (visible(confirm)) {
      const box = first(doc, "applyConfirmCheckbox") as unknown as HTMLInputElement | null;
      if (box && !box.checked) box.click();
      return { clicked: true, confirm: () => confirm.click() };
    }
    // No modal: the submit button sent the form by itself.
    if (Date.now() > deadline) return { clicked: true };
    await new Promise((r) => setTimeout(r, 100));
  }
}

chrome.runtime.onMessage.addListener((command: CompanionCommand, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || typeof command?.type !== "string" || !command.type.startsWith("companion.")) return;
  switch (command.type) {
    case "companion.read":
      sendResponse(read(command));
      return;
    case "companion.fill":
      // With the page's text, kept by the server when the form cannot be filled as the task asks.
      sendResponse({ ...fillApplyForm(doc, command.op, notify), visibleText: visibleText() });
      return;
    case "companion.highlight":
      highlight(command.filled);
      sendResponse({ ok: true });
      return;
    case "companion.submit":
      void submit().then(({ confirm, ...answer }) => {
        // Answer first: the confirm click unloads the page, and with it this reply's channel.
        sendResponse(answer);
        if (confirm) setTimeout(confirm, 50);
      });
      return true;
  }
});

report();
