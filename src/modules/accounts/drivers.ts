/**
 * Which marketplace driver an account applies through: the account's own setting and its paired companion are
 * the accounts feature's facts, so the choice lives here; the drivers themselves are adapters (src/marketplace).
 */
import { COMPANION_KEY_LABEL, type MarketplaceDriver } from "../../marketplace/driver";
import { type DriverDeps, driverNamed } from "../../marketplace/drivers";
import { SANDBOX_NAME } from "../../sources/sandbox/index";
import { findAccount, newestLiveKeyLabelledAt } from "./repo";

/**
 * Whether the account's browser companion is paired (an unrevoked key labelled "browser companion") and has polled
 * since that key was made. Pairing alone is not enough: a companion that cannot reach the server (its address not
 * allowed, the browser closed) would leave every application waiting and ending logged_out.
 */
export async function isCompanionConnectedSincePairing(deps: DriverDeps, accountId: string): Promise<boolean> {
  const pairedAt = await newestLiveKeyLabelledAt(deps.db, accountId, COMPANION_KEY_LABEL);
  if (pairedAt === null) return false;
  const lastSeen = (await deps.drivers.companion?.lastConnectedAt?.(accountId)) ?? null;
  return lastSeen !== null && lastSeen >= pairedAt;
}

/**
 * The name of the driver an account applies through: its own setting, else JOBPILOT_MARKETPLACE_DRIVER, else
 * `companion` once the account's paired browser companion has connected (see isCompanionConnectedSincePairing),
 * else `sandbox`.
 */
export async function driverNameFor(deps: DriverDeps, accountId: string): Promise<string> {
  const own = (await findAccount(deps.db, accountId))?.marketplaceDriver;
  if (own) return own;
  if (deps.config.marketplaceDriver) return deps.config.marketplaceDriver;
  return (await isCompanionConnectedSincePairing(deps, accountId)) ? "companion" : "sandbox";
}

/** The driver an account applies through (see driverNameFor). */
export async function driverFor(deps: DriverDeps, accountId: string): Promise<MarketplaceDriver> {
  return driverNamed(deps, await driverNameFor(deps, accountId));
}

/**
 * The driver that can submit a proposal for this job. Jobs the built-in sandbox source posts exist only on the
 * simulated marketplace (their addresses are not the marketplace's), so only the sandbox driver can take them,
 * whatever the account applies through; every other job goes through the account's driver.
 */
export async function driverForJob(deps: DriverDeps, accountId: string, job: { source: string }): Promise<MarketplaceDriver> {
  if (job.source === SANDBOX_NAME) return driverNamed(deps, "sandbox");
  return driverFor(deps, accountId);
}
