import * as repo from "../../src/modules/applications/repo";
import { newId } from "../../src/lib/ids";
import type { TestApp } from "./app";

/** A proposal sent through the sandbox as the worker leaves it: applied a second before now, in score band 5-6. */
export async function insertSentApplication(t: TestApp, accountId: string, jobCiphertext: string, over: Partial<repo.ApplicationInsert> = {}): Promise<void> {
  const ts = t.clock.now();
  await repo.insertApplication(t.deps.db, {
    id: newId(),
    accountId,
    jobCiphertext,
    processedJobId: null,
    driver: "sandbox",
    freelancerId: "fl-1",
    profileId: "pr-1",
    status: "applied",
    phase: "done",
    creditHeld: false,
    coverLetter: "Hello",
    hourlyRate: null,
    fixedBid: 1000,
    timeline: "1 to 3 months",
    boostBids: 0,
    answers: [],
    autoFill: false,
    explicitPositions: [],
    appliedAtTs: ts - 1000,
    processedAtTs: ts,
    score: 5,
    ...over,
  });
}
