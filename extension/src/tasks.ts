/**
 * The companion contract as the extension sees it: the tasks GET /api/v1/companion/tasks hands out and the
 * results it posts back. The server's TypeBox schemas (src/marketplace/companion/contract.ts) are the
 * authority; these are plain types because the extension cannot bundle the server's code, and
 * tests/companion-apply.test.ts checks that what the extension builds passes the server's schemas.
 */

export interface SubmitOp {
  type: "proposal.submit";
  applicationId: string;
  accountId: string;
  freelancerId: string;
  profileId: string;
  job: { ciphertext: string; url: string; title: string; jobType: "HOURLY" | "FIXED" | null };
  coverLetter: string;
  bid: { hourlyRate: number | null; fixedBid: number | null; timeline: string; boostBids: number };
  answers: { position: number; answer: string }[];
  mode: "review" | "auto";
  reviewTimeoutMs: number;
}

export type TaskOp =
  | SubmitOp
  | { type: "proposal.lookup"; applicationId: string; accountId: string }
  | { type: "proposal.engagement"; applicationId: string; accountId: string }
  | { type: "freelancers.list"; accountId: string }
  | { type: "session.reconnect"; accountId: string };

export interface Task {
  taskId: string;
  operation: TaskOp;
}

/** What the apply page showed: facts, which the server maps to statuses. */
export type PageOutcome =
  | { page: "submitted"; message?: string; url?: string; connectsRequired?: number; boostConnects?: number; connectsAvailable?: number }
  | { page: "login_redirect" | "job_unavailable" | "not_eligible"; message?: string; url?: string }
  | { page: "not_enough_connects"; required: number; available: number; message?: string; url?: string }
  | { page: "not_reviewed"; url?: string }
  | { page: "unrecognised"; message: string; visibleText: string; url?: string };

export type LookupResult =
  | { lookup: "found"; message?: string }
  | { lookup: "none" }
  | { lookup: "ended"; page: PageOutcome }
  | { lookup: "unknown"; message?: string };

/** The most jobs one "my proposals" list may name in an answer (the server's schema refuses more). */
export const PROPOSALS_LIST_MAX = 5000;

/** proposal.engagement's answer; `proposals` is the "my proposals" read it came from, when one was made. */
export interface EngagementAnswer {
  viewed: boolean;
  replied: boolean;
  proposals?: { readAt: number; url: string; jobs: string[] };
}

export interface FreelancerEntry {
  id: string;
  name: string;
  avatarUrl: string | null;
  baseHourlyRate: number | null;
  profiles: { type: "default" | "specialization"; name: string; hourlyRate: number | null; currency: string; profileId: string }[];
}
