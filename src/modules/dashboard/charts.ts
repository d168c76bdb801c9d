import { iso } from "../../lib/time";
import type { ClientSnapshot } from "../clients/service";
import { html, type Html } from "./html";

/**
 * Small server-rendered SVG line charts over time (no script, no inline style:
 * the dashboard's CSP forbids both): labelled axes with units, a title and an
 * aria-label that say what the line shows. The job's proposals and its
 * client's spend and hires all draw through `timeChart`.
 */

const CHART = { width: 360, height: 150, left: 44, right: 12, top: 12, bottom: 34 };

export interface TimePoint {
  /** Unix ms; a point whose time is not finite is kept (shown as "?") but placed by its order. */
  ts: number;
  value: number;
}

export interface TimeChartOpts {
  /** What the line is, capitalised for the label: "Proposals", "Client spend". */
  name: string;
  /** The y axis's label, with its unit: "proposals", "spend (USD)". */
  yLabel: string;
  /** A value as the axis and the text alternative say it. */
  format?: (value: number) => string;
  /** The sentence instead of a chart when there is no point. */
  empty: string;
}

const stamp = (ts: number) => (Number.isFinite(ts) ? iso(ts) : "?");

/** `points` in time order as a line with a dot per point; one point is a dot, none is the `empty` sentence. */
export function timeChart(points: TimePoint[], opts: TimeChartOpts): Html {
  if (points.length === 0) return html`<p class="muted">${opts.empty}</p>`;
  const format = opts.format ?? String;
  const { width, height, left, right, top, bottom } = CHART;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const times = points.map((p) => p.ts);
  const useTime = times.every(Number.isFinite) && Math.max(...times) > Math.min(...times);
  const minT = useTime ? Math.min(...times) : 0;
  const spanT = useTime ? Math.max(...times) - minT : Math.max(1, points.length - 1);
  const maxY = Math.max(1, ...points.map((p) => p.value));
  const xy = points.map((p, i) => {
    const fx = points.length === 1 ? 0.5 : ((useTime ? p.ts : i) - minT) / spanT;
    const x = left + fx * plotW;
    const y = top + plotH - (p.value / maxY) * plotH;
    return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10, p, at: stamp(p.ts) };
  });
  const first = xy[0]!;
  const last = xy[xy.length - 1]!;
  const label = `${opts.name} over time: ${format(first.p.value)} at ${first.at}, ${format(last.p.value)} at ${last.at} (${points.length} point${points.length === 1 ? "" : "s"}, peak ${format(maxY)})`;
  const baseY = top + plotH;
  return html`<svg class="chart" role="img" aria-label="${label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title>${label}</title>
<line x1="${left}" y1="${top}" x2="${left}" y2="${baseY}" stroke="currentColor" stroke-width="1"/>
<line x1="${left}" y1="${baseY}" x2="${width - right}" y2="${baseY}" stroke="currentColor" stroke-width="1"/>
<text x="${left - 4}" y="${top + 4}" text-anchor="end" font-size="10" fill="currentColor">${format(maxY)}</text>
<text x="${left - 4}" y="${baseY}" text-anchor="end" font-size="10" fill="currentColor">${format(0)}</text>
<text x="${left}" y="${height - 6}" font-size="10" fill="currentColor">${first.at.slice(0, 16).replace("T", " ")}</text>
<text x="${width - right}" y="${height - 6}" text-anchor="end" font-size="10" fill="currentColor">${last.at.slice(0, 16).replace("T", " ")}</text>
<text x="${left + plotW / 2}" y="${height - 18}" text-anchor="middle" font-size="10" fill="currentColor">time (UTC)</text>
<text x="10" y="${top + plotH / 2}" text-anchor="middle" font-size="10" fill="currentColor" transform="rotate(-90 10 ${top + plotH / 2})">${opts.yLabel}</text>
${xy.length > 1 && html`<polyline points="${xy.map((q) => `${q.x},${q.y}`).join(" ")}" fill="none" stroke="currentColor" stroke-width="2"/>`}
${xy.map((q) => html`<circle cx="${q.x}" cy="${q.y}" r="3" fill="currentColor"><title>${format(q.p.value)} at ${q.at}</title></circle>`)}
</svg>`;
}

/** US dollars as the charts' axes say them: $950, $12.5k, $1.2M. */
export function usd(n: number): string {
  // Thresholds where the rounded figure would reach the next unit ($999,990 is $1M, not $1000k).
  if (n >= 999_950) return `$${Math.round(n / 100_000) / 10}M`;
  if (n >= 999.5) return `$${Math.round(n / 100) / 10}k`;
  return `$${Math.round(n)}`;
}

/**
 * The client's spend and hires over time: two charts side by side on the same time axis (their units
 * differ), with the numbers as a visually hidden table. The caption says what the points are: the archive
 * keeps one snapshot per job, so each point is one of the company's jobs as it was last seen.
 */
export function clientCharts(snapshots: ClientSnapshot[]): Html {
  if (snapshots.length === 0) return html`<p class="muted">No spend or hires known for this client yet.</p>`;
  const series = (pick: (s: ClientSnapshot) => number | null) =>
    snapshots.flatMap((s) => {
      const value = pick(s);
      return value === null ? [] : [{ ts: s.atTs, value }];
    });
  const n = snapshots.length;
  return html`<figure class="chart client-history">
<figcaption>This client's total spend and hires as ${n === 1 ? "its one archived job" : `its ${n} archived jobs`} showed them, each plotted at the time jobpilot last saw that job: the archive keeps one snapshot per job, not a day-by-day history.</figcaption>
<div class="charts">
${timeChart(
  series((s) => s.spent),
  { name: "Client spend", yLabel: "spend (USD)", format: usd, empty: "Spend not known." },
)}
${timeChart(
  series((s) => s.hires),
  { name: "Client hires", yLabel: "hires", empty: "Hires not known." },
)}
</div>
<div class="visually-hidden"><table><caption>Client spend and hires by the time each job was seen</caption>
<thead><tr><th scope="col">Seen (UTC)</th><th scope="col">Total spend (USD)</th><th scope="col">Hires</th></tr></thead>
<tbody>${snapshots.map((s) => html`<tr><td>${stamp(s.atTs)}</td><td>${s.spent === null ? "unknown" : usd(s.spent)}</td><td>${s.hires ?? "unknown"}</td></tr>`)}</tbody>
</table></div>
</figure>`;
}

// ---------- the Analytics page's charts: one row per group, readable at a phone's width ----------

/** Row charts are drawn at a phone's width and scale up: text stays about 13 px at 390 px. */
const ROWS = { width: 320, pad: 4, rowH: 40, axisH: 24 };

/** A share of 1 as a percent, to a tenth below 10 %: "4.5 %", "32 %". */
export function percent(x: number): string {
  const p = x * 100;
  // Below 0.05 % it would print "0.0 %" (an interval's end a rounding error above 0): plain 0 then.
  return `${p < 10 && p >= 0.05 ? p.toFixed(1) : Math.round(p)} %`;
}

/** A duration as a person reads it: "42 s", "7 min", "3.2 h", "2.1 d". */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (Math.abs(s) < 90) return `${Math.round(s)} s`;
  if (Math.abs(s) < 90 * 60) return `${Math.round(s / 60)} min`;
  if (Math.abs(s) < 36 * 3600) return `${Math.round(s / 360) / 10} h`;
  return `${Math.round(s / 8640) / 10} d`;
}

/** Long group names are cut in the drawing (the table beside it has them whole). */
const short = (label: string, max = 30) => (label.length > max ? `${label.slice(0, max - 1)}…` : label);
const r1 = (n: number) => Math.round(n * 10) / 10;

/** The title and description every chart's SVG carries (axe: an image needs an accessible name). */
function svgOpen(id: string, title: string, desc: string, height: number): Html {
  return html`<svg class="rows-chart" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${ROWS.width} ${height}" width="${ROWS.width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${desc}</desc>`;
}

/** The shared x axis of a row chart: 0, half way and the top of the scale. */
function rowAxis(y: number, max: number, format: (v: number) => string): Html {
  const { width, pad } = ROWS;
  const plot = width - 2 * pad;
  return html`<line x1="${pad}" y1="${y}" x2="${width - pad}" y2="${y}" class="axis"/>
${[0, 0.5, 1].map(
  (f) =>
    html`<text x="${r1(pad + f * plot)}" y="${y + 16}" text-anchor="${f === 0 ? "start" : f === 1 ? "end" : "middle"}" font-size="13" fill="currentColor">${format(max * f)}</text>`,
)}`;
}

export const NOT_ENOUGH = "fewer than 10 sent — not enough to tell";

export interface RateRow {
  label: string;
  sent: number;
  /** The share of sent, null when too few were sent to say. */
  rate: number | null;
  ci: readonly number[] | null;
  /** What a row without a rate says instead of NOT_ENOUGH ("nothing sent yet"). */
  note?: string;
}

/**
 * Rates with their 95 % intervals: per group a dot at the rate and an error bar from the interval's low to its
 * high end, on one scale (0 to a little above the highest high end, so small rates are not squeezed at 0). A group
 * with too few sent says so in place of its bar.
 */
export function rateChart(id: string, rows: RateRow[], opts: { title: string; what: string }): Html {
  const { width, pad, rowH, axisH } = ROWS;
  const plot = width - 2 * pad;
  const highs = rows.flatMap((r) => (r.ci ? [r.ci[1]!] : []));
  const max = Math.min(1, Math.max(0.1, Math.ceil(Math.max(0, ...highs) * 10) / 10));
  const x = (v: number) => r1(pad + (Math.min(v, max) / max) * plot);
  // An axis with no dot on it says nothing: without a single rate the rows are sentences only.
  const anyRate = rows.some((r) => r.rate !== null);
  const height = rows.length * rowH + (anyRate ? axisH + 4 : 0);
  const said = rows.map((r) =>
    r.rate === null
      ? `${r.label}: ${r.note ?? `${NOT_ENOUGH} (${r.sent} sent)`}`
      : `${r.label}: ${percent(r.rate)}, 95 % interval ${percent(r.ci![0]!)} to ${percent(r.ci![1]!)}, of ${r.sent} sent`,
  );
  const body = rows.map((r, i) => {
    const y = i * rowH;
    const value = r.rate === null ? "" : `${percent(r.rate)} (${percent(r.ci![0]!)}–${percent(r.ci![1]!)})`;
    return html`<text x="${pad}" y="${y + 14}" font-size="13" fill="currentColor">${short(r.label, r.rate === null ? 40 : 24)}</text>
${
  r.rate === null
    ? html`<text x="${pad}" y="${y + 31}" font-size="13" class="muted-text">${r.note ?? `${NOT_ENOUGH} (${r.sent} sent)`}</text>`
    : html`<text x="${width - pad}" y="${y + 14}" text-anchor="end" font-size="13" fill="currentColor">${value}</text>
<line x1="${pad}" y1="${y + 26}" x2="${width - pad}" y2="${y + 26}" class="track"/>
<line x1="${x(r.ci![0]!)}" y1="${y + 26}" x2="${x(r.ci![1]!)}" y2="${y + 26}" class="whisker"/>
<line x1="${x(r.ci![0]!)}" y1="${y + 20}" x2="${x(r.ci![0]!)}" y2="${y + 32}" class="whisker"/>
<line x1="${x(r.ci![1]!)}" y1="${y + 20}" x2="${x(r.ci![1]!)}" y2="${y + 32}" class="whisker"/>
<circle cx="${x(r.rate)}" cy="${y + 26}" r="5" class="dot"/>`
}`;
  });
  return html`${svgOpen(id, opts.title, `${opts.what}, each with its 95 % interval drawn as an error bar. ${said.join("; ")}.`, height)}
${body}
${anyRate && rowAxis(rows.length * rowH + 2, max, percent)}
</svg>`;
}

export interface CountRow {
  label: string;
  count: number;
  /** What the row says after the count: "(32 % of sent)". */
  note: string;
}

/**
 * Counts as horizontal bars on one scale (the funnel: every stage a share of sent). `scale.max` fixes the
 * full width (an experiment's arms against the proposals they need) instead of the largest count.
 */
export function countChart(id: string, rows: CountRow[], opts: { title: string; what: string }, scale: { max?: number } = {}): Html {
  const { width, pad, rowH } = ROWS;
  const plot = width - 2 * pad;
  const max = Math.max(1, scale.max ?? 0, ...rows.map((r) => r.count));
  const height = rows.length * rowH;
  const body = rows.map((r, i) => {
    const y = i * rowH;
    const w = r.count === 0 ? 1 : Math.max(2, r1((r.count / max) * plot));
    return html`<text x="${pad}" y="${y + 14}" font-size="13" fill="currentColor">${r.label}</text>
<text x="${width - pad}" y="${y + 14}" text-anchor="end" font-size="13" fill="currentColor">${r.count}${r.note && ` ${r.note}`}</text>
<rect x="${pad}" y="${y + 20}" width="${w}" height="12" class="${r.count === 0 ? "bar-zero" : "bar"}"/>`;
  });
  const said = rows.map((r) => `${r.label} ${r.count}${r.note && ` ${r.note}`}`).join(", ");
  return html`${svgOpen(id, opts.title, `${opts.what}: ${said}.`, height)}
${body}
</svg>`;
}

export interface SpeedRow {
  label: string;
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
}

/** Speed to lead: per stage a bar to its p90 with the p50 drawn over it, on one time scale. */
export function speedChart(id: string, rows: SpeedRow[], opts: { title: string; what: string }): Html {
  const { width, pad, rowH, axisH } = ROWS;
  const plot = width - 2 * pad;
  const max = Math.max(1000, ...rows.map((r) => r.p90Ms ?? 0));
  const x = (v: number) => Math.max(2, r1((Math.max(0, v) / max) * plot));
  const height = rows.length * rowH + axisH + 4;
  const said = rows.map((r) =>
    r.count === 0 || r.p50Ms === null
      ? `${r.label}: no job reached it`
      : `${r.label}: p50 ${duration(r.p50Ms)}, p90 ${duration(r.p90Ms!)} over ${r.count} jobs`,
  );
  const body = rows.map((r, i) => {
    const y = i * rowH;
    if (r.count === 0 || r.p50Ms === null) {
      return html`<text x="${pad}" y="${y + 14}" font-size="13" fill="currentColor">${r.label}</text>
<text x="${pad}" y="${y + 31}" font-size="13" class="muted-text">no job reached this stage yet</text>`;
    }
    return html`<text x="${pad}" y="${y + 14}" font-size="13" fill="currentColor">${r.label}</text>
<text x="${width - pad}" y="${y + 14}" text-anchor="end" font-size="13" fill="currentColor">p50 ${duration(r.p50Ms)} · p90 ${duration(r.p90Ms!)}</text>
<rect x="${pad}" y="${y + 20}" width="${x(r.p90Ms!)}" height="12" class="bar-soft"/>
<rect x="${pad}" y="${y + 20}" width="${x(r.p50Ms)}" height="12" class="bar"/>`;
  });
  return html`${svgOpen(id, opts.title, `${opts.what}. ${said.join("; ")}.`, height)}
${body}
${rowAxis(rows.length * rowH + 2, max, duration)}
</svg>`;
}
