/**
 * Routing feeds to members (issue 43): which members a feed is assigned to, so the inbox shows each member their
 * own feeds first. feed_members is the members module's table; the automation feature sets it through
 * setFeedMembers alongside a feed's freelancer, and the dashboard reads it through these functions.
 */
import type { Db } from "../../db/client";
import { tx } from "../../db/client";
import { AppError } from "../../errors";
import type { FeedRouting } from "../automation/feed-routing";
import * as repo from "./repo";

export const membersOfFeed = (db: Db, feedId: string) => repo.membersOfFeed(db, feedId);

/** The feeds assigned to a member; none for a caller of no member (a key of no member acts as the owner). */
export async function feedsOfMember(db: Db, memberId: string | null): Promise<Set<string>> {
  return new Set(memberId === null ? [] : await repo.feedsOfMember(db, memberId));
}

/** Names of the account's members, removed ones included, for reports over history (analytics). */
export const memberNames = (db: Db, accountId: string) => repo.memberNamesOfAccount(db, accountId);

/**
 * The ids checked: each a current member of the account (400 naming memberIds otherwise), repeats kept once.
 * Done before anything is written, so a bad list changes nothing.
 */
export async function checkFeedMembers(db: Db, accountId: string, memberIds: readonly string[]): Promise<string[]> {
  const current = new Set((await repo.listMembers(db, accountId)).map((m) => m.id));
  const unique = [...new Set(memberIds)];
  const stranger = unique.findIndex((id) => !current.has(id));
  if (stranger >= 0) {
    throw new AppError("bad_request", `memberIds[${memberIds.indexOf(unique[stranger]!)}] is not a member of this account (GET /api/v1/members lists them)`);
  }
  return unique;
}

/** Assigns the feed to exactly these members (already checked by checkFeedMembers), in the caller's transaction if any. */
export function setFeedMembers(db: Db, feedId: string, memberIds: readonly string[]): Promise<void> {
  return tx(db, (d) => repo.replaceFeedMembers(d, feedId, memberIds));
}

/** The members module's answer to the automation feature's FeedRouting port (wired in deps.ts). */
export const feedRouting: FeedRouting = { membersOfFeed, checkFeedMembers, setFeedMembers };
