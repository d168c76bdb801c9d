/**
 * What a feed does with a job that passed its filters, given the account's client list and the job's signals
 * (issue 45): a blocked client's job is kept out; a signal the feed drops keeps it out; otherwise it goes in with
 * its flags, marked when the client is favoured. The same verdict serves ingestion and the feed preview.
 */
import type { ClientList } from "../../db/enums";
import type { JobSignal, SignalId } from "../jobs/signals";

export const SIGNAL_ACTIONS = ["warn", "drop"] as const;
export type SignalAction = (typeof SIGNAL_ACTIONS)[number];
export type SignalRules = Partial<Record<SignalId, SignalAction>>;

export interface ListEntry {
  list: ClientList;
  reason: string | null;
}

export type Verdict =
  /** Kept out: `filter` is "blocked-client" or "signal:<id>"; `reason` says why in words. */
  | { kind: "drop"; filter: string; reason: string }
  /** Goes in (subject to its score, unless favoured and the feed alerts favoured clients regardless). */
  | { kind: "admit"; favoured: boolean; flags: JobSignal[] };

export function verdictFor(rules: SignalRules, signals: readonly JobSignal[], entry: ListEntry | null): Verdict {
  if (entry?.list === "blocked") return { kind: "drop", filter: "blocked-client", reason: entry.reason ? `Blocked client: ${entry.reason}` : "Blocked client" };
  // A favoured client is the user's own judgement: signals still show as flags, but no rule drops the job.
  if (entry?.list !== "favoured") {
    const dropped = signals.find((s) => rules[s.id] === "drop");
    if (dropped) return { kind: "drop", filter: `signal:${dropped.id}`, reason: dropped.say };
  }
  return { kind: "admit", favoured: entry?.list === "favoured", flags: [...signals] };
}
