import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { exec, one, tables } from "../../db/query";
import type { jobScores } from "../../db/schema";

export function findScore(db: Db, jobCiphertext: string, promptHash: string): Promise<typeof jobScores.$inferSelect | undefined> {
  const { jobScores } = tables(db);
  return one(
    db,
    db
      .select()
      .from(jobScores)
      .where(and(eq(jobScores.jobCiphertext, jobCiphertext), eq(jobScores.promptHash, promptHash)))
      .limit(1),
  );
}

export async function saveScore(db: Db, row: typeof jobScores.$inferInsert): Promise<void> {
  const { jobScores } = tables(db);
  await exec(db, db.insert(jobScores).values(row).onConflictDoNothing());
}
