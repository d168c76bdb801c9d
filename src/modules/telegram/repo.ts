import { and, asc, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, many, one, tables } from "../../db/query";
import type { telegramBindingCodes, telegramChats, telegramDrafts } from "../../db/schema";

export type BindingCodeRow = typeof telegramBindingCodes.$inferSelect;
export type ChatRow = typeof telegramChats.$inferSelect;
export type DraftRow = typeof telegramDrafts.$inferSelect;

// ---------------------------------------------------------------------------
// Update offsets

/** The next update_id to ask `botId`'s getUpdates for; 0 (Telegram's "from the oldest unconfirmed") before the first. */
export async function updateOffset(db: Db, botId: string): Promise<number> {
  const { telegramBots } = tables(db);
  const row = await one(db, db.select({ offset: telegramBots.updateOffset }).from(telegramBots).where(eq(telegramBots.botId, botId)));
  return row ? Number(row.offset) : 0;
}

/** Moves the offset forward (never back: a late write of a node that lost the bot cannot replay updates). */
export async function saveUpdateOffset(db: Db, botId: string, offset: number, nowTs: number): Promise<void> {
  const { telegramBots } = tables(db);
  await exec(
    db,
    db
      .insert(telegramBots)
      .values({ botId, updateOffset: offset, updatedAtTs: nowTs })
      .onConflictDoUpdate({ target: telegramBots.botId, set: { updateOffset: offset, updatedAtTs: nowTs }, setWhere: lt(telegramBots.updateOffset, offset) }),
  );
}

// ---------------------------------------------------------------------------
// Binding codes

/** Stores a channel's new code in place of its earlier ones (only the newest code of a channel works). */
export async function replaceBindingCode(db: Db, row: BindingCodeRow): Promise<void> {
  const { telegramBindingCodes } = tables(db);
  await exec(db, db.delete(telegramBindingCodes).where(eq(telegramBindingCodes.channelId, row.channelId)));
  await exec(db, db.insert(telegramBindingCodes).values(row));
}

export function findBindingCode(db: Db, codeHash: string): Promise<BindingCodeRow | undefined> {
  const { telegramBindingCodes } = tables(db);
  return one(db, db.select().from(telegramBindingCodes).where(eq(telegramBindingCodes.codeHash, codeHash)));
}

/** Takes a code out (it works once), expired or not; undefined when there is no such code. */
export function takeBindingCode(db: Db, codeHash: string): Promise<BindingCodeRow | undefined> {
  const { telegramBindingCodes } = tables(db);
  return one(db, db.delete(telegramBindingCodes).where(eq(telegramBindingCodes.codeHash, codeHash)).returning());
}

export async function deleteExpiredBindingCodes(db: Db, nowTs: number): Promise<void> {
  const { telegramBindingCodes } = tables(db);
  await exec(db, db.delete(telegramBindingCodes).where(lt(telegramBindingCodes.expiresAtTs, nowTs)));
}

// ---------------------------------------------------------------------------
// Bound chats

export function findChat(db: Db, botId: string, chatId: string): Promise<ChatRow | undefined> {
  const { telegramChats } = tables(db);
  return one(
    db,
    db
      .select()
      .from(telegramChats)
      .where(and(eq(telegramChats.botId, botId), eq(telegramChats.chatId, chatId))),
  );
}

/** Binds the chat (or moves it to another channel of the same account). */
export async function bindChat(db: Db, row: ChatRow): Promise<void> {
  const { telegramChats } = tables(db);
  await exec(
    db,
    db
      .insert(telegramChats)
      .values(row)
      .onConflictDoUpdate({
        target: [telegramChats.botId, telegramChats.chatId],
        set: { accountId: row.accountId, channelId: row.channelId, title: row.title, boundAtTs: row.boundAtTs },
      }),
  );
}

export function chatsOfChannel(db: Db, channelId: string): Promise<ChatRow[]> {
  const { telegramChats } = tables(db);
  return many(db, db.select().from(telegramChats).where(eq(telegramChats.channelId, channelId)).orderBy(asc(telegramChats.boundAtTs)));
}

export async function unbindChat(db: Db, channelId: string, chatId: string): Promise<boolean> {
  const { telegramChats } = tables(db);
  return (await exec(db, db.delete(telegramChats).where(and(eq(telegramChats.channelId, channelId), eq(telegramChats.chatId, chatId))))) > 0;
}

// ---------------------------------------------------------------------------
// Drafts

export async function insertDraft(db: Db, row: DraftRow): Promise<void> {
  const { telegramDrafts } = tables(db);
  await exec(db, db.insert(telegramDrafts).values(row));
}

/** A draft of this account written in this chat; any other is simply not found. */
export function findDraft(db: Db, accountId: string, chat: { botId: string; chatId: string }, id: string): Promise<DraftRow | undefined> {
  const { telegramDrafts } = tables(db);
  return one(
    db,
    db
      .select()
      .from(telegramDrafts)
      .where(
        and(eq(telegramDrafts.id, id), eq(telegramDrafts.accountId, accountId), eq(telegramDrafts.botId, chat.botId), eq(telegramDrafts.chatId, chat.chatId)),
      ),
  );
}

/** The draft whose instruction question (a force-reply) is this message of this chat; another account's is not found. */
export function findDraftByPrompt(db: Db, accountId: string, chat: { botId: string; chatId: string }, promptMessageId: number): Promise<DraftRow | undefined> {
  const { telegramDrafts: d } = tables(db);
  return one(
    db,
    db
      .select()
      .from(d)
      .where(and(eq(d.accountId, accountId), eq(d.botId, chat.botId), eq(d.chatId, chat.chatId), eq(d.promptMessageId, promptMessageId))),
  );
}

export async function updateDraft(db: Db, id: string, changes: Partial<Pick<DraftRow, "coverLetter" | "effort" | "promptMessageId">>): Promise<void> {
  const { telegramDrafts } = tables(db);
  await exec(db, db.update(telegramDrafts).set(changes).where(eq(telegramDrafts.id, id)));
}

export async function deleteDraftsBefore(db: Db, beforeTs: number): Promise<void> {
  const { telegramDrafts } = tables(db);
  await exec(db, db.delete(telegramDrafts).where(lt(telegramDrafts.createdAtTs, beforeTs)));
}
