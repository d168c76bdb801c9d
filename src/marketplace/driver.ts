/**
 * The apply side of a marketplace, behind one small interface. Implementations:
 * `sandbox` (the built-in simulated marketplace, the default), `bridge`
 * (hands each submission to the user's own submitter over signed HTTP) and
 * `companion` (the browser companion extension in the user's own browser).
 * Drivers never touch our tables: the applications service owns statuses,
 * credits and retries; a driver only says what the marketplace did.
 */
import { MARKETPLACE_DRIVERS, type FinalStatus, type JobType, type MarketplaceDriverName, type ProfileType } from "../db/enums";

import { userFacingServerError } from "../errors";

export { MARKETPLACE_DRIVERS };

/** The label of the API key the browser companion gets when it pairs; an unrevoked one makes the account "paired" (companion by default). */
export const COMPANION_KEY_LABEL = "browser companion";
export type { FinalStatus, MarketplaceDriverName };

export interface SubmitRequest {
  /** Our queue id: the idempotency key a driver may use to recognise a repeated submission. */
  applicationId: string;
  accountId: string;
  freelancerId: string;
  profileId: string;
  job: {
    ciphertext: string;
    url: string;
    title: string;
    jobType: JobType | null;
    /** The archived document, for drivers that need more (qualifications, Connects price, status). */
    document: Record<string, unknown>;
    publishTimeTs: number | null;
    usOnly: boolean | null;
  };
  coverLetter: string;
  bid: { hourlyRate: number | null; fixedBid: number | null; timeline: string; boostBids: number };
  answers: { position: number; answer: string }[];
}

export interface SubmitOutcome {
  status: FinalStatus;
  /** Human sentence shown as applicationStatusMessage (and errorMessage when not applied). */
  message: string;
  /**
   * logged_out only: when the session was last known good, if the driver knows it was lost before this
   * attempt (the browser companion's last connection). The logged-out window counts from here; else from now.
   */
  loggedOutSinceTs?: number;
  /**
   * applied only: the Connects the marketplace took, when the driver can tell (the sandbox always can; a
   * driver that cannot leaves it out, and the funnel says null). Recorded once, with the final status.
   */
  connects?: { required: number; boost: number };
  /**
   * The freelancer's available Connects after this attempt, when the driver read them (the sandbox knows them; the
   * companion reads the apply page's "Available Connects"; a bridge submitter may say). The submit task records it
   * as the freelancer's balance (modules/automation), which the governor checks the next submission against.
   */
  connectsAvailable?: number;
}

export interface Engagement {
  viewed: boolean;
  replied: boolean;
  /** When the view was first observed (Unix ms), null when not viewed or unknown. */
  viewedAt: number | null;
  /** When the reply was first observed (Unix ms), when the driver knows it; else the sync that first saw it. */
  repliedAt?: number | null;
  /** Later stages, when the driver can read them (the sandbox can): when the client asked for an interview, hired, or passed. */
  interviewAt?: number | null;
  hiredAt?: number | null;
  lostAt?: number | null;
}

/** A read of the account's "my proposals" page, as the driver's client reported it. */
export interface ProposalsList {
  /** When the read began (Unix ms), no later than when the server received it. */
  readAt: number;
  /** The page read; its origin says which site's jobs it can vouch for. */
  url: string;
  /** The job ciphertexts it shows a sent proposal for. */
  jobs: ReadonlySet<string>;
}

export interface FreelancerProfile {
  type: ProfileType;
  name: string;
  hourlyRate: number | null;
  currency: string;
  profileId: string;
}

export interface Freelancer {
  id: string;
  name: string;
  avatarUrl: string | null;
  baseHourlyRate: number | null;
  profiles: FreelancerProfile[];
}

export interface MarketplaceDriver {
  readonly name: string;
  /** Submits one proposal and reports what the marketplace did. Throws only for transient trouble worth a retry. */
  submit(req: SubmitRequest): Promise<SubmitOutcome>;
  /**
   * After a crash during a submission: did the marketplace record it? `null`
   * means it has no record (safe to submit again); "unknown" means the driver
   * cannot tell (the application must not be submitted blindly again).
   */
  lookup(req: SubmitRequest): Promise<SubmitOutcome | null | "unknown">;
  /** The client's engagement with a submitted proposal, or null when the driver cannot tell. */
  engagement(applicationId: string, accountId: string): Promise<Engagement | null>;
  /** The freelancers (and profiles) this account may apply as. */
  freelancers(accountId: string): Promise<Freelancer[]>;
  /** Restores an invalidated marketplace session; true when it worked. */
  reconnect(accountId: string): Promise<boolean>;
  /** Optional: a sentence on a submission still in flight (e.g. waiting for the user's review), or null. */
  progress?(applicationId: string): Promise<string | null>;
  /**
   * Optional, for a driver whose client comes to this server (the browser companion's long poll): when it last
   * reached it for this account (Unix ms), or null when it never has.
   */
  lastConnectedAt?(accountId: string): Promise<number | null>;
  /**
   * Optional, for a driver whose outcomes rest on its client's word (the browser companion): the newest "my
   * proposals" list the client reported for the account, or null when it has reported none.
   */
  proposalsList?(accountId: string): Promise<ProposalsList | null>;
}

/**
 * The account's freelancers through its driver, or a 503 that says why they cannot be listed now (the bridge
 * submitter unreachable, the browser companion offline before it ever listed them): an outside system being
 * away is not a server fault, and the caller can act on the reason.
 */
export async function listFreelancers(driver: MarketplaceDriver, accountId: string): Promise<Freelancer[]> {
  try {
    return await driver.freelancers(accountId);
  } catch (err) {
    throw userFacingServerError("unavailable", `Cannot list this account's freelancers now: ${(err as Error).message}`);
  }
}
