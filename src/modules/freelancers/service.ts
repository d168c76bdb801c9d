/**
 * The agency's freelancers as it manages them itself (issue 43): on the sandbox driver, the roster — freelancers
 * and their profiles — is changed here through the sandbox's own roster functions (the ones /admin/sandbox uses);
 * on a driver whose roster is the marketplace's (companion, bridge) it is read-only, and only jobpilot's own
 * settings per freelancer (working hours, the Connects balance: modules/automation) can change.
 */
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { type FreelancerWithProfiles, listFreelancers as sandboxRoster } from "../../marketplace/sandbox/driver";
import * as roster from "../../marketplace/sandbox/roster";
import { driverNameFor } from "../accounts/drivers";
import type { AuthContext } from "../accounts/service";
import { listApplications } from "../applications/repo";
import { audit, actorIds, actorOf } from "../automation/governor";
import { listFeeds } from "../feeds/repo";
import type { FreelancerPatch, ManagedFreelancer, NewFreelancerBody, NewProfileBody, ProfilePatch } from "./model";

type View = typeof ManagedFreelancer.static;

/** The only driver whose roster jobpilot keeps; every other one lists what the marketplace has. */
const EDITABLE_DRIVER = "sandbox";

function toView(accountId: string, { freelancer, profiles }: FreelancerWithProfiles): View {
  return {
    id: freelancer.id,
    name: freelancer.name,
    baseHourlyRate: freelancer.baseHourlyRate,
    country: freelancer.country,
    own: roster.isOwnFreelancer(accountId, freelancer.id),
    profiles: profiles.map((p) => ({ profileId: p.profileId, type: p.type, name: p.name, hourlyRate: p.hourlyRate, currency: p.currency, skills: p.skills })),
  };
}

/** The account's driver name, and whether its roster is jobpilot's to change. */
export async function rosterMode(deps: Deps, accountId: string): Promise<{ driver: string; editable: boolean }> {
  const driver = await driverNameFor(deps, accountId);
  return { driver, editable: driver === EDITABLE_DRIVER };
}

/** A 409 on drivers whose roster comes from the marketplace: there is nothing here to change it in. */
async function requireEditable(deps: Deps, auth: AuthContext): Promise<void> {
  const { driver, editable } = await rosterMode(deps, auth.accountId);
  if (!editable) throw new AppError("conflict", `freelancers come from the marketplace on the ${driver} driver; change them there`);
}

/** The sandbox roster with the fields the dashboard edits (country, skills), which the driver interface leaves out. */
export async function managedFreelancers(deps: Deps, auth: AuthContext): Promise<View[]> {
  return (await sandboxRoster(deps, auth.accountId)).map((f) => toView(auth.accountId, f));
}

function noteChange(deps: Deps, auth: AuthContext, action: string, freelancerId: string, detail: string): Promise<void> {
  return audit(deps.db, {
    accountId: auth.accountId,
    freelancerId,
    applicationId: null,
    action,
    rule: `changed by ${actorOf(auth)}`,
    detail,
    atTs: deps.clock.now(),
    ...actorIds(auth),
  });
}

export async function createFreelancer(deps: Deps, auth: AuthContext, body: typeof NewFreelancerBody.static): Promise<View> {
  await requireEditable(deps, auth);
  const added = await roster.addFreelancer(deps, auth.accountId, body);
  await noteChange(deps, auth, "freelancer.added", added.freelancer.id, `freelancer ${added.freelancer.name}`);
  return toView(auth.accountId, added);
}

export async function updateFreelancer(deps: Deps, auth: AuthContext, freelancerId: string, body: typeof FreelancerPatch.static): Promise<View> {
  await requireEditable(deps, auth);
  const updated = await roster.updateFreelancer(deps, auth.accountId, freelancerId, body);
  await noteChange(deps, auth, "freelancer.changed", freelancerId, JSON.stringify(body));
  return toView(auth.accountId, updated);
}

/** How many of the account's applications going out as this freelancer are still in flight or held for approval. */
async function liveApplicationsOf(deps: Deps, accountId: string, freelancerId: string): Promise<number> {
  let n = 0;
  for (let offset = 0; ; offset += 500) {
    const { items } = await listApplications(deps.db, accountId, { limit: 500, offset, status: "processing" });
    n += items.filter((i) => i.app.freelancerId === freelancerId).length;
    if (items.length < 500) return n;
  }
}

/** The account's feeds that route their jobs to this freelancer (or, given, to this one profile). */
async function feedsRoutedTo(deps: Deps, accountId: string, freelancerId: string, profileId?: string): Promise<number> {
  return (await listFeeds(deps.db, accountId)).filter((f) => (profileId === undefined ? f.freelancerId === freelancerId : f.profileId === profileId)).length;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Unlinks a freelancer. Refused (409, with the count) while applications going out as it are in flight or held,
 * or while feeds route their jobs to it: those would fail or go out as someone else. Sent applications keep their
 * freelancer id, so analytics and the ledger keep the history.
 */
export async function removeFreelancer(deps: Deps, auth: AuthContext, freelancerId: string): Promise<void> {
  await requireEditable(deps, auth);
  const found = await roster.requireFreelancer(deps, auth.accountId, freelancerId);
  const live = await liveApplicationsOf(deps, auth.accountId, freelancerId);
  if (live > 0) {
    throw new AppError(
      "conflict",
      `freelancerId: ${found.name} has ${plural(live, "application", "applications")} in flight or waiting for approval; let them finish or discard them first`,
    );
  }
  const routed = await feedsRoutedTo(deps, auth.accountId, freelancerId);
  if (routed > 0)
    throw new AppError("conflict", `freelancerId: ${plural(routed, "feed sends", "feeds send")} its jobs to ${found.name}; route them elsewhere first`);
  await roster.removeFreelancer(deps, auth.accountId, freelancerId);
  await noteChange(deps, auth, "freelancer.removed", freelancerId, `freelancer ${found.name}`);
}

export async function addProfile(deps: Deps, auth: AuthContext, freelancerId: string, body: typeof NewProfileBody.static): Promise<View> {
  await requireEditable(deps, auth);
  const updated = await roster.addProfile(deps, auth.accountId, freelancerId, body);
  await noteChange(deps, auth, "profile.added", freelancerId, `profile ${body.name.trim()}`);
  return toView(auth.accountId, updated);
}

export async function updateProfile(deps: Deps, auth: AuthContext, freelancerId: string, profileId: string, body: typeof ProfilePatch.static): Promise<View> {
  await requireEditable(deps, auth);
  const updated = await roster.updateProfile(deps, auth.accountId, freelancerId, profileId, body);
  await noteChange(deps, auth, "profile.changed", freelancerId, `profile ${profileId}: ${JSON.stringify(body)}`);
  return toView(auth.accountId, updated);
}

/** Removes a specialized profile; refused (409) while a feed routes its jobs to it. */
export async function removeProfile(deps: Deps, auth: AuthContext, freelancerId: string, profileId: string): Promise<View> {
  await requireEditable(deps, auth);
  await roster.requireFreelancer(deps, auth.accountId, freelancerId);
  const routed = await feedsRoutedTo(deps, auth.accountId, freelancerId, profileId);
  if (routed > 0)
    throw new AppError("conflict", `profileId: ${plural(routed, "feed sends", "feeds send")} its jobs as this profile; route them elsewhere first`);
  const updated = await roster.removeProfile(deps, auth.accountId, freelancerId, profileId);
  await noteChange(deps, auth, "profile.removed", freelancerId, `profile ${profileId}`);
  return toView(auth.accountId, updated);
}
