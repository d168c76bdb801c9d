import { Cron } from "croner";
import type { Deps } from "../../deps";
import type { JobSource, SourceState } from "../../sources/source";
import { SourceError } from "../../sources/source";
import { Loop } from "../../worker/loop";
import { ingestDocuments } from "./ingest";
import { findSourceState, recordPoll } from "./repo";

/** How often each source's loop wakes to see whether it is due; the source's own interval decides when it polls. */
const TICK_MS = 1000;
/** A failing source waits interval × 2^failures, but never longer than this (or its interval, when longer). */
export const MAX_SOURCE_BACKOFF_MS = 60 * 60_000;

/**
 * When a source polls next: its interval (or cron schedule) after a success, a
 * growing back-off after failures (interval × 2^failures, at most an hour
 * or the interval when that is longer),
 * never before a server's Retry-After.
 */
export function nextRunAt(nowTs: number, source: Pick<JobSource, "intervalMs" | "cron">, failures: number, retryAfterMs?: number): number {
  let next: number;
  // A failing source is never polled sooner than its interval (Remotive's terms allow a few requests a day, failing or not).
  if (failures > 0)
    next = nowTs + Math.min(Math.max(MAX_SOURCE_BACKOFF_MS, source.intervalMs), Math.max(source.intervalMs, 1000) * 2 ** Math.min(failures, 20));
  else if (source.cron) next = new Cron(source.cron, { paused: true }).nextRun(new Date(nowTs))?.getTime() ?? nowTs + source.intervalMs;
  else next = nowTs + source.intervalMs;
  return Math.max(next, nowTs + (retryAfterMs ?? 0));
}

function describeError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 500 ? `${message.slice(0, 497)}...` : message;
}

/**
 * One poll of one source, start to end: ask it for documents with its stored
 * state, ingest them (de-duplicated, so a known job never re-enters a feed or
 * notifies again), and record the outcome and the next run in source_state.
 * Never throws: a failure is the source's last error and its back-off.
 */
export async function pollSource(deps: Deps, source: JobSource): Promise<{ ok: boolean; seen: number; inserted: number; error?: string }> {
  const startedTs = deps.clock.now();
  const row = await findSourceState(deps.db, source.name);
  const state = (row?.state ?? {}) as SourceState;
  try {
    const result = await source.poll({ nowTs: startedTs, state, fetch, log: deps.log.child({ source: source.name }) });
    const ingested = result.docs.length ? await ingestDocuments(deps, result.docs, { source: source.name }) : null;
    if (ingested && ingested.rejected > 0)
      deps.log.warn("source produced invalid documents", { source: source.name, rejected: ingested.rejected, errors: ingested.errors.slice(0, 5) });
    if (ingested && ingested.notes.length > 0)
      deps.log.warn("source produced documents with values left out", { source: source.name, count: ingested.notes.length, notes: ingested.notes.slice(0, 5) });
    const nowTs = deps.clock.now();
    const seen = result.docs.length;
    const inserted = ingested?.inserted ?? 0;
    await recordPoll(deps.db, source.name, nowTs, {
      ok: true,
      state: result.state ?? state,
      seen,
      inserted,
      nextRunAtTs: nextRunAt(nowTs, source, 0, result.retryAfterMs),
    });
    deps.metrics.sourcePolls.labels(source.name, "ok").inc();
    if (seen) deps.log.debug("source polled", { source: source.name, seen, inserted, matched: ingested?.matched ?? 0 });
    return { ok: true, seen, inserted };
  } catch (err) {
    deps.metrics.sourcePolls.labels(source.name, "error").inc();
    const nowTs = deps.clock.now();
    const failures = (row?.consecutiveFailures ?? 0) + 1;
    const error = describeError(err);
    // Anything may be thrown (even null); only a finite retryAfterMs is a server's request to wait.
    const asked = typeof err === "object" && err !== null ? (err as { retryAfterMs?: unknown }).retryAfterMs : undefined;
    const retryAfterMs = typeof asked === "number" && Number.isFinite(asked) ? asked : undefined;
    await recordPoll(deps.db, source.name, nowTs, { ok: false, error, nextRunAtTs: nextRunAt(nowTs, source, failures, retryAfterMs) });
    // A SourceError needs the user (re-authorise, fix config): say so loudly; a network blip only warns.
    if (err instanceof SourceError) deps.log.error("source needs attention", { source: source.name, error, failures });
    else deps.log.warn("source poll failed", { source: source.name, error, failures });
    return { ok: false, seen: 0, inserted: 0, error };
  }
}

/**
 * One loop per source. Each tick it polls only when the source is due by the
 * schedule stored in source_state, so back-off and Retry-After survive a
 * restart, and a slow or failing source never delays another.
 */
export function sourceLoops(deps: Deps, sources: JobSource[]): Loop[] {
  return sources.map((source) => {
    // The first poll after start is immediate unless a stored schedule (back-off) says later.
    let dueTs: number | undefined;
    return new Loop({
      name: `source:${source.name}`,
      intervalMs: Math.min(TICK_MS, source.intervalMs),
      log: deps.log,
      run: async () => {
        dueTs ??= (await findSourceState(deps.db, source.name))?.nextRunAtTs ?? 0;
        if (deps.clock.now() < dueTs) return;
        await pollSource(deps, source);
        dueTs = (await findSourceState(deps.db, source.name))?.nextRunAtTs ?? deps.clock.now() + source.intervalMs;
      },
    });
  });
}
