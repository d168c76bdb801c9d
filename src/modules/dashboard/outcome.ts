import { isKnownZone, zonedInstants } from "../../lib/time-zone";
import { OutcomeBody } from "../applications/model";
import type { FormErrors } from "./form-errors";
import { numberOrText, schemaErrors } from "./http";
import { outcomeErrors, type OutcomeValues } from "./outcome-views";

/**
 * The outcome form's strings → the API's outcome body (OutcomeBody), checked against its schema as the API
 * route checks it, so the dashboard and the API refuse the same things. The rules of what may be recorded
 * (forwards only, not in the future…) stay in recordOutcome; only turning a browser's wall time into a UTC
 * instant is the dashboard's own.
 */

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?$/;

/**
 * A datetime-local value ("2026-12-02T10:15") read as a wall time in `zone` → Unix ms; null when it is not one.
 * A wall time shown twice (clocks going back) is the first of the two; one skipped by clocks going forward is the
 * moment of the change.
 */
export function localToUtc(value: string, zone: string): number | null {
  const m = LOCAL.exec(value.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 31 February over into March: such a day is not one.
  if (new Date(wall).getUTCDate() !== d) return null;
  if (zone === "" || zone === "UTC") return wall;
  return zonedInstants(zone, y, mo, d, h, mi, s)[0]!;
}

export type ParsedOutcome = { ok: true; body: OutcomeBody } | { ok: false; errors: FormErrors };

/** The posted form as the body recordOutcome takes, or the messages to show next to its fields. */
export function parseOutcomeForm(v: OutcomeValues, currentNote: string | null): ParsedOutcome {
  const outcome = (v.outcome ?? "").trim();
  if (outcome === "") return { ok: false, errors: outcomeErrors(["Choose what happened."]) };
  const zone = (v.tz ?? "").trim();
  const body: Record<string, unknown> = { outcome };
  const own: string[] = [];
  // The contract value is shown for a hire only; a number typed before switching to another choice is not sent.
  const value = (v.valueUsd ?? "").trim().replace(/^\$/, "").replaceAll(",", "");
  if (outcome === "hired" && value !== "") body.valueUsd = numberOrText(value);
  const at = (v.at ?? "").trim();
  if (at !== "") {
    if (zone !== "" && !isKnownZone(zone))
      own.push(`at cannot be read: your browser's time zone (${zone}) is not known here; reload the page, or leave it empty for now.`);
    else {
      const ts = localToUtc(at, zone);
      if (ts === null) own.push("at is not a date and time: pick one with the field's calendar, or leave it empty for now.");
      else body.at = ts;
    }
  }
  // The box starts with the note saved before, so what it holds when sent is the note as the user wants it.
  const note = v.note ?? "";
  if (note.trim() !== "" || (currentNote !== null && note !== currentNote)) body.note = note.trim();
  const details = [...own, ...schemaErrors(OutcomeBody, body)];
  if (details.length > 0) return { ok: false, errors: outcomeErrors(details) };
  return { ok: true, body: body as OutcomeBody };
}
