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
