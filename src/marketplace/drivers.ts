import type { Db } from "../db/client";
import { AppError } from "../errors";
import { findAccount, newestLiveKeyLabelledAt } from "../modules/accounts/repo";
import { SANDBOX_NAME } from "../sources/sandbox/index";
import { COMPANION_KEY_LABEL, type Freelancer, type MarketplaceDriver } from "./driver";

export interface DriverDeps {
  db: Db;
  drivers: Record<string, MarketplaceDriver>;
  /** JOBPILOT_MARKETPLACE_DRIVER; undefined when unset. */
  config: { marketplaceDriver?: string };
}

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

/** A driver by name; a name the process does not run is a server fault (config names only known drivers). */
export function driverNamed(deps: Pick<DriverDeps, "drivers">, name: string): MarketplaceDriver {
  const driver = deps.drivers[name];
  if (!driver) throw new AppError("internal", `marketplace driver "${name}" is not available`);
  return driver;
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

/** The account's primary profile: the first freelancer's default profile. */
export function primaryProfile(freelancers: Freelancer[]): { freelancer: Freelancer; profile: Freelancer["profiles"][number] } | null {
  const freelancer = freelancers[0];
  const profile = freelancer?.profiles.find((p) => p.type === "default") ?? freelancer?.profiles[0];
  return freelancer && profile ? { freelancer, profile } : null;
}
