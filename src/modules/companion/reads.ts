/**
 * The governor's companionReadsPerHour: the pages the browser companion captures (job pages, searches) or reads
 * ("my proposals") in any 60 minutes, per account. A person does not load the marketplace hundreds of times an hour,
 * so past the cap the capture or read is refused with a 429 that names the limit and when it frees, and the extension
 * stops watching until then.
 *
 * Counted in the database, not in memory, so every node of a cluster counts the same reads: one row per account and
 * minute in rate_limit_counters (the accounts module's counters, which a restart keeps and which are pruned after
 * a day), under its own bucket so no API rate limit ever reads them.
 */
import { tx, type Db } from "../../db/client";
import { AppError } from "../../errors";
import type { Clock } from "../../lib/clock";
import * as tasks from "../../marketplace/companion/repo";
import { parseProposalsList } from "../../marketplace/remote/operations";
import { addCounts, readCounts } from "../accounts/repo";
import { audit, limitsFor } from "../automation/governor";

export const READS_BUCKET = "companion-reads";
const SLOT_MS = 60_000;
const HOUR_MS = 60 * SLOT_MS;
const SLOTS = HOUR_MS / SLOT_MS;

/** What the extension was doing when it was counted, for the audit entry of a refusal. */
export type CompanionRead = "a job page capture" | 'a "my proposals" read';

/**
 * Counts one read of the account's companion, or refuses it (429, retry-after) when the last hour's reads reach the
 * cap; each refusal is written once to the automation audit log. The check and the count are one transaction, so two
 * nodes cannot both take the last read of the hour.
 */
export async function countCompanionRead(deps: { db: Db; clock: Clock }, accountId: string, what: CompanionRead): Promise<void> {
  const refused = await tx(deps.db, async (db) => {
    const nowTs = deps.clock.now();
    const current = nowTs - (nowTs % SLOT_MS);
    // The minute slots whose reads still count: a read leaves the count when an hour has passed since its minute began.
    const refs = Array.from({ length: SLOTS }, (_, i) => ({
      keyId: accountId,
      bucket: READS_BUCKET,
      window: "day" as const,
      windowStartTs: current - i * SLOT_MS,
    }));
    const counts = await readCounts(db, refs);
    const total = counts.reduce((a, b) => a + b, 0);
    const { limits } = await limitsFor(db, accountId, null);
    const cap = limits.companionReadsPerHour;
    if (total < cap) {
      await addCounts(db, [{ ...refs[0]!, delta: 1 }]);
      return null;
    }
    const freesAt = cap === 0 ? null : freedAt(refs, counts, total, cap);
    const when = freesAt === null ? "never while it is 0: raise it on the dashboard's Auto-apply page" : `at ${new Date(freesAt).toISOString()}`;
    const message = `companionReadsPerHour: the browser companion may capture or read ${cap} marketplace pages an hour and has used them (${total} in the last hour); the next one frees ${when}`;
    await audit(db, {
      accountId,
      freelancerId: null,
      applicationId: null,
      action: "refuse",
      rule: `companion reads: ${total} of ${cap} in the last hour`,
      detail: `refused ${what}; frees ${when}`,
      atTs: nowTs,
    });
    return { message, retryAfterS: freesAt === null ? HOUR_MS / 1000 : Math.max(1, Math.ceil((freesAt - nowTs) / 1000)) };
  });
  if (refused) throw new AppError("rate_limited", refused.message, {}, { "retry-after": String(refused.retryAfterS) });
}

/** When enough of the oldest reads have left the hour for the count to fall under the cap. */
function freedAt(refs: { windowStartTs: number }[], counts: number[], total: number, cap: number): number {
  let left = total;
  for (let i = counts.length - 1; i >= 0; i--) {
    if (counts[i] === 0) continue;
    left -= counts[i]!;
    if (left < cap) return refs[i]!.windowStartTs + HOUR_MS;
  }
  return refs[0]!.windowStartTs + HOUR_MS;
}

const ENGAGEMENT = "proposal.engagement";
/** How many of the account's newest engagement answers are searched for one that already carried this read. */
const SAME_READ_ANSWERS = 50;

/**
 * A proposal.engagement answer that carries a "my proposals" read the server has not had yet counts as one read;
 * the other answers the same read serves (one sync asks about every proposal) do not. Refused, the task is given up
 * (a new one is queued at the next sync) rather than left claimed and blocking the application's engagement reads.
 * An answer that would not be taken anyway (another account's task, a settled one) is left to the driver to refuse.
 */
export async function countProposalsRead(deps: { db: Db; clock: Clock }, accountId: string, taskId: string, result: unknown): Promise<void> {
  const list = parseProposalsList(result);
  if (!list) return;
  const task = await tasks.findTask(deps.db, taskId);
  if (!task || task.accountId !== accountId || task.type !== ENGAGEMENT || (task.state !== "queued" && task.state !== "claimed")) return;
  const seen = (await tasks.recentAnswers(deps.db, accountId, ENGAGEMENT, SAME_READ_ANSWERS)).some((row) => {
    const earlier = parseProposalsList(row.answer);
    return earlier !== null && earlier.readAt === list.readAt && earlier.url === list.url;
  });
  if (seen) return;
  try {
    await countCompanionRead(deps, accountId, 'a "my proposals" read');
  } catch (err) {
    await tasks.moveTask(deps.db, taskId, ["queued", "claimed"], "expired", { endedAtTs: deps.clock.now() });
    throw err;
  }
}
