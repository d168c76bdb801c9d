/**
 * What the governor reads of the applications it governs, as a port: applications (downstream: it calls the
 * governor from its submit task) implements it over its own table (applications/automation-usage.ts), so the
 * automation module never reads a table it does not own.
 */
import type { Db } from "../../db/client";

export interface AutomationUsage {
  /** Submissions the governor let go since `sinceTs` that are still in flight or were applied (freelancer null: the whole account). */
  submissionsSince(db: Db, accountId: string, freelancerId: string | null, sinceTs: number): Promise<number>;
  /** The earliest of those in the window (for the hourly cap's next free moment), or null. */
  oldestSubmissionSince(db: Db, accountId: string, freelancerId: string, sinceTs: number): Promise<number | null>;
  /** When the governor last let a submission of this freelancer go, or null. */
  lastSubmissionAt(db: Db, accountId: string, freelancerId: string): Promise<number | null>;
  /** Connects spent since `sinceTs` by governed submissions: what the driver reported, else what was expected (in flight). */
  connectsSince(db: Db, accountId: string, freelancerId: string | null, sinceTs: number): Promise<number>;
  /** Letters the freelancer sent (applied) since `sinceTs`, newest first, without the application being judged. */
  sentLetters(
    db: Db,
    accountId: string,
    freelancerId: string,
    sinceTs: number,
    exceptId: string,
  ): Promise<{ id: string; coverLetter: string; sentAtTs: number }[]>;
}
