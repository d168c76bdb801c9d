import type { Db } from "../db/client";
import { AppError } from "../errors";
import { findAccount, hasLiveKeyLabelled } from "../modules/accounts/repo";
import { COMPANION_KEY_LABEL, type Freelancer, type MarketplaceDriver } from "./driver";

export interface DriverDeps {
  db: Db;
  drivers: Record<string, MarketplaceDriver>;
  /** JOBPILOT_MARKETPLACE_DRIVER; undefined when unset. */
  config: { marketplaceDriver?: string };
}

/**
 * The name of the driver an account applies through: its own setting, else JOBPILOT_MARKETPLACE_DRIVER, else
 * `companion` when the account paired a browser companion (holds an unrevoked key labelled "browser companion"),
 * else `sandbox`.
 */
export async function driverNameFor(deps: Omit<DriverDeps, "drivers">, accountId: string): Promise<string> {
  const own = (await findAccount(deps.db, accountId))?.marketplaceDriver;
  if (own) return own;
  if (deps.config.marketplaceDriver) return deps.config.marketplaceDriver;
  return (await hasLiveKeyLabelled(deps.db, accountId, COMPANION_KEY_LABEL)) ? "companion" : "sandbox";
}

/** The driver an account applies through (see driverNameFor). */
export async function driverFor(deps: DriverDeps, accountId: string): Promise<MarketplaceDriver> {
  const name = await driverNameFor(deps, accountId);
  const driver = deps.drivers[name];
  if (!driver) throw new AppError("internal", `marketplace driver "${name}" is not available`);
  return driver;
}

/** The account's primary profile: the first freelancer's default profile. */
export function primaryProfile(freelancers: Freelancer[]): { freelancer: Freelancer; profile: Freelancer["profiles"][number] } | null {
  const freelancer = freelancers[0];
  const profile = freelancer?.profiles.find((p) => p.type === "default") ?? freelancer?.profiles[0];
  return freelancer && profile ? { freelancer, profile } : null;
}
