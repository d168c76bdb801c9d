import type { Db } from "../../db/client";

/**
 * Which members a feed is assigned to, as the automation feature reads and sets it beside the feed's freelancer.
 * The members module answers (it owns feed_members and sits downstream of automation, whose audit log it writes);
 * the composition root (deps.ts) hands it over, as it does the applications the governor counts.
 */
export interface FeedRouting {
  membersOfFeed(db: Db, feedId: string): Promise<string[]>;
  /** The ids checked as current members of the account (a 400 naming memberIds otherwise), repeats kept once. */
  checkFeedMembers(db: Db, accountId: string, memberIds: readonly string[]): Promise<string[]>;
  setFeedMembers(db: Db, feedId: string, memberIds: readonly string[]): Promise<void>;
}
