import type { FunnelGroup, MinScoreSuggestion, SpeedResponse } from "../analytics/model";
import { countChart, duration, NOT_ENOUGH, percent, rateChart, speedChart, type RateRow } from "./charts";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { layout } from "./views";

/**
 * The Analytics page: what the account's own proposals say about what wins. Every figure comes from the
 * analytics module (funnelAnalytics, speedToLead); this file only draws them, as row charts drawn at a
 * phone's width (charts.ts) with the numbers in a table under each.
 */

export const ANALYTICS = "/dashboard/analytics";

export const RANGES = [
  { value: "7", label: "Last 7 days", days: 7 },
  { value: "30", label: "Last 30 days", days: 30 },
  { value: "90", label: "Last 90 days", days: 90 },
  { value: "all", label: "All time", days: null },
] as const;
export type RangeValue = (typeof RANGES)[number]["value"];

export interface AnalyticsFilters {
  range: RangeValue;
  feedId: string | undefined;
}

export interface AnalyticsData {
  filters: AnalyticsFilters;
  /** The account's feeds, for the filter. */
  feeds: { id: string; title: string }[];
  total: FunnelGroup;
  byFeed: FunnelGroup[];
  byPostAge: FunnelGroup[];
  byScore: FunnelGroup[];
  /** Who drafted (else sent) each proposal: the team's members, and "API key / automation". */
  byMember: FunnelGroup[];
  suggestion: MinScoreSuggestion | null;
  speed: SpeedResponse;
  /** False until the account has sent a proposal at all (whatever the filters): the new user's empty state. */
  everSent: boolean;
  connectPriceUsd: number;
}

const POST_AGE_WORDS: Record<string, string> = {
  "<15m": "sent under 15 min after posting",
  "15-60m": "sent 15–60 min after posting",
  "1-6h": "sent 1–6 h after posting",
  ">6h": "sent over 6 h after posting",
  unknown: "posting time unknown",
};

const BAND_WORDS: Record<string, string> = { unscored: "not scored" };

const money = (usd: number | null) => (usd === null ? "—" : `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`);

/** Connects per reply or hire, to a tenth; null when there is none to divide by. */
const per = (connects: number, n: number) => (n === 0 ? null : Math.round((connects / n) * 10) / 10);

const rateRow = (g: FunnelGroup, label: string): RateRow => ({ label, sent: g.sent, rate: g.replyRate, ci: g.replyRateCi95 });

const rateText = (rate: number | null, ci: readonly number[] | null) =>
  rate === null ? html`<span class="muted">${NOT_ENOUGH}</span>` : html`${percent(rate)} <span class="muted">(${percent(ci![0]!)}–${percent(ci![1]!)})</span>`;

/** The numbers of a chart, in a table a reader can open (and scroll sideways inside, on a phone). */
function numbers(caption: string, groups: FunnelGroup[], labelOf: (g: FunnelGroup) => string, first: string): Html {
  return html`<details class="numbers"><summary>The numbers</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">${first}</th><th scope="col">Sent</th><th scope="col">Replied</th><th scope="col">Reply rate (95 % interval)</th><th scope="col">Hires</th><th scope="col">Connects</th><th scope="col">Cost per reply</th></tr></thead>
<tbody>${groups.map(
    (g) =>
      html`<tr><th scope="row">${labelOf(g)}</th><td>${g.sent}</td><td>${g.replied}</td><td>${rateText(g.replyRate, g.replyRateCi95)}</td><td>${g.hires}</td><td>${g.connectsSpent}</td><td>${money(g.costPerReplyUsd)}</td></tr>`,
  )}</tbody>
</table></div></details>`;
}

function filterForm(data: AnalyticsData): Html {
  const { range, feedId } = data.filters;
  return html`<form method="get" action="${ANALYTICS}" class="analytics-filters" role="search" aria-label="Filter analytics">
<div><label for="range">Sent in</label>
<select id="range" name="range">${RANGES.map((r) => html`<option value="${r.value}"${r.value === range ? html` selected` : ""}>${r.label}</option>`)}</select></div>
<div><label for="feed">Feed</label>
<select id="feed" name="feed"><option value="">All feeds</option>${data.feeds.map(
    (f) => html`<option value="${f.id}"${f.id === feedId ? html` selected` : ""}>${f.title}</option>`,
  )}</select></div>
<div><button type="submit">Show</button></div>
</form>`;
}

/** The query of the page's filters, for the CSV link (the same range and feed). */
export function filterQuery(filters: AnalyticsFilters): string {
  const q = new URLSearchParams();
  if (filters.range !== "30") q.set("range", filters.range);
  if (filters.feedId) q.set("feed", filters.feedId);
  const s = q.toString();
  return s ? `?${s}` : "";
}

function emptyState(): Html {
  return html`<section class="notice empty-state" aria-labelledby="empty-title">
<h2 id="empty-title">Nothing to analyse yet</h2>
<p>This page fills in as you send proposals. After the first one it shows how many were viewed and replied to, interviews and hires, and what the Connects cost per reply and per hire.</p>
<p>Rates (reply rate by feed, by how soon after posting you applied, and by the match score) appear for a group once 10 proposals in it are sent; before that a group says "${NOT_ENOUGH}". A minScore suggestion appears only when the low score bands reply clearly less than the rest.</p>
<p>Replies and views come from the marketplace as it reports them, and from what you record under <strong>Outcome</strong> on a job you applied to. Speed to lead fills in as your feeds alert you about new jobs.</p>
</section>`;
}

function summary(t: FunnelGroup): Html {
  return html`<ul class="stats analytics-stats">
<li><strong>${t.sent}</strong>proposals sent</li>
<li><strong>${t.replyRate === null ? t.replied : percent(t.replyRate)}</strong>${t.replyRate === null ? html`replied <span class="muted">(a rate from 10 sent on)</span>` : `reply rate (${t.replied} replied)`}</li>
<li><strong>${t.hires}</strong>${t.hires === 1 ? "hire" : "hires"}${t.valueUsd > 0 ? html` <span class="muted">worth ${money(t.valueUsd)}</span>` : ""}</li>
<li><strong>${money(t.costPerReplyUsd)}</strong>cost per reply</li>
</ul>`;
}

function funnelSection(t: FunnelGroup): Html {
  const share = (n: number) => (t.enough && t.sent > 0 ? `(${percent(n / t.sent)})` : "");
  const rows = [
    { label: "Sent", count: t.sent, note: "" },
    { label: "Viewed", count: t.viewed, note: share(t.viewed) },
    { label: "Replied", count: t.replied, note: share(t.replied) },
    { label: "Interview", count: t.interviews, note: share(t.interviews) },
    { label: "Hired", count: t.hires, note: share(t.hires) },
  ];
  return html`<section aria-labelledby="funnel-title"><h2 id="funnel-title">Funnel</h2>
${countChart("funnel", rows, { title: "Funnel of the proposals sent", what: "Proposals at each stage, each a share of those sent" })}
<p class="muted">A reply, an interview or a hire counts as viewed too.${!t.enough && ` Shares of sent appear from 10 sent on (now ${NOT_ENOUGH}).`}</p>
<details class="numbers"><summary>The numbers</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="Funnel numbers"><table><caption class="visually-hidden">Funnel numbers</caption>
<thead><tr><th scope="col">Stage</th><th scope="col">Proposals</th><th scope="col">Share of sent (95 % interval)</th></tr></thead>
<tbody>
<tr><th scope="row">Sent</th><td>${t.sent}</td><td>—</td></tr>
<tr><th scope="row">Viewed</th><td>${t.viewed}</td><td>${t.enough ? percent(t.viewed / t.sent) : "—"}</td></tr>
<tr><th scope="row">Replied</th><td>${t.replied}</td><td>${t.enough ? rateText(t.replyRate, t.replyRateCi95) : "—"}</td></tr>
<tr><th scope="row">Interview</th><td>${t.interviews}</td><td>${t.enough ? percent(t.interviews / t.sent) : "—"}</td></tr>
<tr><th scope="row">Hired</th><td>${t.hires}</td><td>${t.enough ? rateText(t.hireRate, t.hireRateCi95) : "—"}</td></tr>
</tbody></table></div></details>
</section>`;
}

function costSection(t: FunnelGroup, priceUsd: number): Html {
  const cpr = per(t.connectsSpent, t.replied);
  const cph = per(t.connectsSpent, t.hires);
  return html`<section aria-labelledby="cost-title"><h2 id="cost-title">Cost</h2>
<dl class="settings">
<dt>Connects spent</dt><dd>${t.connectsSpent} <span class="muted">(${money(t.costUsd)} at ${money(priceUsd)} a Connect)</span></dd>
<dt>Cost per reply</dt><dd>${t.replied === 0 ? html`<span class="muted">no reply yet</span>` : html`${money(t.costPerReplyUsd)} <span class="muted">(${cpr} Connects)</span>`}</dd>
<dt>Cost per hire</dt><dd>${t.hires === 0 ? html`<span class="muted">no hire yet</span>` : html`${money(t.costPerHireUsd)} <span class="muted">(${cph} Connects)</span>`}</dd>
<dt>Value won</dt><dd>${t.valueUsd > 0 ? money(t.valueUsd) : html`<span class="muted">none recorded: give a contract value when you record a hire</span>`}</dd>
</dl>
<p class="muted">Counted over the proposals whose Connects the marketplace reported.</p>
</section>`;
}

function rateSection(
  id: string,
  title: string,
  groups: FunnelGroup[],
  labelOf: (g: FunnelGroup) => string,
  first: string,
  what: string,
  extra: Html | string = "",
): Html {
  return html`<section aria-labelledby="${id}-heading"><h2 id="${id}-heading">${title}</h2>
${
  groups.length === 0
    ? html`<p class="muted">Nothing sent in this range.</p>`
    : html`${rateChart(
        id,
        groups.map((g) => rateRow(g, labelOf(g))),
        { title, what },
      )}
${numbers(title, groups, labelOf, first)}`
}
${extra}
</section>`;
}

function suggestionBox(s: MinScoreSuggestion | null, anyScored: boolean): Html {
  if (s) {
    return html`<div class="notice" role="status"><p><strong>Suggestion: raise minScore to ${s.minScore}.</strong> ${s.reason}</p>
<p>Set it on each feed's <a href="/dashboard/feeds">settings</a>.</p></div>`;
  }
  return html`<p class="muted">${anyScored ? "No minScore change suggested: no low score band replies clearly less than the rest yet." : "No scored proposals yet."}</p>`;
}

/** The team's numbers: one row per member who drafted (else sent) proposals in the range. */
function memberSection(groups: FunnelGroup[]): Html {
  return html`<section aria-labelledby="by-member-heading"><h2 id="by-member-heading">By member</h2>
${
  groups.length === 0
    ? html`<p class="muted">Nothing sent in this range.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Proposals by member"><table><caption class="visually-hidden">Proposals by member</caption>
<thead><tr><th scope="col">Member</th><th scope="col">Proposals</th><th scope="col">Replied</th><th scope="col">Reply rate (95 % interval)</th><th scope="col">Median time to reply</th><th scope="col">Hires</th></tr></thead>
<tbody>${groups.map(
        (g) =>
          html`<tr><th scope="row">${g.label ?? g.key}</th><td>${g.sent}</td><td>${g.replied}</td><td>${rateText(g.replyRate, g.replyRateCi95)}</td><td>${g.medianReplyMs === null || g.medianReplyMs === undefined ? "—" : duration(g.medianReplyMs)}</td><td>${g.hires}</td></tr>`,
      )}</tbody></table></div>
<p class="muted">Each proposal counts for the member who drafted it (an approved draft stays the bidder's), else the one who sent it. Time to reply: from sending to the client's first reply.</p>`
}
</section>`;
}

const SPEED_STAGES = [
  ["firstSeen", "First seen by jobpilot"],
  ["scored", "Scored into a feed"],
  ["alerted", "Alert delivered"],
  ["drafted", "Letter drafted"],
  ["submitted", "Proposal sent"],
] as const;

function speedSection(speed: SpeedResponse): Html {
  const rows = SPEED_STAGES.map(([key, label]) => ({ label, ...speed.stages[key] }));
  return html`<section aria-labelledby="speed-title"><h2 id="speed-title">Speed to lead</h2>
${
  speed.jobs === 0
    ? html`<p class="muted">No job with a publish time was alerted or applied to in this range yet.</p>`
    : html`<p class="muted">Time from the job's posting to each stage, over ${speed.jobs} ${speed.jobs === 1 ? "job" : "jobs"}: <span class="legend-key" aria-hidden="true"></span> half the jobs were faster (p50), <span class="legend-key soft" aria-hidden="true"></span> nine in ten (p90).</p>
${speedChart("speed", rows, { title: "Speed to lead", what: "Time from posting to each stage, p50 and p90" })}
<details class="numbers"><summary>The numbers</summary>
<div class="table-wrap" tabindex="0" role="region" aria-label="Speed to lead numbers"><table><caption class="visually-hidden">Speed to lead numbers</caption>
<thead><tr><th scope="col">Stage</th><th scope="col">Jobs</th><th scope="col">p50</th><th scope="col">p90</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr><th scope="row">${r.label}</th><td>${r.count}</td><td>${r.p50Ms === null ? "—" : duration(r.p50Ms)}</td><td>${r.p90Ms === null ? "—" : duration(r.p90Ms)}</td></tr>`,
      )}</tbody></table></div></details>`
}
${speed.withoutPublishTime > 0 && html`<p class="muted">${speed.withoutPublishTime} more ${speed.withoutPublishTime === 1 ? "job was" : "jobs were"} left out: the posting has no publish time.</p>`}
</section>`;
}

export function analyticsPage(session: DashboardSession, data: AnalyticsData): Html {
  const t = data.total;
  const csv = `${ANALYTICS}/ledger.csv${filterQuery(data.filters)}`;
  const feedLabel = (g: FunnelGroup) => (g.key === "none" ? "no feed (applied directly)" : (g.label ?? g.key));
  const body = !data.everSent
    ? html`${emptyState()}${data.speed.jobs > 0 && html`<div class="analytics-grid">${speedSection(data.speed)}</div>`}`
    : t.sent === 0
      ? html`<p class="notice" role="status">No proposal was sent in this range${data.filters.feedId ? " from this feed" : ""}. Pick a longer range or all feeds.</p>
<div class="analytics-grid">${speedSection(data.speed)}</div>`
      : html`${summary(t)}
<div class="analytics-grid">
${funnelSection(t)}
${costSection(t, data.connectPriceUsd)}
${rateSection("by-feed", "Reply rate by feed", data.byFeed, feedLabel, "Feed", "Reply rate of the proposals sent from each feed")}
${rateSection("by-age", "Reply rate by post age", data.byPostAge, (g) => POST_AGE_WORDS[g.key] ?? g.key, "Sent", "Reply rate by how long after the job was posted the proposal went out")}
${rateSection(
  "calibration",
  "Calibration: score → reply rate",
  data.byScore,
  (g) => BAND_WORDS[g.key] ?? `score ${g.key}`,
  "Match score",
  "Observed reply rate of each match-score band",
  suggestionBox(
    data.suggestion,
    data.byScore.some((g) => g.key !== "unscored"),
  ),
)}
${memberSection(data.byMember)}
${speedSection(data.speed)}
</div>`;
  return layout(
    "Analytics",
    html`<p>What your own proposals say about what wins. ${data.everSent && html`<a href="${csv}" download>Download CSV</a> <span class="muted">(one row per proposal sent, with these filters)</span>`}</p>
${data.everSent && filterForm(data)}
${body}`,
    session,
    "analytics",
    { wide: true },
  );
}
