// The bookmarklet itself: the tiny script a user keeps in the bookmarks bar as a `javascript:` URL (bookmarklet.ts
// makes the URL). It loads jobpilot's capture script (a fresh copy each click) and says so when the script cannot
// load, e.g. jobpilot is down or the page's security policy blocks it. The placeholder string below is replaced
// with the script's address, as a JSON string literal, when the URL is made.
(() => {
  const src = "{{captureScriptUrl}}";
  const s = document.createElement("script");
  s.src = src + "?t=" + Date.now();
  s.onerror = () => {
    alert("jobpilot: could not load " + src + " (is jobpilot running? does this page block outside scripts?)");
  };
  (document.head || document.documentElement).appendChild(s);
})();
