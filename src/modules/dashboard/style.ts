/**
 * The dashboard's one stylesheet, embedded so the binary serves it with no
 * files beside it and pages need no CDN. System fonts, one column that widens
 * on larger screens, and a focus ring that is always visible.
 */
export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #fff; --raised: #f6f8fa; --line: #d0d7de; --accent: #0b5cad; --on-accent: #fff; --bad: #b42318; --good: #1a7f37; --warn: #8a5300; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --raised: #161b22; --line: #30363d; --accent: #58a6ff; --on-accent: #0d1117; --bad: #f85149; --good: #3fb950; --warn: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header nav { display: flex; gap: 1rem; flex-wrap: wrap; flex: 1; }
.menu summary { cursor: pointer; padding: .2rem .6rem; border: 1px solid var(--line); border-radius: 4px; font-weight: 600; }
/* Narrow screens: the links hide behind the Menu toggle (a <details> just before the nav) and open as a list. */
@media (max-width: 47.99rem) {
  header > strong { flex: 1; }
  .menu:not([open]) + nav { display: none; }
  .menu[open] + nav { order: 3; flex-basis: 100%; flex-direction: column; gap: 0; }
  .menu[open] + nav a { padding: .5rem 0; border-bottom: 1px solid var(--line); }
  .menu[open] + nav a[aria-current=page] { border-bottom-color: var(--accent); }
  /* Signing out is in the menu too, so the closed header is one line. */
  .menu:not([open]) ~ form { display: none; }
  .menu[open] ~ form { order: 4; flex-basis: 100%; }
}
@media (min-width: 48rem) { .menu { display: none; } }
header form { margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type=text], input[type=password], input[type=url], input[type=number], input[type=time], textarea, select { width: 100%; max-width: 32rem; padding: .5rem; font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
button { margin-top: .75rem; padding: .45rem 1rem; font: inherit; color: var(--on-accent); background: var(--accent); border: 0; border-radius: 4px; cursor: pointer; }
button.link { margin: 0; padding: 0; color: var(--accent); background: none; text-decoration: underline; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 1rem; padding: 0; list-style: none; }
.stats li { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
.stats strong { display: block; font-size: 1.5rem; }
.muted { color: var(--muted); }
.error { color: var(--bad); border-left: 4px solid var(--bad); padding: .25rem .75rem; }
.notice { border-left: 4px solid var(--good); padding: .25rem .75rem; }
code.secret { display: block; overflow-wrap: anywhere; padding: .5rem; border: 1px solid var(--line); border-radius: 4px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td form { margin: 0; }
td form button { margin: 0; padding: .2rem .6rem; }
button.danger { background: var(--bad); }
textarea { min-height: 5rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 1rem 0; padding: .25rem 1rem 1rem; }
legend { font-weight: 700; padding: 0 .25rem; }
input[type=checkbox] { margin-right: .35rem; }
label:has(input[type=checkbox]) { font-weight: 400; }
.badge { display: inline-block; white-space: nowrap; padding: 0 .5rem; border-radius: 999px; border: 1px solid var(--line); font-size: .85rem; font-weight: 600; }
.status-applied, .status-delivered { color: var(--good); border-color: var(--good); }
.status-failed, .status-logged_out, .status-dead, .status-disabled { color: var(--bad); border-color: var(--bad); }
.settings { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.settings dt { font-weight: 600; }
.settings dd { margin: 0; }
.empty { color: var(--muted); font-style: italic; }
.pager { display: flex; gap: 1rem; }
/* Read by screen readers, never seen or scrolled to: a table cannot shrink below its content, so the charts'
   tables sit inside a block with this class; clip-path is the current spelling of clip. */
.visually-hidden { position: absolute !important; width: 1px !important; height: 1px !important; padding: 0 !important; margin: -1px !important; overflow: hidden !important; clip: rect(0 0 0 0) !important; clip-path: inset(50%) !important; white-space: nowrap !important; border: 0 !important; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 1rem; }
.chart { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.chart figcaption { margin-bottom: .25rem; overflow-wrap: anywhere; }
.chart svg { display: block; max-width: 100%; height: auto; }
.chart .bar { fill: var(--accent); }
.chart .bar-zero { fill: var(--line); }
.problems { padding-left: 1.25rem; }
.error-text { color: var(--bad); }
time { text-decoration: underline dotted; text-underline-offset: 2px; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; }
.chart { max-width: 100%; height: auto; }
/* ---- navigation: where you are ---- */
header nav a { text-decoration: none; padding: .15rem 0; border-bottom: 2px solid transparent; }
header nav a:hover { border-bottom-color: var(--line); }
header nav a[aria-current=page] { color: var(--fg); font-weight: 700; border-bottom-color: var(--accent); }
.show-links a[aria-current=page] { color: var(--fg); font-weight: 700; text-decoration: none; }
main.wide { max-width: 90rem; }
/* A table cell breaks a word only when it alone is wider than the column: "anywhere" would let the table squeeze words mid-word. */
code, dd { overflow-wrap: anywhere; }
td { overflow-wrap: break-word; }
/* ---- lists that become cards on a phone (applications, keys, channels) ---- */
table.applications td.primary { min-width: 14rem; }
table.applications .cover-letter { max-width: 28rem; white-space: pre-wrap; }
/* Narrow screens: each row is a card; every cell but the first shows its column's name before its value. */
@media (max-width: 47.99rem) {
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  table.cards tr { border: 1px solid var(--line); border-radius: 8px; padding: .5rem .75rem; margin-bottom: .75rem; }
  table.cards td { border: 0; padding: .2rem 0; min-width: 0; }
  table.cards td.primary { font-weight: 600; font-size: 1.05rem; }
  table.cards td:not(.primary, .unlabelled)::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  table.applications .cover-letter { max-width: 100%; }
}
/* ---- the inbox ---- */
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin-bottom: .5rem; }
.filters > div { flex: 1 1 9rem; min-width: 0; }
.filters label { margin: 0 0 .2rem; font-size: .9rem; }
.filters button { margin: 0; }
input[type=search] { width: 100%; padding: .5rem; font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; }
.inbox-bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; }
.new-badge button { margin: 0; border-radius: 999px; padding: .2rem .9rem; font-weight: 700; }
.inbox { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; }
#cards { display: grid; gap: .75rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; background: var(--bg); min-width: 0; }
.card.unread { border-left: 4px solid var(--accent); }
.card.selected { outline: 2px solid var(--accent); outline-offset: 1px; }
.card.dismissed { opacity: .85; padding: .25rem 1rem; }
.card h2 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.card.read h2 { font-weight: 500; }
.card-head { display: flex; flex-wrap: wrap; gap: .25rem 1rem; justify-content: space-between; align-items: baseline; }
.badges { display: flex; flex-wrap: wrap; gap: .25rem; align-items: center; }
.meta { margin: .25rem 0; color: var(--muted); font-size: .9rem; }
.facts { display: flex; flex-wrap: wrap; gap: .15rem 1rem; list-style: none; padding: 0; margin: .25rem 0; font-size: .9rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; }
.actions form { margin: 0; }
button.small { margin: 0; padding: .2rem .7rem; font-size: .9rem; }
.score-high, .good { color: var(--good); border-color: var(--good); }
.score-mid { color: var(--warn); border-color: var(--warn); }
.score-low { color: var(--bad); border-color: var(--bad); }
.unread-badge { color: var(--accent); border-color: var(--accent); }
.starred-badge { color: var(--warn); border-color: var(--warn); }
.reason { display: inline-block; font-size: .85rem; }
.reason summary { cursor: pointer; color: var(--accent); }
.reason p { margin: .25rem 0; max-width: 30rem; }
.panel { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; background: var(--raised); min-width: 0; }
.panel h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
.panel textarea, .panel input, .panel select { max-width: 100%; }
.panel-head h2 { margin: 0; font-size: 1.2rem; overflow-wrap: anywhere; }
.field-error { margin: .1rem 0; font-weight: 600; }
.progress { display: none; align-items: center; gap: .4rem; margin-left: .75rem; }
form.htmx-request .progress, form.writing .progress { display: flex; flex-wrap: wrap; }
.progress .stages { flex-basis: 100%; margin: .25rem 0 0; padding-left: 1.25rem; font-size: .9rem; }
.progress .stages li.done { color: var(--muted); }
.progress.failed .spinner { display: none; }
.spinner { width: 1rem; height: 1rem; border: 2px solid var(--line); border-top-color: var(--accent); border-radius: 50%; animation: spin .8s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.keys-help { margin-top: 1.5rem; }
.keys-help dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
.keys-help dd { margin: 0; }
kbd { font: .9rem ui-monospace, monospace; border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 4px; padding: 0 .35rem; }
/* Wide screens: the panel sits beside the list; narrow ones: it covers the list like a page of its own. */
@media (min-width: 64rem) {
  .inbox { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); align-items: start; }
  .panel { position: sticky; top: .5rem; max-height: calc(100vh - 1rem); overflow: auto; }
}
@media (max-width: 63.99rem) {
  .panel { display: none; }
  body.panel-open .panel { display: block; position: fixed; inset: 0; z-index: 10; overflow: auto; border-radius: 0; }
  body.panel-open { overflow: hidden; }
}
`;
