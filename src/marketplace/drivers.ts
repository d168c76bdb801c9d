import type { Db } from "../db/client";
import { AppError } from "../errors";
import type { Freelancer, MarketplaceDriver } from "./driver";

export interface DriverDeps {
  db: Db;
  drivers: Record<string, MarketplaceDriver>;
  /** JOBPILOT_MARKETPLACE_DRIVER; undefined when unset. */
  config: { marketplaceDriver?: string };
}

/** A driver by name; a name the process does not run is a server fault (config names only known drivers). */
export function driverNamed(deps: Pick<DriverDeps, "drivers">, name: string): MarketplaceDriver {
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
