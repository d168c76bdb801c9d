import type { Deps } from "../../deps";
import { pruneExpiredSessions } from "./service";

export const SESSIONS_TASK = "dashboard.sessions";

/** Every hour, away from retention's minute. */
export const SESSIONS_CRON = "43 * * * *";

const BATCH = 500;

/**
 * Deletes expired dashboard sessions in small batches. Signing in drops them all too, but a server nobody signs in
 * to would keep them; an expired session is of no use at any age, so this runs whatever the retention setting.
 */
export async function pruneSessions(deps: Pick<Deps, "db" | "clock" | "log">): Promise<void> {
  let deleted = 0;
  for (;;) {
    const n = await pruneExpiredSessions(deps, BATCH);
    deleted += n;
    if (n < BATCH) break;
    await Bun.sleep(10);
  }
  if (deleted > 0) deps.log.info("expired dashboard sessions deleted", { sessions: deleted });
}
