import type { Db } from "../db/client";
import { AppError } from "../errors";
import { findAccount } from "../modules/accounts/repo";
import type { Freelancer, MarketplaceDriver } from "./driver";

export interface DriverDeps {
  db: Db;
  drivers: Record<string, MarketplaceDriver>;
  config: { marketplaceDriver: string };
}

/** The driver an account applies through: its own setting, else JOBPILOT_MARKETPLACE_DRIVER. */
export async function driverFor(deps: DriverDeps, accountId: string): Promise<MarketplaceDriver> {
  const name = (await findAccount(deps.db, accountId))?.marketplaceDriver ?? deps.config.marketplaceDriver;
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
