import type { EngagementTracker } from "../../sources/marketplace-api/tracker";
import type { TaskContext } from "../../worker/worker";
import * as repo from "./repo";
import { driverOfApplication, type ApplicationsDeps } from "./service";

export const SYNC_TASK = "apply.sync";
const BATCH = 200;

/**
 * The sync task (enqueued by the scheduler): asks each applied proposal's
 * own driver (the one it was submitted through) whether the client viewed or replied, oldest check first. viewed and
 * replied never go back to false; lastCheckedAt moves on every check. With a
 * tracker (the marketplace's official API), real submissions are read there
 * first and the driver is asked only about what the API does not list.
 */
export async function syncEngagement(deps: ApplicationsDeps, _payload: unknown, _ctx: TaskContext, tracker: EngagementTracker | null = null): Promise<void> {
  const due = await repo.dueForSync(deps.db, BATCH);
  // Proposals that went to the real marketplace (not the sandbox) are read from the official API when it is connected.
  const real = due.filter((app) => app.driver !== "sandbox");
  let fromApi = new Map<string, { viewed: boolean; replied: boolean }>();
  if (tracker && real.length) {
    try {
      fromApi = await tracker.engagementByJob(real.map((app) => app.jobCiphertext));
    } catch (err) {
      deps.log.warn("engagement read from the marketplace API failed; asking the drivers", { tracker: tracker.name, err: err as Error });
    }
  }
  for (const app of due) {
    const api = app.driver !== "sandbox" ? fromApi.get(app.jobCiphertext) : undefined;
    if (api) {
      // The API has no view time: viewedAt becomes the first sync that saw it (recordEngagement keeps the first).
      await repo.recordEngagement(deps.db, app.id, { viewed: api.viewed, replied: api.replied, viewedAt: null }, deps.clock.now());
      continue;
    }
    try {
      // The driver it was sent with: only it knows the proposal, whatever the account applies through now.
      const seen = await driverOfApplication(deps, app).engagement(app.id, app.accountId);
      if (seen) await repo.recordEngagement(deps.db, app.id, seen, deps.clock.now());
    } catch (err) {
      deps.log.warn("engagement sync failed", { queueId: app.id, err: err as Error });
    }
  }
}
