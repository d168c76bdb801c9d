/**
 * The browser companion as a job source. It is not polled: the user's browser sends what it sees, and reports
 * whether its watch mode is running or waiting for the user (a login or bot-check page). Each account's
 * companion has its own row in source_state, named `companion/<accountId>`, so `jobpilot source status` and the
 * dashboard show its last capture and its "needs you" state like any source's last poll and error.
 */
import type { Db } from "../../db/client";
import { findSourceState, recordPoll } from "./repo";

export const COMPANION_SOURCE = "companion";
export const companionSourceName = (accountId: string) => `${COMPANION_SOURCE}/${accountId}`;

/** A batch the companion sent: counted as one successful poll (which also clears a "needs you"). */
export async function recordCompanionCapture(db: Db, accountId: string, nowTs: number, counts: { seen: number; inserted: number }): Promise<void> {
  const name = companionSourceName(accountId);
  const state = (await findSourceState(db, name))?.state ?? {};
  await recordPoll(db, name, nowTs, { ok: true, state: { ...state, watch: "watching" }, seen: counts.seen, inserted: counts.inserted, nextRunAtTs: nowTs });
}

/** The companion's watch state: "needs you" is recorded as the source's current error, anything else clears it. */
export async function recordCompanionWatch(db: Db, accountId: string, nowTs: number, report: { needsYou: string | null; watch: string }): Promise<void> {
  const name = companionSourceName(accountId);
  if (report.needsYou !== null) {
    await recordPoll(db, name, nowTs, { ok: false, error: `needs you: ${report.needsYou}`, nextRunAtTs: nowTs });
    return;
  }
  const state = (await findSourceState(db, name))?.state ?? {};
  await recordPoll(db, name, nowTs, { ok: true, state: { ...state, watch: report.watch }, seen: 0, inserted: 0, nextRunAtTs: nowTs });
}
