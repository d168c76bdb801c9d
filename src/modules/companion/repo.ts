import { eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, one, tables } from "../../db/query";
import type { companionPairingCodes } from "../../db/schema";

export type PairingCodeRow = typeof companionPairingCodes.$inferSelect;

/** The account's earlier codes stop working: one code is pending per account at a time. */
export async function replacePairingCode(db: Db, row: PairingCodeRow): Promise<void> {
  const { companionPairingCodes } = tables(db);
  await exec(db, db.delete(companionPairingCodes).where(eq(companionPairingCodes.accountId, row.accountId)));
  await exec(db, db.insert(companionPairingCodes).values(row));
}

/** Takes a code out (it works once), expired or not; undefined when there is no such code. */
export function takePairingCode(db: Db, codeHash: string): Promise<PairingCodeRow | undefined> {
  const { companionPairingCodes } = tables(db);
  return one(db, db.delete(companionPairingCodes).where(eq(companionPairingCodes.codeHash, codeHash)).returning());
}

export async function deleteExpiredPairingCodes(db: Db, nowTs: number): Promise<void> {
  const { companionPairingCodes } = tables(db);
  await exec(db, db.delete(companionPairingCodes).where(lt(companionPairingCodes.expiresAtTs, nowTs)));
}
