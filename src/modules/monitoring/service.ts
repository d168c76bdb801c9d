/**
 * What the operator endpoints answer: /readyz (migrations, the database, the background loops) and the
 * scrape-time part of /metrics (what the tables already know, read when Prometheus asks rather than
 * counted as it happens).
 */
import type { Deps } from "../../deps";
import { databaseStats, migrationStatus, type MigrationStatus } from "../../db/status";
import { AppError } from "../../errors";
import { isDirectLoopback } from "../../http/loopback";
import { sameSecret } from "../../lib/same-secret";
import type { LoopHealth } from "../../worker/liveness";
import { queueStats } from "../../worker/tasks";
import { accountHeads } from "../feeds/outbox-fair";

/** A database that has not answered /readyz's query by then counts as down. */
export const READY_DATABASE_TIMEOUT_MS = 2000;

export interface Readiness {
  ready: boolean;
  /** Why it is not ready, one clause per failing check. */
  reason?: string;
  checks: {
    database: { ok: boolean; error?: string };
    storage: { ok: boolean; error?: string };
    migrations: { ok: boolean; applied?: number; expected?: number; pending?: string[]; unknown?: string[] };
    loops: { ok: boolean; loops: LoopHealth[] };
    outbox?: OutboxSummary;
  };
}

/** The outbox at a glance (no account ids: /readyz is unauthenticated; /metrics has them). Informational: it never makes the server unready. */
export interface OutboxSummary {
  /** Accounts with an event due now. */
  accountsWaiting: number;
  /** How long the oldest due event of any account has waited, in seconds (0: none is due). */
  oldestDueAgeS: number;
  /** The median over those accounts of their oldest due event's wait: one account far behind shows as max ≫ median. */
  medianOldestDueAgeS: number;
}

/** Accounts on the metrics gauge at most (the longest-waiting ones): the label's cardinality stays bounded. */
export const OUTBOX_GAUGE_ACCOUNTS = 20;

/** Each account's oldest due event's age in seconds at `nowTs`, longest first (accounts with nothing due left out). */
async function outboxAges(db: Deps["db"], nowTs: number): Promise<{ accountId: string; ageS: number }[]> {
  return (await accountHeads(db))
    .filter((h) => h.oldestDueTs <= nowTs)
    .map((h) => ({ accountId: h.accountId, ageS: (nowTs - h.oldestDueTs) / 1000 }))
    .sort((a, b) => b.ageS - a.ageS);
}

async function outboxSummary(db: Deps["db"], nowTs: number): Promise<OutboxSummary> {
  const ages = await outboxAges(db, nowTs);
  const median = ages.length === 0 ? 0 : ages[Math.floor(ages.length / 2)]!.ageS;
  return { accountsWaiting: ages.length, oldestDueAgeS: ages[0]?.ageS ?? 0, medianOldestDueAgeS: median };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Ready = this binary's migrations are all in the database (which answers the query that says so), and
 * every background loop `serve` started is alive. Never throws. Error texts stay generic: the endpoint is
 * unauthenticated, and a driver's message may name hosts or files.
 */
export async function readiness(deps: Pick<Deps, "db" | "liveness" | "log" | "storage" | "nodeId" | "clock">): Promise<Readiness> {
  const reasons: string[] = [];
  let migrations: MigrationStatus | undefined;
  try {
    migrations = await withTimeout(migrationStatus(deps.db), READY_DATABASE_TIMEOUT_MS);
  } catch (err) {
    deps.log.debug("readiness: the database did not answer", { err: err as Error });
    reasons.push("the database does not answer");
  }
  const database = migrations ? { ok: true } : { ok: false, error: "the database does not answer" };
  const migrationsCheck = migrations
    ? {
        ok: migrations.pending.length === 0,
        applied: migrations.applied,
        expected: migrations.expected,
        pending: migrations.pending,
        unknown: migrations.unknown,
      }
    : { ok: false };
  if (migrations && migrations.pending.length > 0) reasons.push(`${migrations.pending.length} migration(s) not applied: ${migrations.pending.join(", ")}`);
  const storage = migrations ? await deps.storage.problem(deps.db, deps.nodeId, deps.clock.now()) : null;
  if (storage) reasons.push(storage);
  const loops = deps.liveness.check();
  for (const loop of loops) if (!loop.ok) reasons.push(`loop ${loop.name}: ${loop.reason}`);
  const ready = reasons.length === 0;
  // Only once the schema is current (the outbox's indexes are this version's), and within the same deadline.
  const outbox =
    migrations?.pending.length === 0
      ? await withTimeout(outboxSummary(deps.db, deps.clock.now()), READY_DATABASE_TIMEOUT_MS).catch(() => undefined)
      : undefined;
  return {
    ready,
    ...(ready ? {} : { reason: reasons.join("; ") }),
    checks: {
      database,
      storage: storage ? { ok: false, error: storage } : { ok: true },
      migrations: migrationsCheck,
      loops: { ok: loops.every((l) => l.ok), loops },
      ...(outbox ? { outbox } : {}),
    },
  };
}

/**
 * Who may read /metrics: with JOBPILOT_METRICS_TOKEN set, whoever sends it as a bearer token; without it,
 * only a client on this machine talking to the server directly (see http/loopback.ts).
 */
export function checkMetricsAccess(token: string | undefined, request: Request, peerAddress: string | undefined): void {
  if (token) {
    const header = request.headers.get("authorization") ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!presented || !sameSecret(presented, token)) {
      throw new AppError(
        "unauthorized",
        "Missing or invalid metrics token (send Authorization: Bearer <JOBPILOT_METRICS_TOKEN>)",
        {},
        { "www-authenticate": "Bearer" },
      );
    }
    return;
  }
  if (!isDirectLoopback(peerAddress, request.headers)) {
    throw new AppError(
      "forbidden",
      "Metrics are served only to direct requests from this machine while JOBPILOT_METRICS_TOKEN is unset; set it to scrape from elsewhere or through a proxy",
    );
  }
}

/** Sets the scrape-time gauges from the database and the loops, then renders every metric. */
export async function renderMetrics(deps: Pick<Deps, "db" | "config" | "clock" | "metrics" | "liveness">): Promise<string> {
  const { metrics } = deps;
  const now = deps.clock.now();
  const [queue, stats] = await Promise.all([queueStats(deps.db, now), databaseStats(deps.db, deps.config.dbPath)]);
  // Reset first: a kind with nothing left in the queue must drop to nothing, not keep its last value.
  metrics.tasks.reset();
  metrics.taskOldestAge.reset();
  for (const row of queue) {
    metrics.tasks.labels(row.kind, row.status).set(row.count);
    if (row.oldestDueTs !== null) metrics.taskOldestAge.labels(row.kind).set(Math.max(0, (now - row.oldestDueTs) / 1000));
  }
  metrics.outboxOldestAge.reset();
  for (const a of (await outboxAges(deps.db, now)).slice(0, OUTBOX_GAUGE_ACCOUNTS)) metrics.outboxOldestAge.labels(a.accountId).set(a.ageS);
  metrics.loopTickAge.reset();
  for (const loop of deps.liveness.check()) metrics.loopTickAge.labels(loop.name).set(loop.lastTickAgoS);
  // process.memoryUsage() is cheap; bun:jsc's heapStats() walks the heap, so it is not used here (docs/performance.md, 'Why the code is as it is').
  const memory = process.memoryUsage();
  metrics.residentMemory.set(memory.rss);
  metrics.jsHeap.labels("used").set(memory.heapUsed);
  metrics.jsHeap.labels("total").set(memory.heapTotal);
  metrics.jsExternal.set(memory.external);
  metrics.databaseSize.set(stats.sizeBytes);
  metrics.walSize.set(stats.walBytes ?? 0);
  metrics.poolMax.set(deps.config.databasePoolSize);
  metrics.postgresConnections.reset();
  for (const c of stats.connections ?? []) metrics.postgresConnections.labels(c.state).set(c.count);
  return metrics.render();
}
