import type { TaskContext } from "../../worker/worker";
import * as repo from "./repo";
import { driverFor, type ApplicationsDeps } from "./service";

export const SYNC_TASK = "apply.sync";
const BATCH = 200;

/**
 * The sync task (enqueued by the scheduler): asks each applied proposal's
 * driver whether the client viewed or replied, oldest check first. viewed and
 * replied never go back to false; lastCheckedAt moves on every check.
 */
export async function syncEngagement(deps: ApplicationsDeps, _payload: unknown, _ctx: TaskContext): Promise<void> {
  for (const app of repo.dueForSync(deps.db, BATCH)) {
    try {
      const seen = await driverFor(deps, app.accountId).engagement(app.id, app.accountId);
      if (seen) repo.recordEngagement(deps.db, app.id, seen, deps.clock.now());
    } catch (err) {
      deps.log.warn("engagement sync failed", { queueId: app.id, err: err as Error });
    }
  }
}
