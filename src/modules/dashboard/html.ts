/**
 * A tiny HTML template tag. Every interpolated value is escaped unless it is
 * already Html (a nested html`` or a raw() fragment), so page code cannot
 * forget to escape something a user typed. Arrays are joined, null,
 * undefined and false render nothing (handy for `cond && html`...``).
 *
 * The escape stays hand-written while decoding uses the `entities` package
 * (src/lib/html.ts): escaping & < > " ' is the whole rule for text and quoted
 * attribute values, which are the only places templates interpolate, and five
 * fixed replacements are easier to audit than a dependency's options.
 */
import { escapeHtml } from "../../lib/html";
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Marks a trusted fragment (never anything a user typed) as already HTML. */
export function raw(value: string): Html {
  return new Html(value);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}
