/**
 * The closed sets of values the database keeps in its enum columns, each
 * written once. The column types (db/schema/), the API's TypeBox unions (in
 * each feature's model.ts, through literalUnion) and the TypeScript types are
 * all derived from these arrays.
 *
 * They live here, below every feature, because the schema needs the values and
 * every feature imports the schema: kept in a feature's own folder they would
 * close an import cycle between db/ and that feature.
 */

/**
 * The drivers an account (accounts.marketplace_driver) or JOBPILOT_MARKETPLACE_DRIVER can name. Here
 * rather than in marketplace/ because config.ts needs the values and marketplace/ reads accounts.
 */
export const MARKETPLACE_DRIVERS = ["sandbox", "bridge", "companion"] as const;
export type MarketplaceDriverName = (typeof MARKETPLACE_DRIVERS)[number];

/** The browser companion's submission mode: the user clicks submit on the filled form (review), or the extension does (auto, opt-in). */
export const COMPANION_MODES = ["review", "auto"] as const;
export type CompanionMode = (typeof COMPANION_MODES)[number];

/**
 * A companion task's life: queued → claimed (handed to the extension) → answered; a submit may pass through
 * review (the form is filled and waits for the user's click). expired: not answered in time; cancelled: never handed out.
 */
export const COMPANION_TASK_STATES = ["queued", "claimed", "review", "answered", "expired", "cancelled"] as const;
export type CompanionTaskState = (typeof COMPANION_TASK_STATES)[number];

export const ACCOUNT_KINDS = ["solo", "agency"] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** A member's role in an account, most powerful first (modules/members/permissions.ts says what each may do). */
export const MEMBER_ROLES = ["owner", "admin", "bidder", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** What a one-time member link is for: an invitation's or the first owner's set-password, or a password reset. */
export const MEMBER_LINK_PURPOSES = ["invite", "reset"] as const;
export type MemberLinkPurpose = (typeof MEMBER_LINK_PURPOSES)[number];

/** Where a job is posted. A document without one is a marketplace job. */
export const PLATFORMS = ["marketplace", "professional_network", "web"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const JOB_TYPES = ["HOURLY", "FIXED"] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** A feed's filters: which country list applies, contact e-mail required or not, the US-only restriction. */
export const COUNTRY_FILTER_MODES = ["exclude", "include"] as const;
export const EMAIL_FOUND_FILTERS = ["all", "email_found"] as const;
export const US_ONLY_MODES = ["all", "include", "exclude"] as const;

/** What a marketplace driver reports for a submission: its final word on the application. */
export const FINAL_STATUSES = ["applied", "failed", "not_available", "not_eligible", "not_enough_connects", "logged_out"] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];

/** An application is `processing` until its driver's final word. */
export const APPLICATION_STATUSES = ["processing", ...FINAL_STATUSES] as const;

/**
 * An outcome the browser companion reported, checked against the next "my proposals" list it read: confirmed,
 * or flagged for a person (charged as applied but not listed; listed though reported not applied).
 */
export const OUTCOME_CHECKS = ["confirmed", "not_listed", "listed_not_applied"] as const;
export type OutcomeCheck = (typeof OUTCOME_CHECKS)[number];

/** How a sent proposal ended, as a person recorded it (no_reply is computed on read, never stored). */
export const APPLICATION_OUTCOMES = ["hired", "lost", "withdrawn"] as const;
export type ApplicationOutcome = (typeof APPLICATION_OUTCOMES)[number];

/** How far a submission got (see the applications table). */
export const APPLICATION_PHASES = ["queued", "submitting", "done"] as const;

/** A freelancer's profiles: one default, any number of specializations. */
export const PROFILE_TYPES = ["default", "specialization"] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

/** Done tasks are deleted, so a task row is one of these. */
export const TASK_STATUSES = ["queued", "running", "failed"] as const;

/** Where a notification channel sends alerts, and whether it sends each match at once or a digest now and then. */
export const CHANNEL_TYPES = ["telegram", "slack", "discord", "ntfy", "email"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const CHANNEL_MODES = ["instant", "digest"] as const;
export type ChannelMode = (typeof CHANNEL_MODES)[number];

/** What an experiment compares its arms on (modules/experiments): replies per proposal, per Connect spent, interviews, hires. */
export const EXPERIMENT_OBJECTIVES = ["replies", "replies_per_connect", "interviews", "hires"] as const;
export type ExperimentObjective = (typeof EXPERIMENT_OBJECTIVES)[number];
/** How new jobs are spread over an experiment's arms: evenly, or by Thompson sampling from the counts so far. */
export const EXPERIMENT_ALLOCATIONS = ["equal", "thompson"] as const;
export type ExperimentAllocation = (typeof EXPERIMENT_ALLOCATIONS)[number];
export const EXPERIMENT_STATES = ["running", "stopped"] as const;

/**
 * A feed's apply mode (modules/automation): `alert` notifies only (the default), `draft` prepares the letter and
 * answers and waits for one click, `auto` sends within the budget and the governor's limits without review.
 */
export const APPLY_MODES = ["alert", "draft", "auto"] as const;
export type ApplyMode = (typeof APPLY_MODES)[number];
/** What an automated application that would break the Connects budget does: ends not_enough_connects, or waits for review. */
export const OVER_BUDGET_ACTIONS = ["skip", "review"] as const;
export type OverBudgetAction = (typeof OVER_BUDGET_ACTIONS)[number];
/** Who asked for an application: a person (API, dashboard, Telegram, MCP) or a feed's draft / auto mode. */
export const APPLICATION_ORIGINS = ["person", "draft", "auto"] as const;
export type ApplicationOrigin = (typeof APPLICATION_ORIGINS)[number];

/** An account's lists of clients (issue 45): blocked clients' jobs never enter a feed; favoured ones are marked. */
export const CLIENT_LISTS = ["blocked", "favoured"] as const;
export type ClientList = (typeof CLIENT_LISTS)[number];
