/**
 * Which due events the deliverer looks at next, fairly: round-robin over the accounts with work, then, within
 * an account, round-robin over its targets (a feed's webhook, or one (feed, channel)), from cursors kept by
 * the caller. Every step is one seek on a partial index of events still to send (events_account_due_idx,
 * events_target_due_idx), and each account's walk is capped per pick, so a pick costs the same whatever the
 * size of any account's backlog: a backlog of 100,000 events costs the other accounts one turn, not a scan.
 * (The global oldest-first scan this replaces walked past every older event of every account on each round.)
 */
import type { Db } from "../../db/client";
import { rawMany } from "../../db/query";
import { WEBHOOK_TARGET } from "./outbox";

/** A due event as the pick sees it: the first event of one target, by (next attempt, seq). */
export interface FairCandidate {
  seq: number;
  accountId: string;
  feedId: string;
  target: string;
  nextAttemptAtTs: number;
}

/** Where the last pick left off: the account served first, and each account's last target looked at. */
export interface FairCursor {
  account: string;
  targets: Map<string, { feedId: string; target: string }>;
}

export function newFairCursor(): FairCursor {
  return { account: "", targets: new Map() };
}

/** What the deliverer tells the pick about its own state. */
export interface FairOptions {
  cursor: FairCursor;
  /** Deliveries an account may still start now (its share of the slots, minus what it has in flight). */
  roomOf: (accountId: string) => number;
  /** Targets not to send to now: in flight here, paused for their pace or a retry, or behind an open breaker. */
  isSkipped: (feedId: string, target: string) => boolean;
  /** Index seeks one account's walk may make per pick (the bound that keeps a pick's cost flat). */
  seeksPerAccount: number;
}

/** Accounts with events still to send, at most this many per pick (one seek each). */
const MAX_ACCOUNTS = 1_000;

/**
 * The accounts with events still to send and the due time of each one's oldest (one seek per account on
 * events_account_due_idx: a loose index scan, not a read of the backlog). Also what /readyz and /metrics show.
 */
export async function accountHeads(db: Db, limit = MAX_ACCOUNTS): Promise<{ accountId: string; oldestDueTs: number }[]> {
  const rows = await rawMany<{ accountId: string; oldest: number | string | null }>(
    db,
    "outbox.accountHeads",
    `WITH RECURSIVE a(id) AS (
       SELECT (SELECT min(account_id) FROM events WHERE status IN ('pending', 'retrying'))
       UNION ALL
       SELECT (SELECT min(account_id) FROM events WHERE status IN ('pending', 'retrying') AND account_id > a.id) FROM a WHERE a.id IS NOT NULL
     )
     SELECT id AS "accountId",
            (SELECT min(next_attempt_at_ts) FROM events WHERE account_id = a.id AND status IN ('pending', 'retrying')) AS oldest
     FROM a WHERE id IS NOT NULL LIMIT ?`,
    [limit],
  );
  return rows.filter((r) => r.oldest !== null).map((r) => ({ accountId: r.accountId, oldestDueTs: Number(r.oldest) }));
}

/**
 * Above every next_attempt_at_ts: the seek lands past all of the cursor target's own events. (With
 * `(feed_id, target) > (?, ?)` both SQLite and PostgreSQL seek to the cursor target's first entry and read
 * through all of its events: a step would cost that target's backlog.)
 */
const PAST_EVERY_TIME = "9223372036854775807";

/** The account's next target after (feedId, target) with events still to send, and that target's first event by (next attempt, seq). */
async function nextTarget(db: Db, accountId: string, after: { feedId: string; target: string }): Promise<FairCandidate | undefined> {
  const rows = await rawMany<{ seq: number | string; feedId: string; target: string; next: number | string }>(
    db,
    "outbox.nextTarget",
    `SELECT seq, feed_id AS "feedId", target, next_attempt_at_ts AS next FROM events
     WHERE account_id = ? AND status IN ('pending', 'retrying') AND (feed_id, target, next_attempt_at_ts) > (?, ?, ${PAST_EVERY_TIME})
     ORDER BY account_id, feed_id, target, next_attempt_at_ts, seq LIMIT 1`,
    [accountId, after.feedId, after.target],
  );
  const r = rows[0];
  return r ? { seq: Number(r.seq), accountId, feedId: r.feedId, target: r.target, nextAttemptAtTs: Number(r.next) } : undefined;
}

const START = { feedId: "", target: "" };

/**
 * One account's turn: its due, unskipped targets from its cursor on (wrapping once), at most `want` of them
 * and at most `seeks` index seeks. The cursor moves to the last target looked at, so the next turn goes on
 * from there and every target of a large account comes round in turn.
 */
async function accountTurn(db: Db, accountId: string, nowTs: number, want: number, seeks: number, opts: FairOptions): Promise<FairCandidate[]> {
  const out: FairCandidate[] = [];
  const from = opts.cursor.targets.get(accountId) ?? START;
  let at = from;
  let wrapped = from === START;
  for (let n = 0; n < seeks && out.length < want; n++) {
    const next = await nextTarget(db, accountId, at);
    if (!next) {
      if (wrapped) break;
      wrapped = true;
      at = START;
      continue;
    }
    // Back where this turn began: every target was looked at.
    if (wrapped && from !== START && (next.feedId > from.feedId || (next.feedId === from.feedId && next.target > from.target))) break;
    at = { feedId: next.feedId, target: next.target };
    if (next.nextAttemptAtTs <= nowTs && !opts.isSkipped(next.feedId, next.target)) out.push(next);
  }
  opts.cursor.targets.set(accountId, at);
  return out;
}

/**
 * Up to `max` due events, at most one per target, interleaved account by account: each account with due
 * work and room gets an equal turn (the first turn of a pick goes to the account after the one that went
 * first last time). The webhook's candidate is its oldest due event; a channel's is only a sign that the
 * channel has due work: the caller sends the channel's head instead (outbox.channelHead), in seq order.
 */
export async function fairCandidates(db: Db, nowTs: number, max: number, opts: FairOptions): Promise<FairCandidate[]> {
  if (max <= 0) return [];
  const heads = (await accountHeads(db)).filter((h) => h.oldestDueTs <= nowTs && opts.roomOf(h.accountId) > 0);
  if (heads.length === 0) return [];
  const start = heads.findIndex((h) => h.accountId > opts.cursor.account);
  const order = start <= 0 ? heads : [...heads.slice(start), ...heads.slice(0, start)];
  const share = Math.max(1, Math.ceil(max / order.length));
  const turns: FairCandidate[][] = [];
  for (const h of order) {
    turns.push(await accountTurn(db, h.accountId, nowTs, Math.min(share, opts.roomOf(h.accountId)), opts.seeksPerAccount, opts));
  }
  opts.cursor.account = order[0]!.accountId;
  // Round-robin: every account's first, then every account's second, …
  const out: FairCandidate[] = [];
  for (let i = 0; out.length < max && turns.some((t) => i < t.length); i++) for (const t of turns) if (i < t.length && out.length < max) out.push(t[i]!);
  return out;
}

/** Whether anything is due that the deliverer could send now (its idle check): one account turn at most. */
export async function hasDueWork(db: Db, nowTs: number, isSkipped: FairOptions["isSkipped"]): Promise<boolean> {
  const found = await fairCandidates(db, nowTs, 1, { cursor: newFairCursor(), roomOf: () => 1, isSkipped, seeksPerAccount: 10_000 });
  return found.length > 0;
}

/** The key the deliverer pauses a target under: a channel's id (its pace is the channel's), a webhook's feed. */
export function pauseKeyOf(feedId: string, target: string): string {
  return target === WEBHOOK_TARGET ? feedId : target;
}
