import { afterEach, describe, expect, test } from "bun:test";
import { tx } from "../../../src/db/client";
import { rawExec } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { readNormalizedJob } from "../../../src/modules/jobs/read-normalized";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe("readNormalizedJob", () => {
  test("reads the archived job once while it is unchanged, and again as soon as its document changes", async () => {
    app = await createTestApp();
    const { db } = app.deps;
    const ciphertext = "~02readnormalized1";
    await ingestDocuments(app.deps, [makeDoc({ ciphertext, title: "First title", exploredAt: 1_000 })], { source: "test" });

    const first = await readNormalizedJob(db, ciphertext);
    expect(first?.job.title).toBe("First title");
    // Unchanged: the same parsed and normalised job, not a new read of the document.
    expect(await readNormalizedJob(db, ciphertext)).toBe(first!);

    // A fresher document of the same job (re-ingested): the next read has it.
    await ingestDocuments(app.deps, [makeDoc({ ciphertext, title: "Second title", exploredAt: 2_000 })], { source: "test" });
    const second = await readNormalizedJob(db, ciphertext);
    expect(second).not.toBe(first!);
    expect(second?.job.title).toBe("Second title");

    // Changed behind every code path's back, same times, a document of another length: read again.
    await rawExec(db, "test.rewrite", "UPDATE jobs SET document = ? WHERE ciphertext = ?", [
      JSON.stringify(makeDoc({ ciphertext, title: "Third, longer title", exploredAt: 2_000 })),
      ciphertext,
    ]);
    expect((await readNormalizedJob(db, ciphertext))?.job.title).toBe("Third, longer title");
  });

  test("callers asking at once share one read; a transaction's read is never handed to anyone outside it", async () => {
    app = await createTestApp();
    const { db } = app.deps;
    const ciphertext = "~02readnormalized3";
    await ingestDocuments(app.deps, [makeDoc({ ciphertext, title: "Committed title", exploredAt: 1_000 })], { source: "test" });
    // The deliveries of a job that entered many feeds ask together, before any read has been kept: one read.
    const [a, b, c] = await Promise.all([readNormalizedJob(db, ciphertext), readNormalizedJob(db, ciphertext), readNormalizedJob(db, ciphertext)]);
    expect(b).toBe(a!);
    expect(c).toBe(a!);

    let outside: ReturnType<typeof readNormalizedJob> | undefined;
    const rolledBack = tx(db, async (t) => {
      await rawExec(t, "test.rewrite", "UPDATE jobs SET document = ?, updated_at_ts = updated_at_ts + 1 WHERE ciphertext = ?", [
        JSON.stringify(makeDoc({ ciphertext, title: "Uncommitted title", exploredAt: 1_000 })),
        ciphertext,
      ]);
      const inside = readNormalizedJob(t, ciphertext);
      outside = readNormalizedJob(db, ciphertext);
      expect((await inside)?.job.title).toBe("Uncommitted title");
      throw new Error("rolled back");
    });
    await expect(rolledBack).rejects.toThrow("rolled back");
    expect((await outside!)?.job.title).toBe("Committed title");
  });

  test("a job that is not archived is null, and databases do not share what they keep", async () => {
    app = await createTestApp();
    const other = await createTestApp();
    try {
      const ciphertext = "~02readnormalized2";
      await ingestDocuments(app.deps, [makeDoc({ ciphertext, title: "Only here" })], { source: "test" });
      expect((await readNormalizedJob(app.deps.db, ciphertext))?.job.title).toBe("Only here");
      expect(await readNormalizedJob(other.deps.db, ciphertext)).toBeNull();
      await ingestDocuments(other.deps, [makeDoc({ ciphertext, title: "Elsewhere" })], { source: "test" });
      expect((await readNormalizedJob(other.deps.db, ciphertext))?.job.title).toBe("Elsewhere");
      expect((await readNormalizedJob(app.deps.db, ciphertext))?.job.title).toBe("Only here");
    } finally {
      await other.close();
    }
  });
});
