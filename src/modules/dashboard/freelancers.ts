import type { Deps } from "../../deps";
import { freelancers } from "../applications/service";
import type { FreelancerChoice } from "./automation-views";
import type { DashboardSession } from "./model";
import { sessionAuth } from "./service";

/**
 * The account's freelancers for a page's select and names. None when the marketplace cannot list them: the page
 * still works, naming freelancers by id. Given `page`, the failure is logged as being for that page.
 */
export async function freelancerChoices(deps: Deps, session: DashboardSession, page?: string): Promise<FreelancerChoice[]> {
  try {
    return (await freelancers(deps, await sessionAuth(deps, session))).freelancers.map((f) => ({ id: f.id, name: f.name }));
  } catch (err) {
    if (page !== undefined) {
      deps.log.warn(`dashboard: could not list freelancers for the ${page}`, {
        accountId: session.accountId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return [];
  }
}
