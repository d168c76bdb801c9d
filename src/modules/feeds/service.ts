import { tx, type Db } from "../../db/client";
import { AppError, notFound } from "../../errors";
import type { Clock } from "../../lib/clock";
import { normalizeCountry } from "../../lib/countries";
import { isUuid, newId } from "../../lib/ids";
import { iso, isoOrNull } from "../../lib/time";
import { ceilingsOf, type AuthContext, type CeilingDefaults } from "../accounts/service";
import { hasDeliverableWebhook, queueTestEvent as queueWebhookTest } from "./admit";
import * as feedChannels from "./feed-channels";
import type { FeedIndex } from "./matcher";
import { parseTerm } from "./matcher";
import type { Feed, FeedJobItem } from "./model";
import { DROPPED_CHANNEL_DELETED, DROPPED_CHANNEL_REMOVED, DROPPED_MUTED, dropEvents, lastWebhookError } from "./outbox";
import * as repo from "./repo";
import { openWebhookOrNull, sealChanges, sealValue, type WebhookValues } from "./webhook-seal";
import { checkUrl, type EgressPolicy, type Resolver } from "../../lib/ssrf";
import { generateSecret } from "../../lib/standard-webhooks";
import { normalizeJob, type NormalizedJob } from "../jobs/normalize";
import { findJob, type JobRow, type JobSummary, signalsOfJobs } from "../jobs/repo";
import { type JobSignal, signalsOf } from "../jobs/signals";
import { listEntriesFor } from "../clients/lists-read";

export interface FeedsDeps {
  db: Db;
  clock: Clock;
  feedIndex: FeedIndex;
  egress: EgressPolicy;
  resolve?: Resolver;
  config: { webhookRotationWindowMs: number; maxChannelLinksPerAccount: number } & CeilingDefaults;
  wake: () => void;
  channelDirectory: ChannelDirectory;
  /** Seals the webhook URL and secrets at rest (webhook-seal.ts); null (PostgreSQL without JOBPILOT_SECRET_KEY): stored in clear. */
  secretKey: string | null;
}

/**
 * Which notification channels an account owns. The channels module answers, handed in by deps.ts: it sits
 * downstream of feeds (deleting a channel takes it off the feeds, through detachChannel below), so feeds
 * never imports it.
 */
export interface ChannelDirectory {
  /** The ids among `ids` that are channels of this account. */
  ownedBy(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>>;
}

type Writable = Partial<Omit<repo.FeedInsert, "id" | "accountId" | "createdAtTs" | "updatedAtTs">>;

const DEFAULTS = {
  profilePrompt: "",
  includes: [] as string[],
  excludes: [] as string[],
  countryFilterMode: "exclude" as const,
  excludedCountries: [] as string[],
  includedCountries: [] as string[],
  notificationsMuted: false,
  outcomeEvents: false,
  emailFound: "all" as const,
  jobTypes: [] as string[],
  usOnlyMode: "all" as const,
  paymentVerifiedOnly: false,
};

/** The writable fields a request may carry; everything else in a body is ignored. */
const WRITABLE_FIELDS = [
  "title",
  "profilePrompt",
  "minScore",
  "includes",
  "excludes",
  "minHourlyRate",
  "minFixedPrice",
  "clientMinSpent",
  "countryFilterMode",
  "excludedCountries",
  "includedCountries",
  "platforms",
  "proposalGenerationPrompt",
  "notificationsMuted",
  "outcomeEvents",
  "signalRules",
  "alertFavoured",
  "emailFound",
  "jobTypes",
  "usOnlyMode",
  "paymentVerifiedOnly",
  "clientMinRating",
  "clientMinReviews",
  "webhookUrl",
] as const;

export const EMPTY_PROMPT_SCORE = 5;

/** Checks that need more than the field's own schema; all failures are collected, each naming its field. */
function crossFieldDetails(feed: Writable & { minScore: number; profilePrompt: string }, changed: Writable): string[] {
  const details: string[] = [];
  if (feed.profilePrompt.trim() === "" && feed.minScore > EMPTY_PROMPT_SCORE) {
    details.push(`minScore must be ${EMPTY_PROMPT_SCORE} or lower when profilePrompt is empty (without a prompt every match scores ${EMPTY_PROMPT_SCORE})`);
  }
  for (const field of ["includes", "excludes"] as const) {
    changed[field]?.forEach((k, i) => {
      if (k.trim().slice(0, -1).includes("*")) details.push(`${field}[${i}] may use * only at the end of the keyword`);
      else if (!parseTerm(k)) details.push(`${field}[${i}] must contain a letter or digit`);
    });
  }
  for (const field of ["excludedCountries", "includedCountries"] as const) {
    changed[field]?.forEach((c, i) => {
      if (!normalizeCountry(c)) details.push(`${field}[${i}] is not a known country: ${JSON.stringify(c)} (use an English name, ISO-2 or ISO-3 code)`);
    });
  }
  return details;
}

/** Prompts longer than the account's ceiling; only the fields this write sets are checked, so a lowered ceiling breaks no saved feed. */
function promptLengthDetails(changed: Writable, maxChars: number): string[] {
  return (["profilePrompt", "proposalGenerationPrompt"] as const).flatMap((field) => {
    const value = changed[field];
    return typeof value === "string" && value.length > maxChars ? [`${field} must be at most ${maxChars} characters (${value.length} given)`] : [];
  });
}

/** The SSRF check of a webhook URL at save time (every delivery checks again, at connect time). */
async function webhookUrlDetails(deps: FeedsDeps, changed: Writable): Promise<string[]> {
  if (!changed.webhookUrl) return [];
  const checked = await checkUrl(changed.webhookUrl, deps.egress, deps.resolve);
  return checked.ok ? [] : [`webhookUrl is not allowed: ${checked.reason}`];
}

/** Why nothing is sent for a muted feed (a test or a resend asked of one is a 409). */
export const MUTED_MESSAGE = "Notifications are muted on this feed (notificationsMuted: true), so nothing is sent to its webhook; unmute it first";

/** A test delivery through the normal path, written with the change that set the URL (or on request); callers check the feed is not muted. */
async function queueTestEvent(db: Db, feed: repo.FeedRow, now: number): Promise<string> {
  return (await queueWebhookTest(db, { ...feed, hasWebhook: hasDeliverableWebhook(feed) }, now))!;
}

/**
 * The channelIds a request sets, without repeats, or undefined when it sets none. Each must be a channel of
 * the account (checked in the writing transaction): another account's channel, like a missing one, is a
 * 404 naming it, so a foreign id tells nothing of its existence.
 */
async function checkChannelIds(
  deps: FeedsDeps,
  db: Db,
  accountId: string,
  feedId: string | null,
  body: Record<string, unknown>,
): Promise<string[] | undefined> {
  if (body.channelIds === undefined) return undefined;
  const ids = [...new Set(body.channelIds as string[])];
  const owned = await deps.channelDirectory.ownedBy(db, accountId, ids);
  const missing = ids.find((id) => !owned.has(id));
  if (missing !== undefined) throw notFound(`Channel not found: channelIds names ${JSON.stringify(missing)}, which is not a channel of this account`);
  await checkFanOut(deps, db, accountId, feedId, ids.length);
  return ids;
}

/**
 * The fan-out ceiling: each feed–channel link is one more event for every job that enters its feed, so an
 * account's links are capped (JOBPILOT_MAX_CHANNEL_LINKS_PER_ACCOUNT), counted in the writing transaction.
 * Only a write that adds links is refused: a lowered ceiling breaks no saved feed, and fewer links always save.
 */
async function checkFanOut(deps: FeedsDeps, db: Db, accountId: string, feedId: string | null, linksOfFeed: number): Promise<void> {
  const max = deps.config.maxChannelLinksPerAccount;
  const others = await feedChannels.countLinksOfAccount(db, accountId, feedId);
  const before = others + (feedId === null ? 0 : (await feedChannels.channelIdsOf(db, feedId)).length);
  if (others + linksOfFeed <= max || others + linksOfFeed <= before) return;
  throw new AppError("bad_request", "Validation failed", {
    details: [
      `channelIds would link this account's feeds to channels ${others + linksOfFeed} times; the most is ${max} (JOBPILOT_MAX_CHANNEL_LINKS_PER_ACCOUNT: every link is one more alert per matched job). Take channels off other feeds first, or have the operator raise the limit.`,
    ],
  });
}

function pickWritable(body: Record<string, unknown>): Writable {
  const out: Record<string, unknown> = {};
  for (const f of WRITABLE_FIELDS) if (body[f] !== undefined) out[f] = body[f];
  if (Array.isArray(out.platforms)) out.platforms = [...new Set(out.platforms as string[])];
  if (Array.isArray(out.jobTypes)) out.jobTypes = [...new Set(out.jobTypes as string[])];
  if (typeof out.webhookUrl === "string" && out.webhookUrl.trim() === "") out.webhookUrl = null;
  return out as Writable;
}

/** Secrets are shown whole once (when created or rotated); afterwards only enough to recognise them. */
function maskSecret(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

/**
 * A returned feed: id, createdAtTs, every field with a value (defaults included), none that is unset; channelIds always.
 * The webhook URL and secret are shown opened; under a key that cannot open them neither is shown (as a channel
 * shows an empty config), and its deliveries fail saying why (webhookLastError), until the URL is saved again.
 */
async function toFeedView(
  deps: Pick<FeedsDeps, "db" | "secretKey">,
  row: repo.FeedRow,
  channelIds: readonly string[],
  opts: { revealSecret?: boolean } = {},
): Promise<Feed> {
  const hook = await openWebhookOrNull(deps.secretKey, row);
  const view: Record<string, unknown> = { id: row.id, createdAtTs: row.createdAtTs };
  for (const f of WRITABLE_FIELDS) {
    const v = f === "webhookUrl" ? hook?.webhookUrl : row[f];
    if (v !== null && v !== undefined) view[f] = v;
  }
  view.channelIds = channelIds;
  const secret = hook?.webhookSecret;
  if (secret) view.webhookSecret = opts.revealSecret ? secret : maskSecret(secret);
  if (row.webhookDisabledAtTs !== null) {
    view.webhookDisabledAtTs = row.webhookDisabledAtTs;
    view.webhookDisabledReason = row.webhookDisabledReason;
  }
  // Read only while failing (a success clears it): the common case costs no query.
  const lastError = row.webhookFailingSinceTs === null ? null : await lastWebhookError(deps.db, row.id);
  if (lastError !== null) view.webhookLastError = lastError;
  return view as Feed;
}

export async function listFeeds(deps: FeedsDeps, auth: AuthContext): Promise<Feed[]> {
  const rows = await repo.listFeedsCached(deps.db, auth.accountId);
  const channels = await feedChannels.channelIdsOfFeeds(
    deps.db,
    rows.map((r) => r.id),
  );
  return Promise.all(rows.map((row) => toFeedView(deps, row, channels.get(row.id) ?? [])));
}

export async function requireFeed(deps: Pick<FeedsDeps, "db">, auth: AuthContext, feedId: string): Promise<repo.FeedRow> {
  const row = await repo.findFeed(deps.db, auth.accountId, feedId);
  if (!row) throw notFound("Feed not found");
  return row;
}

export async function getFeed(deps: FeedsDeps, auth: AuthContext, feedId: string): Promise<Feed> {
  const row = await requireFeed(deps, auth, feedId);
  return toFeedView(deps, row, await feedChannels.channelIdsOf(deps.db, row.id));
}

/** A new feed's fields: the body's writable ones over the defaults. */
export type NewFeedFields = Writable & { minScore: number; profilePrompt: string; title: string };

/**
 * A feed-creation body's fields, once the checks its schema cannot express pass (else the 400 naming each). The
 * feed preview checks its body here too, so a body it accepts is one creation accepts (but for the channel and
 * feed-count checks, which need the writing transaction).
 */
export async function checkNewFeed(deps: FeedsDeps, auth: AuthContext, body: Record<string, unknown>) {
  const fields = pickWritable(body);
  const merged = { ...DEFAULTS, ...fields } as NewFeedFields;
  const ceilings = await ceilingsOf(deps, auth.accountId);
  const details = [...promptLengthDetails(fields, ceilings.promptChars), ...crossFieldDetails(merged, fields), ...(await webhookUrlDetails(deps, fields))];
  if (details.length) throw new AppError("bad_request", "Validation failed", { details });
  return { merged, ceilings };
}

export async function createFeed(deps: FeedsDeps, auth: AuthContext, body: Record<string, unknown>): Promise<Feed> {
  const { merged, ceilings } = await checkNewFeed(deps, auth, body);
  const now = deps.clock.now();
  // Sealed before the transaction: the crypto holds no write lock.
  const webhook = await sealChanges(deps.secretKey, { webhookUrl: merged.webhookUrl ?? null, webhookSecret: merged.webhookUrl ? generateSecret() : null });
  const { row, channelIds } = await tx(deps.db, async (db) => {
    // Counted inside the IMMEDIATE transaction, so concurrent creates cannot both take the last place.
    const existing = await repo.countFeeds(db, auth.accountId);
    if (existing >= ceilings.feeds) {
      throw new AppError(
        "conflict",
        `Feed limit reached: this account has ${existing} feeds and may have ${ceilings.feeds} (its maxFeeds). Delete a feed, or have the operator raise the limit with jobpilot account limits --feeds N.`,
      );
    }
    const inserted = await repo.insertFeed(db, {
      ...merged,
      ...webhook,
      id: newId(),
      accountId: auth.accountId,
      createdAtTs: now,
      updatedAtTs: now,
    } as repo.FeedInsert);
    const channelIds = (await checkChannelIds(deps, db, auth.accountId, inserted.id, body)) ?? [];
    await feedChannels.setChannelIds(db, inserted.id, channelIds);
    if (inserted.webhookUrl && !inserted.notificationsMuted) await queueTestEvent(db, inserted, now);
    return { row: inserted, channelIds };
  });
  deps.feedIndex.upsert({ ...row, channelIds });
  if (row.webhookUrl && !row.notificationsMuted) deps.wake();
  return toFeedView(deps, row, channelIds, { revealSecret: true });
}

export async function patchFeed(deps: FeedsDeps, auth: AuthContext, feedId: string, body: Record<string, unknown>): Promise<Feed> {
  const changes = pickWritable(body);
  const current = await requireFeed(deps, auth, feedId);
  if (Object.keys(changes).length === 0 && body.channelIds === undefined) {
    throw new AppError("bad_request", `No updatable fields in the request body (updatable: ${[...WRITABLE_FIELDS, "channelIds"].join(", ")})`);
  }
  // The prompt rule is checked on the feed as it will be after this write.
  const details = [
    ...promptLengthDetails(changes, (await ceilingsOf(deps, auth.accountId)).promptChars),
    ...crossFieldDetails({ ...current, ...changes } as Writable & { minScore: number; profilePrompt: string }, changes),
    ...(await webhookUrlDetails(deps, changes)),
  ];
  if (details.length) throw new AppError("bad_request", "Validation failed", { details });
  const now = deps.clock.now();
  // Compared opened: the same URL seals differently every time. Values this key cannot open count as none.
  const currentHook: WebhookValues | null = await openWebhookOrNull(deps.secretKey, current);
  // Saving a URL (new, changed, or the same one on a disabled endpoint) re-enables it and sends a test event (none while muted).
  const savesUrl = typeof changes.webhookUrl === "string" && (changes.webhookUrl !== (currentHook?.webhookUrl ?? null) || current.webhookDisabledAtTs !== null);
  const newSecret = savesUrl && !currentHook?.webhookSecret ? generateSecret() : null;
  // A secret that cannot be opened signs nothing: a new one replaces it and the old pair goes with it.
  const stored = await sealChanges(deps.secretKey, {
    ...changes,
    ...(newSecret ? { webhookSecret: newSecret, webhookPreviousSecret: null, webhookPreviousUntilTs: null } : {}),
  });
  const { row, channelIds } = await tx(deps.db, async (db) => {
    const newChannelIds = await checkChannelIds(deps, db, auth.accountId, current.id, body);
    // updated_at_ts moves with the channels too: it is how other nodes see the feed changed (index-sync.ts).
    const updated = await repo.updateFeed(db, current.id, {
      ...stored,
      ...(savesUrl ? { webhookDisabledAtTs: null, webhookDisabledReason: null, webhookFailingSinceTs: null } : {}),
      updatedAtTs: now,
    });
    if (!updated) return { row: undefined, channelIds: [] };
    if (newChannelIds !== undefined) {
      // What was queued for a channel taken off the feed is ended now, not found one by one by the deliverer.
      const removed = (await feedChannels.channelIdsOf(db, updated.id)).filter((id) => !newChannelIds.includes(id));
      for (const channelId of removed) await dropEvents(db, [updated.id], channelId, DROPPED_CHANNEL_REMOVED);
      await feedChannels.setChannelIds(db, updated.id, newChannelIds);
    }
    if (updated.notificationsMuted && !current.notificationsMuted) await dropEvents(db, [updated.id], null, DROPPED_MUTED);
    if (savesUrl && !updated.notificationsMuted) await queueTestEvent(db, updated, now);
    return { row: updated, channelIds: newChannelIds ?? (await feedChannels.channelIdsOf(db, updated.id)) };
  });
  if (!row) throw notFound("Feed not found");
  deps.feedIndex.upsert({ ...row, channelIds });
  if (savesUrl) deps.wake();
  return toFeedView(deps, row, channelIds, { revealSecret: newSecret !== null });
}

/**
 * A new signing secret, shown once. The old one keeps signing alongside it for
 * JOBPILOT_WEBHOOK_ROTATION_WINDOW_MS, so receivers can switch without losing events.
 */
export async function rotateWebhookSecret(deps: FeedsDeps, auth: AuthContext, feedId: string): Promise<Feed> {
  const next = await sealValue(deps.secretKey, "webhookSecret", generateSecret());
  // Read and written in one transaction: two rotations at once must not both keep the same previous secret.
  const row = await tx(deps.db, async (db) => {
    const current = await requireFeed({ db }, auth, feedId);
    if (!current.webhookSecret) throw new AppError("bad_request", "This feed has no webhook secret yet: set webhookUrl first");
    // The old secret keeps signing through the window, so it is kept sealed too; one this key cannot open signs nothing and is dropped.
    const previous = (await openWebhookOrNull(deps.secretKey, current))?.webhookSecret ?? null;
    return (await repo.updateFeed(db, current.id, {
      webhookSecret: next,
      webhookPreviousSecret: await sealValue(deps.secretKey, "webhookPreviousSecret", previous),
      webhookPreviousUntilTs: previous === null ? null : deps.clock.now() + deps.config.webhookRotationWindowMs,
      updatedAtTs: deps.clock.now(),
    }))!;
  });
  const channelIds = await feedChannels.channelIdsOf(deps.db, row.id);
  deps.feedIndex.upsert({ ...row, channelIds });
  return toFeedView(deps, row, channelIds, { revealSecret: true });
}

/** Queues a `webhook.test` event now (202). A muted feed sends nothing, so asking it to is a 409. */
export async function sendTestWebhook(deps: FeedsDeps, auth: AuthContext, feedId: string): Promise<{ queued: true; eventId: string }> {
  // The feed as it is when the event is written: checked and queued in one transaction.
  const eventId = await tx(deps.db, async (db) => {
    const feed = await requireFeed({ db }, auth, feedId);
    if (!feed.webhookUrl) throw new AppError("bad_request", "This feed has no webhook URL: set webhookUrl first");
    if (feed.webhookDisabledAtTs !== null) throw new AppError("bad_request", "The webhook endpoint is disabled: save the webhook URL again to re-enable it");
    if (feed.notificationsMuted) throw new AppError("conflict", MUTED_MESSAGE);
    return queueTestEvent(db, feed, deps.clock.now());
  });
  deps.wake();
  return { queued: true, eventId };
}

/** Removes the feed and every job matched into it, in one statement (cascading foreign keys). */
export async function deleteFeed(deps: FeedsDeps, auth: AuthContext, feedId: string): Promise<{ deleted: true; feedId: string }> {
  await tx(deps.db, async (db) => {
    if (!(await repo.deleteFeed(db, auth.accountId, feedId))) throw notFound("Feed not found");
    // Out of the index before the commit: no ingest (its transaction waits for this one) can match a feed that is gone.
    deps.feedIndex.remove(feedId);
  });
  return { deleted: true, feedId };
}

/**
 * Takes a channel off every feed, inside the caller's transaction (the channels module deletes the channel in
 * it). Returns what brings this node's feed index in step, for the caller to run at the end of that
 * transaction; other nodes see the feeds' updated_at_ts move.
 */
export async function detachChannel(deps: Pick<FeedsDeps, "feedIndex">, db: Db, channelId: string, nowTs: number): Promise<() => void> {
  const feedIds = await feedChannels.removeChannel(db, channelId);
  await dropEvents(db, feedIds, channelId, DROPPED_CHANNEL_DELETED);
  const rows = await Promise.all(feedIds.map((id) => repo.updateFeed(db, id, { updatedAtTs: nowTs })));
  const channels = await feedChannels.channelIdsOfFeeds(db, feedIds);
  return () => {
    for (const row of rows) if (row) deps.feedIndex.upsert({ ...row, channelIds: channels.get(row.id) ?? [] });
  };
}

/** A job as a feed's lists show it (its matched jobs, and the ones kept out: filtered.ts). */
export function toJobSummaryView(job: JobSummary): FeedJobItem["job"] {
  return {
    ciphertext: job.ciphertext,
    title: job.title,
    url: job.url,
    platform: job.platform,
    source: job.source,
    jobType: job.jobType,
    hourlyMin: job.hourlyMin,
    hourlyMax: job.hourlyMax,
    fixedBudget: job.fixedBudget,
    clientCountry: job.clientCountry,
    publishTime: isoOrNull(job.publishTimeTs),
  };
}

function toFeedJobItem(item: repo.FeedJobListing): FeedJobItem {
  const { feedJob: m, job } = item;
  return {
    processedJobId: m.id,
    matchingScore: m.matchingScore,
    scoreSource: m.scoreSource,
    scoreReason: m.scoreReason,
    matchedAt: iso(m.matchedAtTs),
    read: m.read,
    starredAt: m.starredAtTs,
    job: toJobSummaryView(job),
  };
}

/**
 * What a list of the account's feed entries marks each job with (issue 45): its signals as archived, and whether
 * its client is favoured now (read at list time: the list may have changed since the job entered).
 */
export async function jobMarks(
  db: Db,
  accountId: string,
  ciphertexts: readonly string[],
): Promise<(ciphertext: string) => { favoured: boolean; signals: JobSignal[] }> {
  const stored = await signalsOfJobs(db, ciphertexts);
  const companies = [...stored.values()].map((s) => s.companyId).filter((c): c is string => c !== null);
  const lists = await listEntriesFor(db, [accountId], companies);
  return (ciphertext) => {
    const s = stored.get(ciphertext);
    return { favoured: !!s?.companyId && lists.get(`${accountId}:${s.companyId}`)?.list === "favoured", signals: signalsOf(s?.signals) };
  };
}

export async function listFeedJobs(
  deps: FeedsDeps,
  auth: AuthContext,
  feedId: string,
  query: { limit?: number; offset?: number; minScore?: number; unread?: boolean },
): Promise<{ jobs: FeedJobItem[]; total: number; limit: number; offset: number }> {
  await requireFeed(deps, auth, feedId);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const { items, total } = await repo.listFeedJobs(deps.db, feedId, { limit, offset, minScore: query.minScore, unreadOnly: query.unread === true });
  const marks = await jobMarks(
    deps.db,
    auth.accountId,
    items.map((i) => i.job.ciphertext),
  );
  return { jobs: items.map((i) => ({ ...toFeedJobItem(i), ...marks(i.job.ciphertext) })), total, limit, offset };
}

/** What a read/star/dismiss change writes: a star keeps the time it was first given, and a dismissal also marks read. */
function entryChanges(existing: repo.FeedJobRow, body: TriageChange, nowTs: number) {
  const changes: { read?: boolean; starredAtTs?: number | null; dismissedAtTs?: number | null } = {};
  if (body.read !== undefined) changes.read = body.read;
  if (body.starred !== undefined) changes.starredAtTs = body.starred ? (existing.starredAtTs ?? nowTs) : null;
  if (body.dismissed !== undefined) {
    changes.dismissedAtTs = body.dismissed ? (existing.dismissedAtTs ?? nowTs) : null;
    if (body.dismissed) changes.read = true;
  }
  return changes;
}

export async function patchFeedJob(
  deps: FeedsDeps,
  auth: AuthContext,
  feedId: string,
  processedJobId: string,
  body: { read?: boolean; starred?: boolean },
): Promise<FeedJobItem> {
  await requireFeed(deps, auth, feedId);
  // Read and written in one transaction, so a star keeps the time it was first given.
  const listing = await tx(deps.db, async (db) => {
    const existing = await repo.findFeedJob(db, feedId, processedJobId);
    if (!existing) throw notFound("Job not found in this feed");
    if (body.read === undefined && body.starred === undefined)
      throw new AppError("bad_request", "No updatable fields in the request body (updatable: read, starred)");
    await repo.updateFeedJob(db, existing.id, entryChanges(existing, body, deps.clock.now()));
    return (await repo.getFeedJobListing(db, feedId, existing.id))!;
  });
  return toFeedJobItem(listing);
}

// ---------- the dashboard's inbox: every feed's entries in one list ----------

export type InboxFilter = repo.InboxFilter;

/** A feed entry as the inbox shows it: the API's item plus its feed and when it was dismissed. */
export interface InboxItem extends FeedJobItem {
  feedId: string;
  feedTitle: string;
  dismissedAt: number | null;
}

export interface TriageChange {
  read?: boolean;
  starred?: boolean;
  /** "Not interested": the entry leaves the inbox (recorded; it teaches the scorer nothing yet). */
  dismissed?: boolean;
}

function toInboxItem(entry: repo.InboxEntry): InboxItem {
  return { ...toFeedJobItem(entry), feedId: entry.feedJob.feedId, feedTitle: entry.feedTitle, dismissedAt: entry.feedJob.dismissedAtTs };
}

/** A page of the account's entries across all its feeds, newest first; a filter naming another account's feed is a 404. */
export async function listInbox(
  deps: Pick<FeedsDeps, "db">,
  auth: AuthContext,
  filter: InboxFilter,
  page: { limit: number; offset: number },
): Promise<{ items: InboxItem[]; total: number }> {
  if (filter.feedId !== undefined) await requireFeed(deps, auth, filter.feedId);
  const { entries, total } = await repo.listInbox(deps.db, auth.accountId, filter, page);
  return { items: entries.map(toInboxItem), total };
}

/** How many entries match `filter` and when the newest matched (the inbox's unread count and "N new" badge). */
export function countInbox(deps: Pick<FeedsDeps, "db">, auth: AuthContext, filter: InboxFilter): Promise<{ count: number; newestTs: number | null }> {
  return repo.inboxCount(deps.db, auth.accountId, filter);
}

/** One of the account's entries; another account's (or none) is a 404. */
export async function getInboxItem(deps: Pick<FeedsDeps, "db">, auth: AuthContext, processedJobId: string): Promise<InboxItem> {
  const entry = isUuid(processedJobId) ? await repo.findInboxEntry(deps.db, auth.accountId, processedJobId) : undefined;
  if (!entry) throw notFound("Job not found in your feeds");
  return toInboxItem(entry);
}

/** Marks one of the account's entries read or unread, starred or not, dismissed or back (one transaction). */
export async function triageInboxItem(
  deps: Pick<FeedsDeps, "db" | "clock">,
  auth: AuthContext,
  processedJobId: string,
  change: TriageChange,
): Promise<InboxItem> {
  if (change.read === undefined && change.starred === undefined && change.dismissed === undefined) {
    throw new AppError("bad_request", "Nothing to change (one of read, starred, dismissed)");
  }
  return tx(deps.db, async (db) => {
    const existing = isUuid(processedJobId) ? await repo.findInboxEntry(db, auth.accountId, processedJobId) : undefined;
    if (!existing) throw notFound("Job not found in your feeds");
    await repo.updateFeedJob(db, existing.feedJob.id, entryChanges(existing.feedJob, change, deps.clock.now()));
    return toInboxItem((await repo.findInboxEntry(db, auth.accountId, existing.feedJob.id))!);
  });
}

const CIPHERTEXT = /^~[0-9A-Za-z]{1,99}$/;
const CIPHERTEXT_IN_URL = /~[0-9A-Za-z]{1,99}/g;

export interface ResolvedJob {
  row: JobRow;
  job: NormalizedJob;
  /** The processed job UUID the caller gave, else the caller's newest feed entry for the job; null when none of their feeds has it. */
  processedJobId: string | null;
}

/**
 * Turns the spec's `jobId` into an archived job: a ciphertext (`~…`), a full
 * job URL in any of the marketplace's forms (`…/jobs/~01…`,
 * `…/jobs/Some-title_~01…/`, with or without a query string), or the UUID of a
 * processed job in one of the caller's feeds. Malformed → 400; not archived
 * (or another account's processed job) → 404.
 */
export async function resolveJobRef(deps: { db: Db }, auth: AuthContext, ref: string, field = "jobId"): Promise<ResolvedJob> {
  const value = ref.trim();
  let ciphertext: string;
  let processedJobId: string | null = null;
  if (value.startsWith("~")) {
    if (!CIPHERTEXT.test(value)) throw new AppError("bad_request", `${field} is not a valid job ciphertext (~ followed by letters and digits)`);
    ciphertext = value;
  } else if (/^https?:\/\//i.test(value)) {
    let path: string;
    try {
      path = decodeURIComponent(new URL(value).pathname);
    } catch {
      throw new AppError("bad_request", `${field} is not a valid URL`);
    }
    const found = path.match(CIPHERTEXT_IN_URL);
    if (!found) throw new AppError("bad_request", `${field} URL does not contain a job ciphertext (~…)`);
    ciphertext = found[found.length - 1]!;
  } else if (isUuid(value)) {
    const entry = await repo.findFeedJobForAccount(deps.db, auth.accountId, value);
    if (!entry) throw notFound("Job not found");
    ciphertext = entry.jobCiphertext;
    processedJobId = entry.id;
  } else {
    throw new AppError("bad_request", `${field} must be a job ciphertext (~…), a job URL, or a processed job UUID`);
  }
  const row = await findJob(deps.db, ciphertext);
  if (!row) throw notFound("Job not found");
  const normalized = normalizeJob(row.document);
  if (!normalized.ok) throw new AppError("internal", `archived job ${ciphertext} does not normalize: ${normalized.error}`);
  // However the job was named, an application links to the feed entry it came from (the newest, when several feeds took it).
  processedJobId ??= (await repo.newestMatchOf(deps.db, auth.accountId, ciphertext))?.id ?? null;
  return { row, job: normalized.job, processedJobId };
}

/**
 * A feed's apply mode and its thresholds (modules/automation decides what they allow; the spec's feed endpoints
 * never read or write them). `alongside` runs in the same transaction (the automation audit entry).
 */
export async function setFeedApplyMode(
  deps: FeedsDeps,
  auth: AuthContext,
  feedId: string,
  changes: Pick<repo.FeedRow, "applyMode" | "autoMinScore" | "autoMinExpectedUsd" | "overBudget"> & Partial<Pick<repo.FeedRow, "freelancerId" | "profileId">>,
  alongside: (db: Db) => Promise<void>,
): Promise<repo.FeedRow> {
  const row = await tx(deps.db, async (db) => {
    const current = await requireFeed({ db }, auth, feedId);
    const updated = (await repo.updateFeed(db, current.id, { ...changes, updatedAtTs: deps.clock.now() }))!;
    await alongside(db);
    return updated;
  });
  deps.feedIndex.upsert({ ...row, channelIds: await feedChannels.channelIdsOf(deps.db, row.id) });
  return row;
}
