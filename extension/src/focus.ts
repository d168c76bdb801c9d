/**
 * The dashboard's "waiting for your review" link opens this page: it asks the service worker to bring the tab with
 * the filled proposal form to the front, then says whether it could.
 */
const applicationId = new URLSearchParams(location.search).get("application") ?? "";
const statusLine = document.getElementById("status")!;
void chrome.runtime.sendMessage({ type: "focus", applicationId }).then((focused: boolean) => {
  statusLine.textContent = focused
    ? "The proposal form is in the tab now in front. Check it and click submit yourself; you can close this page."
    : "No proposal form of this application is waiting for review in this browser (it was sent, or the review ended).";
});
export {};
