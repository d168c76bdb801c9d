/**
 * Stage timings for the in-process benchmarks, measured from outside the product code: nothing in src/ knows
 * about them, so production pays nothing (not even an `if (hook)`). Installed in the benchmark's process only:
 *
 * - every SQLite statement: Database.prototype.prepare/query/run are wrapped before the database is opened, so
 *   each statement the repositories prepare reports when it ran, how long, and what it touched (its SQL);
 * - the feed index's match() on the one FeedIndex instance;
 * - globalThis.fetch, which the webhook deliverer's safeFetch calls: when a POST left and its answer came back,
 *   keyed by the webhook-id header (the event id).
 *
 * Every probe appends a Mark to one timeline; the benchmark cuts it into windows (one ingest, one job's
 * webhook) and reads stage boundaries and durations from them. SQLite only: on PostgreSQL the statements run
 * in Bun.SQL and are not observed (the benchmarks say so and print no stages).
 */
import { Database, type Statement } from "bun:sqlite";

export type Kind =
  | "begin"
  | "commit"
  | "rollback"
  | "archive" // jobs, job_tracking
  | "outbox" // feed_jobs, events, scoring tasks, job_scores
  | "due" // the deliverer's scan for due events
  | "attempt" // webhook_attempts (the settle transaction)
  | "sql" // anything else
  | "match"
  | "fetch";

export interface Mark {
  kind: Kind;
  start: number;
  end: number;
  /** Rows returned (selects), for "due": whether the scan found work. */
  rows?: number;
  /** fetch: the webhook-id header. */
  id?: string;
}

export const timeline: Mark[] = [];
let recording = false;
/** Event ids (strings bound to INSERTs into events) of the open transaction, stamped with its COMMIT. */
let pendingEventIds: string[] = [];
export const eventCommittedAt = new Map<string, number>();
let eventIdsWanted = false;

/** Records when each outbox event's transaction committed (eventCommittedAt), for benchmarks that follow events. */
export function probeEventCommits(): void {
  eventIdsWanted = true;
}

function classify(sql: string): Kind {
  const s = sql.trimStart().slice(0, 200).toLowerCase();
  if (s.startsWith("begin")) return "begin";
  if (s.startsWith("commit")) return "commit";
  if (s.startsWith("rollback")) return "rollback";
  if (s.includes("webhook_attempts")) return "attempt";
  if (s.includes("from events where status in")) return "due";
  if (/(into|update|from) "?(jobs|job_tracking)"?\b/.test(s)) return "archive";
  if (/(into|update) "?(feed_jobs|events|tasks|job_scores)"?\b/.test(s)) return "outbox";
  return "sql";
}

function wrapStatement<S extends Statement>(stmt: S, sql: string): S {
  const marked = stmt as S & { __jpStage?: true };
  if (marked.__jpStage) return stmt;
  marked.__jpStage = true;
  const kind = classify(sql);
  const eventInsert = /^\s*insert into "?events"?/i.test(sql);
  for (const method of ["run", "all", "get", "values"] as const) {
    const original = (stmt as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!;
    (stmt as unknown as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
      if (!recording) return original.apply(this, args);
      const start = performance.now();
      const result = original.apply(this, args);
      const end = performance.now();
      timeline.push({ kind, start, end, rows: Array.isArray(result) ? result.length : undefined });
      // Only the event ids (evt_…), and only when a benchmark asked: collecting every id-sized string of every
      // events INSERT cost ~20 ms of a 100-job batch (of ~110) in bench:match, which never reads them.
      if (eventInsert && eventIdsWanted)
        for (const a of args.length === 1 && Array.isArray(args[0]) ? args[0] : args)
          if (typeof a === "string" && a.startsWith("evt_")) pendingEventIds.push(a);
      if (kind === "commit") {
        for (const id of pendingEventIds) eventCommittedAt.set(id, end);
        pendingEventIds = [];
      } else if (kind === "rollback") pendingEventIds = [];
      return result;
    };
  }
  return stmt;
}

let installed = false;
/** Wraps bun:sqlite before any database is opened. Call first thing in the benchmark. */
export function installSqliteProbe(): void {
  if (installed) return;
  installed = true;
  const proto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ["prepare", "query"] as const) {
    const original = proto[method]!;
    proto[method] = function (this: Database, sql: unknown, ...rest: unknown[]) {
      return wrapStatement(original.call(this, sql, ...rest) as Statement, String(sql));
    };
  }
  const run = proto.run!;
  proto.run = function (this: Database, sql: unknown, ...rest: unknown[]) {
    if (!recording) return run.call(this, sql, ...rest);
    const start = performance.now();
    const result = run.call(this, sql, ...rest);
    timeline.push({ kind: classify(String(sql)), start, end: performance.now() });
    return result;
  };
}

/** Times the index's match(). */
export function probeMatch(index: { match: (...a: never[]) => unknown }): void {
  const original = index.match.bind(index) as (...a: unknown[]) => unknown;
  (index as { match: unknown }).match = (...args: unknown[]) => {
    if (!recording) return original(...args);
    const start = performance.now();
    const result = original(...args);
    timeline.push({ kind: "match", start, end: performance.now() });
    return result;
  };
}

/** Times every fetch (the deliverer's POSTs): sent → answer's headers in. */
export function probeFetch(): void {
  const original = globalThis.fetch;
  const wrapped = async (input: string | Request | URL, init?: RequestInit) => {
    if (!recording) return original(input, init);
    const start = performance.now();
    const id = new Headers(init?.headers).get("webhook-id") ?? undefined;
    const res = await original(input, init);
    timeline.push({ kind: "fetch", start, end: performance.now(), id });
    return res;
  };
  globalThis.fetch = Object.assign(wrapped, original) as typeof fetch;
}

export function record(on: boolean): void {
  recording = on;
}

/** The marks since `from` (an index into timeline). */
export const since = (from: number) => timeline.slice(from);

// ------------------------------------------------------------ summaries

export function pct(list: number[], p: number): number {
  if (list.length === 0) return Number.NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export const fmtMs = (ms: number) => (Number.isNaN(ms) ? "–" : ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);

/**
 * One ingest call's time split by stage: each mark is charged with the time from the previous mark's end
 * (or the call's start) to its own end, so the JavaScript that builds a statement counts with it.
 * "prepare" is everything up to BEGIN (normalising, syncing the index, waiting for the write gate);
 * "return" is COMMIT to the call's end.
 */
export function splitIngest(marks: Mark[], t0: number, t1: number): Record<string, number> {
  const out: Record<string, number> = { prepare: 0, archive: 0, match: 0, outbox: 0, "other sql": 0, commit: 0, return: 0 };
  let prev = t0;
  let begun = false;
  for (const m of marks) {
    if (m.start < t0 || m.end > t1) continue;
    const spent = m.end - prev;
    prev = m.end;
    if (!begun) {
      out.prepare! += spent;
      if (m.kind === "begin") begun = true;
      continue;
    }
    const key = m.kind === "archive" || m.kind === "match" || m.kind === "outbox" || m.kind === "commit" ? m.kind : "other sql";
    out[key]! += spent;
    if (m.kind === "commit") break;
  }
  out.return! += t1 - prev;
  return out;
}

/** Prints a table: one row per stage, p50 and p99 of each column of samples. */
export function printStages(title: string, rows: [string, number[]][], note?: string): void {
  console.log(`  ${title}${note ? ` (${note})` : ""}:`);
  const width = Math.max(...rows.map(([n]) => n.length));
  for (const [name, samples] of rows) {
    if (samples.length === 0) continue;
    console.log(`    ${name.padEnd(width)}  p50 ${fmtMs(pct(samples, 0.5)).padStart(9)}  p99 ${fmtMs(pct(samples, 0.99)).padStart(9)}  (n=${samples.length})`);
  }
}
