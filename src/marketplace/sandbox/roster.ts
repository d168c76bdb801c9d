/**
 * Changes to an account's sandbox freelancers and their profiles: what /admin/sandbox and the freelancers feature
 * (the agency's own dashboard and API) both call, so there is one set of rules for the simulated roster.
 * Ids derive from the account and the name at creation and never change, so a renamed freelancer keeps its
 * applications, limits and Connects balance.
 */
import { tx } from "../../db/client";
import { AppError, notFound } from "../../errors";
import { accountKind, ensureOwnFreelancer, type FreelancerWithProfiles, requireAccount, type SandboxDeps } from "./driver";
import * as repo from "./repo";
import * as rules from "./rules";

export interface NewProfile {
  name: string;
  hourlyRate?: number;
  skills?: string[];
}

export interface NewFreelancer {
  name: string;
  /** ISO 3166 alpha-2 (default US). */
  country?: string;
  hourlyRate?: number;
  jobSuccessScore?: number;
  connects?: number;
  profiles?: NewProfile[];
}

export interface FreelancerChanges {
  name?: string;
  country?: string;
  hourlyRate?: number;
}

export interface ProfileChanges {
  name?: string;
  hourlyRate?: number;
  skills?: string[];
}

const COUNTRY_RE = /^[A-Za-z]{2}$/;

function cleanName(raw: string, field: string): string {
  const name = raw.trim();
  if (name === "") throw new AppError("bad_request", `${field} must be a non-empty string`);
  return name;
}

function cleanCountry(raw: string): string {
  if (!COUNTRY_RE.test(raw.trim())) throw new AppError("bad_request", "country must be a two-letter ISO 3166 code such as US or DE");
  return raw.trim().toUpperCase();
}

/** Skills trimmed, blanks dropped, repeats (any case) kept once, in the order given. */
function cleanSkills(raw: string[] | undefined, field: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const [i, s] of (raw ?? []).entries()) {
    const skill = s.trim();
    if (skill.length > 60) throw new AppError("bad_request", `${field}[${i}] must be at most 60 characters`);
    if (skill === "" || seen.has(skill.toLowerCase())) continue;
    seen.add(skill.toLowerCase());
    out.push(skill);
  }
  return out;
}

const sortProfiles = (profiles: repo.ProfileRow[]) =>
  profiles.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "default" ? -1 : 1));

async function withProfiles(deps: SandboxDeps, freelancer: repo.FreelancerRow): Promise<FreelancerWithProfiles> {
  return { freelancer, profiles: sortProfiles(await repo.listProfiles(deps.db, [freelancer.id])) };
}

/** The account's freelancer, or a 404: another account's id is as unknown as none. */
export async function requireFreelancer(deps: SandboxDeps, accountId: string, freelancerId: string): Promise<repo.FreelancerRow> {
  const row = await repo.findFreelancer(deps.db, freelancerId);
  if (!row || row.accountId !== accountId) throw notFound("freelancerId: freelancer not found");
  return row;
}

/** Whether this is the account's own freelancer (the one every account has, which cannot be removed). */
export const isOwnFreelancer = (accountId: string, freelancerId: string) => freelancerId === rules.freelancerIdFor(accountId);

async function checkNameFree(deps: SandboxDeps, accountId: string, name: string, exceptId?: string): Promise<void> {
  const taken = (await repo.listFreelancers(deps.db, accountId)).some((f) => f.id !== exceptId && f.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new AppError("bad_request", `name: this account already has a freelancer named ${name}`);
}

/** Links another freelancer to an agency account, with its default profile and one specialized profile per `profiles` entry. */
export async function addFreelancer(deps: SandboxDeps, accountId: string, body: NewFreelancer): Promise<FreelancerWithProfiles> {
  await requireAccount(deps, accountId);
  if ((await accountKind(deps, accountId)) !== "agency") {
    throw new AppError("bad_request", `Account ${accountId} is a solo account: it applies as its own freelancer only; add freelancers to agency accounts`);
  }
  const name = cleanName(body.name, "name");
  const country = body.country === undefined ? rules.DEFAULT_COUNTRY : cleanCountry(body.country);
  const profiles = (body.profiles ?? []).map((p, i) => ({
    ...p,
    name: cleanName(p.name, `profiles[${i}].name`),
    skills: cleanSkills(p.skills, `profiles[${i}].skills`),
  }));
  if (new Set(profiles.map((p) => p.name.toLowerCase())).size !== profiles.length) throw new AppError("bad_request", "profiles[].name must be unique");
  await checkNameFree(deps, accountId, name);

  const id = rules.freelancerIdFor(accountId, name);
  const rate = body.hourlyRate ?? rules.DEFAULT_HOURLY_RATE;
  const now = deps.clock.now();
  const inserted = await tx(deps.db, async (db) => {
    // The account's own freelancer comes first, so an agency keeps it next to the ones added.
    await ensureOwnFreelancer(db, accountId, now);
    return repo.insertFreelancer(
      db,
      {
        id,
        accountId,
        name,
        avatarUrl: null,
        baseHourlyRate: rate,
        country,
        jobSuccessScore: body.jobSuccessScore ?? rules.DEFAULT_JOB_SUCCESS_SCORE,
        connects: body.connects ?? rules.DEFAULT_CONNECTS,
        createdAtTs: now,
      },
      [
        { profileId: id, freelancerId: id, type: "default", name: rules.profileTitleFor(id), hourlyRate: rate, currency: "USD", skills: [] },
        ...profiles.map((p) => ({
          profileId: rules.addedSpecializationIdFor(id, p.name),
          freelancerId: id,
          type: "specialization" as const,
          name: p.name,
          hourlyRate: p.hourlyRate ?? rate,
          currency: "USD",
          skills: p.skills,
        })),
      ],
    );
  });
  // The id is taken by a freelancer once added under this name (renamed since): the name stays reserved for it.
  if (!inserted) throw new AppError("bad_request", `name: this account already has a freelancer named ${name}`);
  return withProfiles(deps, (await repo.findFreelancer(deps.db, id))!);
}

/** Renames a freelancer or changes its base rate or country; only the fields given change. */
export async function updateFreelancer(deps: SandboxDeps, accountId: string, freelancerId: string, body: FreelancerChanges): Promise<FreelancerWithProfiles> {
  await requireFreelancer(deps, accountId, freelancerId);
  const changes: Parameters<typeof repo.updateFreelancer>[2] = {};
  if (body.name !== undefined) {
    changes.name = cleanName(body.name, "name");
    await checkNameFree(deps, accountId, changes.name, freelancerId);
  }
  if (body.country !== undefined) changes.country = cleanCountry(body.country);
  if (body.hourlyRate !== undefined) changes.baseHourlyRate = body.hourlyRate;
  const row =
    Object.keys(changes).length === 0 ? await repo.findFreelancer(deps.db, freelancerId) : await repo.updateFreelancer(deps.db, freelancerId, changes);
  return withProfiles(deps, row!);
}

/** Unlinks a freelancer (its profiles with it). The account's own freelancer stays: every account applies as it. */
export async function removeFreelancer(deps: SandboxDeps, accountId: string, freelancerId: string): Promise<void> {
  await requireFreelancer(deps, accountId, freelancerId);
  if (isOwnFreelancer(accountId, freelancerId)) throw new AppError("bad_request", "freelancerId: the account's own freelancer cannot be removed");
  await tx(deps.db, (db) => repo.deleteFreelancer(db, freelancerId));
}

async function requireProfile(deps: SandboxDeps, accountId: string, freelancerId: string, profileId: string): Promise<repo.ProfileRow> {
  await requireFreelancer(deps, accountId, freelancerId);
  const row = await repo.findProfile(deps.db, profileId);
  if (!row || row.freelancerId !== freelancerId) throw notFound("profileId: profile not found");
  return row;
}

async function checkProfileNameFree(deps: SandboxDeps, freelancerId: string, name: string, exceptId?: string): Promise<void> {
  const taken = (await repo.listProfiles(deps.db, [freelancerId])).some((p) => p.profileId !== exceptId && p.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new AppError("bad_request", `name: this freelancer already has a profile named ${name}`);
}

/** Adds a specialized profile (title, skills, rate: the freelancer's base rate unless given). */
export async function addProfile(deps: SandboxDeps, accountId: string, freelancerId: string, body: NewProfile): Promise<FreelancerWithProfiles> {
  const freelancer = await requireFreelancer(deps, accountId, freelancerId);
  const name = cleanName(body.name, "name");
  const skills = cleanSkills(body.skills, "skills");
  await checkProfileNameFree(deps, freelancerId, name);
  const inserted = await repo.insertProfile(deps.db, {
    profileId: rules.addedSpecializationIdFor(freelancerId, name),
    freelancerId,
    type: "specialization",
    name,
    hourlyRate: body.hourlyRate ?? freelancer.baseHourlyRate,
    currency: "USD",
    skills,
  });
  if (!inserted) throw new AppError("bad_request", `name: this freelancer already has a profile named ${name}`);
  return withProfiles(deps, freelancer);
}

/** Changes a profile's title, rate or skills; only the fields given change. */
export async function updateProfile(
  deps: SandboxDeps,
  accountId: string,
  freelancerId: string,
  profileId: string,
  body: ProfileChanges,
): Promise<FreelancerWithProfiles> {
  await requireProfile(deps, accountId, freelancerId, profileId);
  const changes: Parameters<typeof repo.updateProfile>[2] = {};
  if (body.name !== undefined) {
    changes.name = cleanName(body.name, "name");
    await checkProfileNameFree(deps, freelancerId, changes.name, profileId);
  }
  if (body.hourlyRate !== undefined) changes.hourlyRate = body.hourlyRate;
  if (body.skills !== undefined) changes.skills = cleanSkills(body.skills, "skills");
  if (Object.keys(changes).length > 0) await repo.updateProfile(deps.db, profileId, changes);
  return withProfiles(deps, (await repo.findFreelancer(deps.db, freelancerId))!);
}

/** Removes a specialized profile; the default one stays (the marketplace's convention: every freelancer has one). */
export async function removeProfile(deps: SandboxDeps, accountId: string, freelancerId: string, profileId: string): Promise<FreelancerWithProfiles> {
  const profile = await requireProfile(deps, accountId, freelancerId, profileId);
  if (profile.type === "default") throw new AppError("bad_request", "profileId: a freelancer's default profile cannot be removed");
  await repo.deleteProfile(deps.db, profileId);
  return withProfiles(deps, (await repo.findFreelancer(deps.db, freelancerId))!);
}
