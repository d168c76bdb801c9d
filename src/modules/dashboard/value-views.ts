import type { ExpectedValue } from "../value/model";
import { usd } from "../value/service";
import { html, type Html } from "./html";

/**
 * A job's expected value as one line for a card or the job page: "Worth ~$3.10; costs $2.40 in Connects",
 * green when it covers its cost and red when it does not (the figures say the same in words). The tooltip says
 * what the figure rests on, so a reader can tell a market guess from their own record.
 */
export function expectedValueLine(v: ExpectedValue): Html {
  const tone = v.worthIt === null ? "" : v.worthIt ? "good" : "error-text";
  const words = v.words.charAt(0).toUpperCase() + v.words.slice(1);
  return html`<p class="meta expected-value" title="${basisText(v)}"><span class="${tone}">${words}</span>${v.worthIt === false && " · less than it costs"}</p>`;
}

const pct = (p: number) => `${Math.round(p * 100)} %`;

/** What the line rests on, in words: each chance with the counts behind it, the value and the Connects. */
export function basisText(v: ExpectedValue): string {
  const b = v.basis;
  const band = b.scoreBand === "unscored" ? "unscored jobs" : `score band ${b.scoreBand}`;
  const mine = b.freelancerId === null ? "your" : "this freelancer's";
  const reply = `reply ${pct(v.pReply)} (${b.replyFrom === "prior" ? "mostly the market's figure" : "your record"}: ${b.repliedInBand} replies to ${b.sentInBand} of ${mine} proposals in ${band})`;
  const hire = `hire after a reply ${pct(v.pHireGivenReply)} (${b.hireFrom === "prior" ? "mostly the market's figure" : "your record"}: ${b.hiresInBand} hires of ${b.repliedInBand} replies)`;
  const value =
    b.valueFrom === "fixed"
      ? `${usd(v.valueUsd!)} fixed budget`
      : b.valueFrom === "hourly"
        ? `${usd(b.hourlyRate!)}/hr × ${b.hoursEstimate} h estimated`
        : "value unknown";
  const connects = `${v.connects} Connects${b.connectsFrom === "default" ? " (the job does not say; assumed)" : ""}`;
  return `Chance of a ${reply} × chance of a ${hire} × ${value}; ${connects}.`;
}
