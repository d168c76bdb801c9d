import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { isPg, type Db } from "../../db/client";
import { exec, many, one, preparedOne, tables } from "../../db/query";
import type { channels } from "../../db/schema";

export type ChannelRow = typeof channels.$inferSelect;
export type ChannelInsert = typeof channels.$inferInsert;

export async function insertChannel(db: Db, row: ChannelInsert): Promise<ChannelRow> {
  const { channels } = tables(db);
  return (await one(db, db.insert(channels).values(row).returning()))!;
}

export function updateChannel(db: Db, id: string, changes: Partial<ChannelInsert>): Promise<ChannelRow | undefined> {
  const { channels } = tables(db);
  return one(db, db.update(channels).set(changes).where(eq(channels.id, id)).returning());
}

/** One account's channel; another account's is simply not found. */
export function findChannel(db: Db, accountId: string, id: string): Promise<ChannelRow | undefined> {
  const { channels } = tables(db);
  return one(
    db,
    db
      .select()
      .from(channels)
      .where(and(eq(channels.id, id), eq(channels.accountId, accountId))),
  );
}

/** A channel by id alone: the deliverer's read, once per event sent. */
export function findChannelById(db: Db, id: string): Promise<ChannelRow | undefined> {
  return preparedOne(
    db,
    "channels.byId",
    (d) => {
      const { channels } = tables(d);
      return d
        .select()
        .from(channels)
        .where(eq(channels.id, sql.placeholder("id")));
    },
    { id },
  );
}

/** Every channel of one kind, whoever owns it (the Telegram bots to poll), newest change first. */
export function channelsOfType(db: Db, type: ChannelRow["type"]): Promise<ChannelRow[]> {
  const { channels } = tables(db);
  return many(db, db.select().from(channels).where(eq(channels.type, type)).orderBy(desc(channels.updatedAtTs)));
}

/** How many channels of a kind there are and the newest change among them: moves whenever one is added, changed or deleted. */
export async function channelsOfTypeVersion(db: Db, type: ChannelRow["type"]): Promise<string> {
  const { channels } = tables(db);
  const row = await one(
    db,
    db
      .select({ n: sql<number>`count(*)`.mapWith(Number), newest: sql<number | null>`max(${channels.updatedAtTs})` })
      .from(channels)
      .where(eq(channels.type, type)),
  );
  return `${row?.n ?? 0}:${row?.newest ?? ""}`;
}

/** An account's channels, oldest first. */
export async function listChannels(db: Db, accountId: string): Promise<ChannelRow[]> {
  const { channels } = tables(db);
  const rows = await many(db, db.select().from(channels).where(eq(channels.accountId, accountId)));
  return rows.sort((a, b) => a.createdAtTs - b.createdAtTs || (a.id < b.id ? -1 : 1));
}

export async function countChannels(db: Db, accountId: string): Promise<number> {
  const { channels } = tables(db);
  const row = await one(
    db,
    db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(channels)
      .where(eq(channels.accountId, accountId)),
  );
  return row?.n ?? 0;
}

/** The ids among `ids` that are channels of this account. */
export async function ownedChannelIds(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { channels } = tables(db);
  const rows = await many(
    db,
    db
      .select({ id: channels.id })
      .from(channels)
      .where(and(eq(channels.accountId, accountId), inArray(channels.id, [...ids]))),
  );
  return new Set(rows.map((r) => r.id));
}

/** Names and kinds of these channels by id (for the deliveries list), whoever owns them. */
export async function channelLabels(db: Db, ids: readonly string[]): Promise<Map<string, Pick<ChannelRow, "id" | "type" | "name">>> {
  if (ids.length === 0) return new Map();
  const { channels } = tables(db);
  const rows = await many(
    db,
    db
      .select({ id: channels.id, type: channels.type, name: channels.name })
      .from(channels)
      .where(inArray(channels.id, [...ids])),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export async function deleteChannel(db: Db, accountId: string, id: string): Promise<boolean> {
  const { channels } = tables(db);
  return (await exec(db, db.delete(channels).where(and(eq(channels.id, id), eq(channels.accountId, accountId))))) > 0;
}

/** After an attempt: a delivery stamps lastDeliveryAt and clears lastError; a failure sets lastError. */
export async function noteChannelOutcome(db: Db, id: string, outcome: { deliveredAtTs: number } | { error: string }): Promise<void> {
  const { channels } = tables(db);
  await exec(
    db,
    db
      .update(channels)
      .set("deliveredAtTs" in outcome ? { lastDeliveryAtTs: outcome.deliveredAtTs, lastError: null } : { lastError: outcome.error })
      .where(eq(channels.id, id)),
  );
}

/** Channels whose last attempt failed (`jobpilot doctor`), oldest first; a later delivery clears lastError. */
export function failingChannels(db: Db): Promise<Pick<ChannelRow, "id" | "accountId" | "type" | "name" | "lastError" | "lastDeliveryAtTs">[]> {
  const { channels } = tables(db);
  return many(
    db,
    db
      .select({
        id: channels.id,
        accountId: channels.accountId,
        type: channels.type,
        name: channels.name,
        lastError: channels.lastError,
        lastDeliveryAtTs: channels.lastDeliveryAtTs,
      })
      .from(channels)
      .where(isNotNull(channels.lastError))
      .orderBy(channels.createdAtTs),
  );
}

/**
 * Makes `accountId` the holder of Telegram bot `botId`, in the caller's transaction (before it writes the
 * channel): false when another account holds it and still has a channel on it. A holder left with no channel
 * on the bot is stale and replaced. The row is created if missing, then locked (PostgreSQL): a second
 * account's claim waits for the first's transaction, then sees its channel.
 */
export async function claimTelegramBot(db: Db, botId: string, accountId: string, nowTs: number): Promise<boolean> {
  const { telegramBotOwners, channels } = tables(db);
  await exec(db, db.insert(telegramBotOwners).values({ botId, accountId, claimedAtTs: nowTs }).onConflictDoNothing());
  let holder = db.select({ accountId: telegramBotOwners.accountId }).from(telegramBotOwners).where(eq(telegramBotOwners.botId, botId));
  if (isPg(db)) holder = (holder as unknown as { for(strength: "update"): typeof holder }).for("update");
  const current = await one(db, holder);
  if (current?.accountId === accountId) return true;
  if (current) {
    const stillUsed = await one(
      db,
      db
        .select({ id: channels.id })
        .from(channels)
        .where(and(eq(channels.accountId, current.accountId), eq(channels.telegramBotId, botId)))
        .limit(1),
    );
    if (stillUsed) return false;
  }
  await exec(
    db,
    db
      .insert(telegramBotOwners)
      .values({ botId, accountId, claimedAtTs: nowTs })
      .onConflictDoUpdate({ target: telegramBotOwners.botId, set: { accountId, claimedAtTs: nowTs } }),
  );
  return true;
}

/** Which account holds each Telegram bot (bot id → account id). */
export async function telegramBotHolders(db: Db): Promise<Map<string, string>> {
  const { telegramBotOwners } = tables(db);
  const rows = await many(db, db.select().from(telegramBotOwners));
  return new Map(rows.map((r) => [r.botId, r.accountId]));
}
