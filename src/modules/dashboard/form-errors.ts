import { html, type Html } from "./html";

/**
 * Validation messages of the API (schema check and services) as a dashboard
 * form shows them: next to the field they are about, in the words of its
 * label. The API's messages start with the field's body path ("minScore must
 * be…", "config.smtpUrl cannot be used: …", "excludedCountries[0] is not…")
 * and may name other fields inside; each form lists its fields once (path,
 * control id, label) and this turns every path into its label, so no API name
 * reaches a page. Clauses that tell an operator which environment variable to
 * set are dropped: the person at the form is told what the form can change.
 */

/** One field of a form: its API body path, the id of its control (or group heading), and its label's words. */
export interface FormField {
  path: string;
  id: string;
  label: string;
}

export interface FormErrors {
  /** Messages by control id, in the label's words. */
  byId: Map<string, string[]>;
  /** Messages about no field of the form (a limit, a conflict): shown above it. */
  general: string[];
  /** Every message in order, with the id of its field when it has one: the summary above the form. */
  all: { id: string | null; message: string }[];
}

/** The schema check's descriptions of a string, in a person's words. */
const PHRASES: [RegExp, string][] = [
  [/ must be a string of (\d+) to (\d+) characters/g, " must be $1 to $2 characters long"],
  [/ must be a string of at most (\d+) characters/g, " must be at most $1 characters long"],
  [/ must be a non-empty string/g, " must not be empty"],
  [/ must be a string$/, " is not valid: see the hint under the field"],
];

// "; set JOBPILOT_X=true, or list … in JOBPILOT_Y": advice for whoever runs the server, up to the next clause.
const OPERATOR_CLAUSE = /;[^;]*\bJOBPILOT_[A-Z0-9_]+[^;]*/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The API's messages (`details`) sorted onto the form's fields, each reworded with the labels. */
export function formErrors(details: string[], fields: FormField[]): FormErrors {
  // Longest first, so "quietHours.timeZone" wins over "quietHours" and "config.to" never eats "config.token".
  const sorted = [...fields].sort((a, b) => b.path.length - a.path.length);
  const byPath = new Map(sorted.map((f) => [f.path, f]));
  const names = new RegExp(`(?<![\\w.])(${sorted.map((f) => escapeRegExp(f.path)).join("|")})(?:\\[(\\d+)\\])?(?![\\w])`, "g");
  const byId = new Map<string, string[]>();
  const general: string[] = [];
  const all: FormErrors["all"] = [];
  for (const detail of details) {
    // The field the sentence starts with; else the first one it names ("Channel not found: channelIds names …").
    const first = sorted.length > 0 ? new RegExp(names.source).exec(detail) : null;
    const owner = sorted.find((f) => new RegExp(`^${escapeRegExp(f.path)}(?![\\w])`).test(detail)) ?? (first ? byPath.get(first[1]!) : undefined);
    let message = detail.replace(OPERATOR_CLAUSE, "");
    if (sorted.length > 0) {
      message = message.replace(names, (_match, path: string, index: string | undefined, offset: number) => {
        const label = byPath.get(path)!.label;
        const item = index === undefined ? "" : ` (entry ${Number(index) + 1})`;
        // The subject of the sentence as it is; a field named inside it in quotes, so it reads as a name.
        return offset === 0 ? `${label}${item}` : `“${label}”${item}`;
      });
    }
    for (const [pattern, words] of PHRASES) message = message.replace(pattern, words);
    if (owner) byId.set(owner.id, [...(byId.get(owner.id) ?? []), message]);
    else general.push(message);
    all.push({ id: owner?.id ?? null, message });
  }
  return { byId, general, all };
}

/** The messages of one field, under its label: the control names this element's id in aria-describedby. */
export function fieldError(errors: FormErrors | undefined, id: string): Html | false {
  const messages = errors?.byId.get(id);
  return !!messages?.length && html`<p class="field-error error-text" id="${id}Error">${messages.join(" ")}</p>`;
}

/** The attributes that tie a control to its help text and, when it was refused, to its message. */
export function describedBy(errors: FormErrors | undefined, id: string, hasHelp = true): Html {
  const ids = [errors?.byId.get(id)?.length ? `${id}Error` : "", hasHelp ? `${id}Help` : ""].filter(Boolean).join(" ");
  return html`${errors?.byId.get(id)?.length ? html` aria-invalid="true"` : ""}${ids && html` aria-describedby="${ids}"`}`;
}

/** The box above a refused form: what was wrong, each message a link to its field. */
export function errorSummary(errors: FormErrors | undefined, what: string): Html | false {
  return (
    !!errors?.all.length &&
    html`<div class="error" role="alert"><p>${what} was not saved:</p><ul>${errors.all.map(
      (e) => html`<li>${e.id === null ? e.message : html`<a href="#${e.id}">${e.message}</a>`}</li>`,
    )}</ul></div>`
  );
}
