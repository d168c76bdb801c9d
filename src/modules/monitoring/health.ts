/**
 * GET /healthz's answer: the process is up, and whether the database answers (503 when it does not).
 */
import type { Deps } from "../../deps";
import { databaseHealth } from "../../db/query";
import type { Health } from "./model";

type HealthBody = typeof Health.static;
type DatabaseHealth = HealthBody["database"];

/**
 * How long a healthy answer from the database stands for /healthz: a probe wants to know the database
 * answers, which needs no round trip (nor a wait behind the transaction in hand) for each of thousands
 * of requests a second. A failure is never reused, so a database that breaks shows on /healthz at most
 * this long later, and keeps being asked until it answers again.
 */
export const HEALTH_CACHE_MS = 1000;

async function checkDatabase(deps: Pick<Deps, "db">): Promise<DatabaseHealth> {
  try {
    return { status: "ok", ...(await databaseHealth(deps.db)) };
  } catch (err) {
    return { status: "error", error: (err as Error).message };
  }
}

/**
 * The health check of one app: an "ok" from the database is reused for HEALTH_CACHE_MS (monotonic time, so a
 * test's manual clock does not stop it expiring), and requests arriving while it is asked share one question.
 * Each answer is a copy (a route's answer may be cleaned in place).
 */
export function healthCheck(deps: Pick<Deps, "db" | "clock" | "version">): () => Promise<HealthBody> {
  const startedAt = deps.clock.now();
  let ok: { at: number; result: DatabaseHealth } | undefined;
  let inFlight: Promise<DatabaseHealth> | undefined;
  const database = (): Promise<DatabaseHealth> => {
    if (ok && performance.now() - ok.at < HEALTH_CACHE_MS) return Promise.resolve({ ...ok.result });
    if (!inFlight) {
      const at = performance.now();
      inFlight = checkDatabase(deps).then((result) => {
        inFlight = undefined;
        ok = result.status === "ok" ? { at, result } : undefined;
        return result;
      });
    }
    return inFlight.then((result) => ({ ...result }));
  };
  return async () => {
    const db = await database();
    return { status: db.status, version: deps.version, uptimeS: Math.floor((deps.clock.now() - startedAt) / 1000), database: db };
  };
}
