import { and, eq } from "drizzle-orm";
import { exclusive, type Db } from "../../db/client";
import { jobScores } from "../../db/schema";

export function findScore(db: Db, jobCiphertext: string, promptHash: string) {
  return exclusive(db, () =>
    db
      .select()
      .from(jobScores)
      .where(and(eq(jobScores.jobCiphertext, jobCiphertext), eq(jobScores.promptHash, promptHash)))
      .get(),
  );
}

export function saveScore(db: Db, row: typeof jobScores.$inferInsert): Promise<void> {
  return exclusive(db, () => {
    db.insert(jobScores).values(row).onConflictDoNothing().run();
  });
}
