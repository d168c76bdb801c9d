import type { ExperimentAllocation, ExperimentObjective } from "../../db/enums";
import type { ArmResult, Experiment, ExperimentResults } from "../experiments/model";
import { DEFAULT_MARGIN, DEFAULT_MIN_PER_ARM, decide, sampleSizePerArm } from "../experiments/stats";
import { countChart, percent, rateChart } from "./charts";
import { describedBy, errorSummary, fieldError, formErrors, type FormErrors, type FormField } from "./form-errors";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, layout, when } from "./views";

/**
 * The Experiments page: the account's randomized tests, a form to start one, and per experiment its arms
 * filling up, each rate drawn with its interval and the decision in plain words. Every figure comes from the
 * experiments module (experimentResults and its stats); this file only words and draws them.
 */

export const EXPERIMENTS = "/dashboard/experiments";

/** Up to four arms; the form always shows all four, the last two optional (no script needed to add one). */
export const MAX_ARMS = 4;
export const LETTERS = ["A", "B", "C", "D"] as const;

export const OBJECTIVES: { value: ExperimentObjective; label: string; more: string }[] = [
  { value: "replies", label: "Replies per proposal", more: "gets more replies" },
  { value: "replies_per_connect", label: "Replies per Connect spent", more: "gets more replies per Connect" },
  { value: "interviews", label: "Interviews per proposal", more: "gets more interviews" },
  { value: "hires", label: "Hires per proposal", more: "gets more hires" },
];

/**
 * The difference the "not enough yet" sentence sizes the test for: 7 points (11 % → 18 %), the example
 * docs/experiments.md sizes too; smaller ones take more proposals than one freelancer sends in months.
 */
export const TYPICAL_DIFFERENCE = 0.07;
/** The base rate assumed until the control has a rate of its own worth using (11 %: a typical reply rate). */
export const TYPICAL_BASE_RATE = 0.11;

export type ExperimentFormValues = Record<string, string | undefined>;

/** The parts of an arm the form offers, in the API's order; the last four fold away under "More ways this arm can differ". */
export const ARM_PARTS = ["Name", "Prompt", "BidMultiplier", "BoostBids", "Template", "HourlyRate", "FixedBid", "SendDelayMinutes"] as const;
export type ArmPart = (typeof ARM_PARTS)[number];
export const MORE_ARM_PARTS = ["Template", "HourlyRate", "FixedBid", "SendDelayMinutes"] as const satisfies readonly ArmPart[];

/** The form's control ids: one set per arm, numbered from 0 like the API's arms. */
export const armId = (i: number, part: ArmPart) => `arm${i}${part}`;

export const ALLOCATIONS: { value: ExperimentAllocation; label: string }[] = [
  { value: "equal", label: "Equal shares" },
  { value: "thompson", label: "More to the leader (Thompson sampling)" },
];

/** A freelancer the form's "Freelancer" select offers. */
export interface FreelancerChoice {
  id: string;
  name: string;
}

/** Every field of the form for form-errors.ts: the API's body path, the control's id, the label's words. */
export const EXPERIMENT_FORM_FIELDS: FormField[] = [
  { path: "name", id: "name", label: "Experiment name" },
  { path: "feedId", id: "feedId", label: "Feed" },
  { path: "objective", id: "objective", label: "Compare on" },
  { path: "allocation", id: "allocation", label: "Share of new jobs" },
  { path: "freelancerId", id: "freelancerId", label: "Freelancer" },
  ...LETTERS.flatMap((letter, i) => [
    { path: `arms[${i}]`, id: armId(i, "Name"), label: `Arm ${letter}` },
    { path: `arms[${i}].name`, id: armId(i, "Name"), label: `Arm ${letter}: name` },
    { path: `arms[${i}].prompt`, id: armId(i, "Prompt"), label: `Arm ${letter}: letter style` },
    { path: `arms[${i}].bidMultiplier`, id: armId(i, "BidMultiplier"), label: `Arm ${letter}: bid multiplier` },
    { path: `arms[${i}].boostBids`, id: armId(i, "BoostBids"), label: `Arm ${letter}: boost Connects` },
    { path: `arms[${i}].template`, id: armId(i, "Template"), label: `Arm ${letter}: fixed letter` },
    { path: `arms[${i}].hourlyRate`, id: armId(i, "HourlyRate"), label: `Arm ${letter}: hourly rate` },
    { path: `arms[${i}].fixedBid`, id: armId(i, "FixedBid"), label: `Arm ${letter}: fixed-price bid` },
    { path: `arms[${i}].sendDelayMinutes`, id: armId(i, "SendDelayMinutes"), label: `Arm ${letter}: send delay` },
  ]),
  { path: "arms", id: armId(0, "Name"), label: "Arms" },
];

/**
 * The service's sentences that name the API's fields bare (not as body paths form-errors.ts can turn into labels),
 * said with the form's words instead; and its pointer to an API route, which the person at the form has no use for.
 */
const SERVICE_PHRASES: [RegExp, string][] = [
  [/ repeats the name of/, " is the same as"],
  [/ must be a string of 1 to (\d+) characters$/, " must not be empty (at most $1 characters)"],
  [
    / cannot be combined with hourlyRate or fixedBid: .*$/,
    " cannot be combined with an hourly rate or a fixed-price bid: an arm's bid is either a multiple of the usual one or a fixed amount",
  ],
  [
    / cannot be combined with prompt: .*$/,
    " cannot be combined with a letter style: a fixed letter is the letter itself, a letter style tells the writer how to write one",
  ],
  [/^(arms\[\d\]\.sendDelayMinutes) must be an integer between (\d+) and (\d+)$/, "$1 must be a whole number of minutes from $2 to $3 (a week)"],
  [/^freelancerId: freelancer not found.*$/, "freelancerId is not one of this account's freelancers: choose one from the list"],
  [/^allocation must be .*$/, "allocation must be one of the choices listed"],
  [/^objective must be .*$/, "objective must be one of the choices listed"],
];

export function experimentFormErrors(details: string[]): FormErrors {
  // "arms[1].name repeats the name of arms[0]": the second "name" is a word, not the experiment's name field.
  return formErrors(
    details.map((d) => SERVICE_PHRASES.reduce((text, [pattern, words]) => text.replace(pattern, words), d)),
    EXPERIMENT_FORM_FIELDS,
  );
}

/** A control's label: the field's own entry (not the arm as a whole, nor the arms list). */
const labelOf = (id: string) => EXPERIMENT_FORM_FIELDS.find((f) => f.id === id && !f.path.endsWith("]") && f.path !== "arms")!.label;
const objectiveOf = (o: ExperimentObjective) => OBJECTIVES.find((x) => x.value === o)!;

// ---------- words ----------

/** A rate as the page says it: a percent, or per 100 Connects when the objective divides by Connects. */
function rateWords(rate: number, objective: ExperimentObjective): string {
  // An interval's end a rounding error above 0 reads "0 %", not "0.0 %".
  if (rate < 0.0005) return objective === "replies_per_connect" ? "0 per 100 Connects" : "0 %";
  return objective === "replies_per_connect" ? `${Math.round(rate * 1000) / 10} per 100 Connects` : percent(rate);
}

/** A difference of two rates in points (0.07 → "7"): whole points, a tenth below one so a small one is not "0". */
function points(d: number): string {
  const p = Math.abs(d * 100);
  const s = p >= 0.95 ? String(Math.round(p)) : (Math.round(p * 10) / 10).toString();
  return d < 0 && s !== "0" ? `−${s}` : s;
}

const signed = (d: number) => points(d);

/** A send delay as a person says it: "45 min", "2 h", "1 h 30 min", "7 days". */
export function delayWords(minutes: number): string {
  if (minutes >= 1440 && minutes % 1440 === 0) return minutes === 1440 ? "1 day" : `${minutes / 1440} days`;
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** What the arm varies, in a few words: "letter style “Three sentences…”, bid ×1.2, 2 boost Connects". */
export function armChanges(arm: Experiment["arms"][number]): string {
  const parts: string[] = [];
  const quote = (text: string) => `“${text.length > 60 ? `${text.slice(0, 59).trimEnd()}…` : text}”`;
  if (arm.prompt !== null) parts.push(`letter style ${quote(arm.prompt)}`);
  if (arm.template !== null) parts.push(`fixed letter ${quote(arm.template)}`);
  if (arm.bidMultiplier !== null) parts.push(`bid ×${arm.bidMultiplier}`);
  if (arm.hourlyRate !== null) parts.push(`hourly rate ${arm.hourlyRate} USD/h`);
  if (arm.fixedBid !== null) parts.push(`fixed-price bid ${arm.fixedBid} USD`);
  if (arm.boostBids !== null) parts.push(arm.boostBids === 0 ? "no boost (holdout)" : `${arm.boostBids} boost Connects`);
  if (arm.sendDelayMinutes !== null) parts.push(arm.sendDelayMinutes === 0 ? "sent at once" : `sent ${delayWords(arm.sendDelayMinutes)} after applying`);
  return parts.length ? parts.join(", ") : "as usual";
}

/** The proposals per arm the test needs for a typical difference, from the control's own rate once it has one. */
export function neededPerArm(r: ExperimentResults): { perArm: number; difference: number } {
  const control = r.experiment.arms[0]!;
  const observed = control.trials >= DEFAULT_MIN_PER_ARM && control.rate !== null ? control.rate : null;
  // A rate of 0 or one close to 1 has no room for the difference: clamp it to where the sizing is meaningful.
  const base = Math.min(0.8, Math.max(0.02, observed ?? TYPICAL_BASE_RATE));
  return { perArm: sampleSizePerArm(base, TYPICAL_DIFFERENCE, { arms: r.experiment.arms.length }), difference: TYPICAL_DIFFERENCE };
}

const winnerOf = (decision: string, arms: ArmResult[]) => (decision.startsWith("winner:") ? arms.find((a) => `winner:${a.id}` === decision) : undefined);

/**
 * The decision in plain words. A winner is quoted with the difference's always-valid interval (the one that
 * holds however often the page is opened); a running test says how many proposals it needs.
 */
export function decisionWords(r: ExperimentResults, decision: string = r.decision): string {
  const e = r.experiment;
  const [control, ...others] = e.arms;
  const more = objectiveOf(e.objective).more;
  const winner = winnerOf(decision, e.arms);
  if (winner && winner.id !== control!.id && winner.lift?.alwaysValid95 && winner.rate !== null && control!.rate !== null) {
    const [lo, hi] = winner.lift.alwaysValid95 as [number, number];
    return `${winner.name} ${more}: ${rateWords(winner.rate, e.objective)} vs ${rateWords(control!.rate, e.objective)}, difference ${points(winner.rate - control!.rate)} points (${signed(lo)} to ${signed(hi)}), 95 % sure.`;
  }
  if (winner && control!.rate !== null) {
    // The control beat every other arm: quote the closest one, its difference turned round.
    const closest = others.filter((a) => a.rate !== null && a.lift?.alwaysValid95).sort((x, y) => y.rate! - x.rate!)[0];
    if (closest) {
      const [lo, hi] = closest.lift!.alwaysValid95 as [number, number];
      return `${control!.name} ${more}: ${rateWords(control!.rate, e.objective)} vs ${rateWords(closest.rate!, e.objective)} for ${closest.name}, difference ${points(control!.rate - closest.rate!)} points (${signed(-hi)} to ${signed(-lo)}), 95 % sure.`;
    }
  }
  if (decision === "no_difference") {
    return `No difference worth having: every arm is within ${points(DEFAULT_MARGIN)} points of ${control!.name}, 95 % sure. Keep whichever you prefer.`;
  }
  if (decision === "stopped") {
    // What the counts showed at the stop, from the same rule (stats.decide) the running experiment used.
    const at = decide(
      e.arms.map((a) => ({ id: a.id, successes: a.successes, n: a.trials })),
      { controlId: control!.id },
    );
    const then = at.decision === "running" ? "there was no clear answer yet." : decisionWords(r, at.decision);
    return `Stopped: no new jobs are assigned to it. At the stop, ${then}`;
  }
  const { perArm, difference } = neededPerArm(r);
  const unit = e.objective === "replies_per_connect" ? "Connects spent" : "proposals";
  const sofar = e.arms.map((a) => `${a.name} ${a.trials}`).join(", ");
  return `Not enough ${unit} yet: about ${perArm} per arm are needed to tell a difference of ${points(difference)} points (so far: ${sofar}). Keep applying as usual; the answer may come sooner.`;
}

/** The decision as a short label for the list. */
export function decisionLabel(r: ExperimentResults): string {
  const winner = winnerOf(r.decision, r.experiment.arms);
  if (winner) return `Winner: ${winner.name}`;
  if (r.decision === "no_difference") return "No difference";
  if (r.decision === "stopped") return "Stopped";
  return "Running, no answer yet";
}

// ---------- pages ----------

export function experimentListPage(session: DashboardSession, items: ExperimentResults[], feeds: Map<string, string>): Html {
  const body =
    items.length === 0
      ? html`<section class="notice empty-state" aria-labelledby="empty-title"><h2 id="empty-title">No experiments yet</h2>
<p>An experiment sends each new proposal, at random, with one of two to four versions (a letter style, a bid, a boost) and counts which gets more replies. Because the choice is random, a difference it finds is caused by the version, not by easier jobs.</p>
<p><a href="${EXPERIMENTS}/new">Start an experiment</a>, or open a feed and choose “Test a second letter style”.</p></section>`
      : html`<p><a href="${EXPERIMENTS}/new">Start an experiment</a></p>
<ul class="experiment-list">${items.map((r) => {
          const e = r.experiment;
          const feed = e.feedId === null ? "no feed" : (feeds.get(e.feedId) ?? e.feedId);
          return html`<li><a href="${EXPERIMENTS}/${e.id}"><strong>${e.name}</strong></a>
<span class="muted">${e.arms.map((a) => a.name).join(" vs ")} · ${feed} · ${e.arms.reduce((s, a) => s + a.sent, 0)} sent</span>
<span class="experiment-decision${winnerOf(r.decision, e.arms) ? " decided" : ""}">${decisionLabel(r)}</span></li>`;
        })}</ul>`;
  return layout(
    "Experiments",
    html`<p>Randomized tests on your own proposals: which letter style, bid or boost really gets more replies.</p>
${body}`,
    session,
    "experiments",
  );
}

function help(id: string, text: string): Html {
  return html`<p id="${id}Help" class="muted">${text}</p>`;
}

function input(
  v: ExperimentFormValues,
  errors: FormErrors | undefined,
  id: string,
  explain: string,
  opts: { numeric?: boolean; required?: boolean } = {},
): Html {
  return html`<label for="${id}">${labelOf(id)}</label>
${fieldError(errors, id)}
<input type="text" id="${id}" name="${id}" value="${v[id] ?? ""}"${opts.numeric ? html` inputmode="decimal"` : ""}${opts.required ? html` required` : ""}${describedBy(errors, id)}>
${help(id, explain)}`;
}

function textarea(v: ExperimentFormValues, errors: FormErrors | undefined, id: string, explain: string): Html {
  return html`<label for="${id}">${labelOf(id)}</label>
${fieldError(errors, id)}
<textarea id="${id}" name="${id}" rows="3" cols="60"${describedBy(errors, id)}>${v[id] ?? ""}</textarea>
${help(id, explain)}`;
}

/** Whether something was typed into, or refused at, one of these parts of arm i: then its fold stays open. */
const touched = (v: ExperimentFormValues, errors: FormErrors | undefined, i: number, parts: readonly ArmPart[]) =>
  parts.some((p) => (v[armId(i, p)] ?? "").trim() !== "" || errors?.byId.has(armId(i, p)));

function armFieldset(v: ExperimentFormValues, errors: FormErrors | undefined, i: number): Html {
  const letter = LETTERS[i]!;
  const optional = i >= 2;
  // The rarer ways an arm can differ fold away (no script needed), open when they hold a value or a refusal.
  const moreOpen = touched(v, errors, i, MORE_ARM_PARTS);
  return html`<fieldset class="arm">
<legend>Arm ${letter}${i === 0 ? " (the control)" : ""}${optional ? html` <span class="muted">(optional)</span>` : ""}</legend>
${input(v, errors, armId(i, "Name"), optional ? "Leave this arm empty to test fewer versions." : i === 0 ? "What you do today: the other arms are compared to it." : "A short name the results use: “Short letter”.", { required: !optional })}
${textarea(v, errors, armId(i, "Prompt"), "How this arm's letters are written, e.g. “Three sentences at most, start with the client's problem.” Empty: the feed's own letter prompt.")}
${input(v, errors, armId(i, "BidMultiplier"), "Times the bid that would go out otherwise, 0.1 to 10 (1.2 bids 20 % more). Empty: the usual bid.", { numeric: true })}
${input(v, errors, armId(i, "BoostBids"), "Extra Connects to boost each proposal, 0 to 1000; 0 makes a holdout with no boost. Empty: as usual.", { numeric: true })}
<details class="arm-more"${moreOpen ? html` open` : ""}><summary>More ways this arm can differ</summary>
${textarea(v, errors, armId(i, "Template"), "The letter itself, sent as written: {{title}}, {{skills}} and {{name}} (the freelancer) are filled in. Not together with a letter style.")}
${input(v, errors, armId(i, "HourlyRate"), "USD per hour for hourly jobs, 3 to 999, instead of the usual bid. Not together with a bid multiplier.", { numeric: true })}
${input(v, errors, armId(i, "FixedBid"), "USD for fixed-price jobs, 5 to 1,000,000, instead of the usual bid. Not together with a bid multiplier.", { numeric: true })}
${input(v, errors, armId(i, "SendDelayMinutes"), "Minutes the proposal waits after you apply, 0 to 10080 (a week), to measure what speed is worth. Empty: sent at once.", { numeric: true })}
</details>
</fieldset>`;
}

export function experimentFormPage(
  session: DashboardSession,
  opts: { values: ExperimentFormValues; feeds: { id: string; title: string }[]; freelancers: FreelancerChoice[]; errors?: FormErrors },
): Html {
  const v = opts.values;
  const errors = opts.errors;
  const objective = v.objective ?? "replies";
  const allocation = v.allocation ?? "equal";
  // A posted freelancer the list no longer has (or could not be read) stays chosen, for the refusal to explain.
  const picked = (v.freelancerId ?? "").trim();
  const freelancers = picked === "" || opts.freelancers.some((f) => f.id === picked) ? opts.freelancers : [...opts.freelancers, { id: picked, name: picked }];
  // Arms C and D fold away (a <details>: no script needed) unless something was typed into them or refused there.
  const moreArmsOpen = [2, 3].some((i) => touched(v, errors, i, ARM_PARTS));
  return layout(
    "New experiment",
    html`${errorSummary(errors, "The experiment")}
${!!errors?.general.length && html`<p class="error">${errors.general.join(" ")}</p>`}
<p>Each new proposal goes out, at random, as one of the arms; the results page shows which gets more of what you compare on. The first arm is the control.</p>
<form method="post" action="${EXPERIMENTS}" class="experiment-form">
${csrfField(session)}
<fieldset>
<legend>The test</legend>
${input(v, errors, "name", "For you: “Short letter vs long letter”.", { required: true })}
<label for="feedId">${labelOf("feedId")}</label>
${fieldError(errors, "feedId")}
<select id="feedId" name="feedId"${describedBy(errors, "feedId")}><option value="">No feed</option>${opts.feeds.map(
      (f) => html`<option value="${f.id}"${f.id === v.feedId ? html` selected` : ""}>${f.title}</option>`,
    )}</select>
${help("feedId", "Jobs you draft or apply to from this feed join the test on their own. No feed: a proposal joins only when the experiment is named (API, MCP).")}
<label for="objective">${labelOf("objective")}</label>
${fieldError(errors, "objective")}
<select id="objective" name="objective"${describedBy(errors, "objective")}>${OBJECTIVES.map(
      (o) => html`<option value="${o.value}"${o.value === objective ? html` selected` : ""}>${o.label}</option>`,
    )}</select>
${help("objective", "What decides the winner. Replies come soonest; interviews and hires need many more proposals.")}
<label for="allocation">${labelOf("allocation")}</label>
${fieldError(errors, "allocation")}
<select id="allocation" name="allocation"${describedBy(errors, "allocation")}>${ALLOCATIONS.map(
      (a) => html`<option value="${a.value}"${a.value === allocation ? html` selected` : ""}>${a.label}</option>`,
    )}</select>
${help("allocation", "Equal: each arm gets the same share of new jobs. More to the leader: the arm ahead gets more, so fewer proposals go out as the weaker one; every arm keeps at least 10 %.")}
${
  freelancers.length > 0 &&
  html`<label for="freelancerId">${labelOf("freelancerId")}</label>
${fieldError(errors, "freelancerId")}
<select id="freelancerId" name="freelancerId"${describedBy(errors, "freelancerId")}><option value="">Any freelancer</option>${freelancers.map(
    (f) => html`<option value="${f.id}"${f.id === v.freelancerId ? html` selected` : ""}>${f.name}</option>`,
  )}</select>
${help("freelancerId", "Only applications going out as this freelancer join the test; it then assigns jobs when you apply, not when you draft. Any freelancer: all of them.")}`
}
</fieldset>
${armFieldset(v, errors, 0)}
${armFieldset(v, errors, 1)}
<details class="more-arms"${moreArmsOpen ? html` open` : ""}><summary>Add a third or fourth arm</summary>
${Array.from({ length: MAX_ARMS - 2 }, (_, i) => armFieldset(v, errors, i + 2))}
</details>
<button type="submit">Start the experiment</button>
</form>
<p><a href="${EXPERIMENTS}">Cancel</a></p>`,
    session,
    "experiments",
  );
}

function liftText(arm: ArmResult, objective: ExperimentObjective): Html | string {
  if (arm.position === 0) return html`<span class="muted">the control</span>`;
  const av = arm.lift?.alwaysValid95;
  if (!arm.lift || arm.lift.absolute === null || !av) return html`<span class="muted">—</span>`;
  const unit = objective === "replies_per_connect" ? " per 100 Connects" : " points";
  return html`${arm.lift.absolute > 0 ? "+" : ""}${points(arm.lift.absolute)}${unit}<br><span class="muted">${signed(av[0]!)} to ${signed(av[1]!)}</span>`;
}

export function experimentDetailPage(
  session: DashboardSession,
  r: ExperimentResults,
  opts: { feedTitle: string | null; freelancerName?: string | null; promoted?: boolean },
): Html {
  const e = r.experiment;
  const self = `${EXPERIMENTS}/${e.id}`;
  const o = objectiveOf(e.objective);
  const winner = winnerOf(r.decision, e.arms);
  const { perArm } = neededPerArm(r);
  const unit = e.objective === "replies_per_connect" ? "Connects" : "sent";
  const successWord = e.objective === "interviews" ? "Interviews" : e.objective === "hires" ? "Hires" : "Replies";
  // While running, each arm against what a typical difference needs; once decided that number no longer matters.
  const running = r.decision === "running";
  const spent = unit === "sent" ? "proposals sent" : "Connects spent";
  const fill = countChart(
    "fill",
    e.arms.map((a) => ({ label: a.name, count: a.trials, note: running ? `${unit} of about ${perArm}` : unit })),
    { title: "Proposals so far", what: running ? `Each arm's ${spent} against the about ${perArm} a typical difference needs` : `Each arm's ${spent}` },
    running ? { max: Math.max(perArm, ...e.arms.map((a) => a.trials)) } : {},
  );
  const rates = rateChart(
    "rates",
    e.arms.map((a) => ({ label: a.name, sent: a.trials, rate: a.rate, ci: a.ci95, note: a.trials === 0 ? "nothing sent yet" : undefined })),
    { title: `${o.label} per arm`, what: `${o.label} of each arm` },
  );
  const promote =
    winner && e.feedId !== null
      ? winner.prompt !== null
        ? html`<form method="post" action="${self}/promote">${csrfField(session)}<button type="submit">Use the winner for this feed</button></form>
<p class="muted">Makes ${winner.name}'s letter style the letter prompt of ${opts.feedTitle ?? "the feed"}. Stop the experiment below once you are done with it.</p>`
        : html`<p class="muted">${winner.name} has no letter style of its own to copy to the feed: change the feed's bid or boost by hand.</p>`
      : "";
  return layout(
    e.name,
    html`${opts.promoted && html`<p class="notice" role="status">The winner's letter style is now the feed's letter prompt.</p>`}
<dl class="settings">
<dt>Feed</dt><dd>${e.feedId === null ? html`<span class="muted">none: proposals join when the experiment is named</span>` : html`<a href="/dashboard/feeds/${encodeURIComponent(e.feedId)}">${opts.feedTitle ?? e.feedId}</a>`}</dd>
<dt>Compares</dt><dd>${o.label}</dd>
<dt>${labelOf("allocation")}</dt><dd>${ALLOCATIONS.find((a) => a.value === e.allocation)?.label ?? e.allocation}</dd>
${e.freelancerId !== null && html`<dt>Freelancer</dt><dd>${opts.freelancerName ?? e.freelancerId} <span class="muted">(only applications going out as them)</span></dd>`}
<dt>Started</dt><dd>${when(e.createdAt)}</dd>
${e.stoppedAt !== null && html`<dt>Stopped</dt><dd>${when(e.stoppedAt)}</dd>`}
</dl>
<section aria-labelledby="decision-title" class="decision${winner ? " decided" : ""}"><h2 id="decision-title">Decision</h2>
<p role="status">${decisionWords(r)}</p>
${promote}
</section>
<section aria-labelledby="fill-title"><h2 id="fill-title">Proposals so far</h2>
${fill}
</section>
<section aria-labelledby="rates-heading"><h2 id="rates-heading">${o.label}</h2>
${rates}
<p class="muted">The bar is the 95 % interval: where the arm's true rate most likely lies. Under “vs control”, the range is wider: it stays right however often you look.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Arms and their numbers"><table class="arm-numbers"><caption class="visually-hidden">Arms and their numbers</caption>
<thead><tr><th scope="col">Arm</th><th scope="col">${successWord} / sent</th><th scope="col">Rate, 95 %</th><th scope="col">vs control</th></tr></thead>
<tbody>${e.arms.map(
      (a) =>
        html`<tr><th scope="row">${a.name}</th><td>${a.successes} / ${a.sent}${a.excludedEdited > 0 && html`<br><span class="muted">+${a.excludedEdited} edited by hand, left out</span>`}</td><td>${a.rate === null ? html`<span class="muted">—</span>` : html`${rateWords(a.rate, e.objective)}<br><span class="muted">${rateWords(a.ci95[0]!, e.objective)}–${rateWords(a.ci95[1]!, e.objective)}</span>`}</td><td>${liftText(a, e.objective)}</td></tr>`,
    )}</tbody></table></div>
<h3>What each arm changes</h3>
<dl class="settings arm-changes">${e.arms.map((a) => html`<dt>${a.name}</dt><dd>${armChanges(a)}</dd>`)}</dl>
</section>
${
  e.state === "running" &&
  html`<section aria-labelledby="stop-title"><h2 id="stop-title">Stop</h2>
<form method="post" action="${self}/stop">${csrfField(session)}<button type="submit">Stop the experiment</button></form>
<p class="muted">New proposals go out as usual again. The results stay here; proposals already sent keep counting.</p></section>`
}
<p><a href="${EXPERIMENTS}">All experiments</a></p>`,
    session,
    "experiments",
  );
}
