import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { exec, one, tables } from "../../../src/db/query";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { authenticate, getAccount, setMarketplaceDriver } from "../../../src/modules/accounts/service";
import { apply } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import type { MarketplaceDriver, SubmitOutcome } from "../../../src/marketplace/driver";
import { createTestApp, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
afterEach(() => t?.close());

/** A scripted marketplace (the outside world) that counts what it was asked. */
function fakeMarketplace(lookup: SubmitOutcome | null | "unknown") {
  const calls = { submit: 0, lookup: 0 };
  const driver: MarketplaceDriver = {
    name: "fake",
    async submit() {
      calls.submit++;
      return { status: "applied", message: "submitted" };
    },
    async lookup() {
      calls.lookup++;
      return lookup;
    },
    async engagement() {
      return null;
    },
    async freelancers() {
      return [
        {
          id: "~01f",
          name: "Fay",
          avatarUrl: null,
          baseHourlyRate: 50,
          profiles: [{ type: "default", name: "Dev", hourlyRate: 50, currency: "USD", profileId: "~01f" }],
        },
      ];
    },
    async reconnect() {
      return true;
    },
  };
  return { driver, calls };
}

/** Queues an application, then puts it where a crash mid-submission leaves it: `submitting`, lease lost. */
async function interruptedApplication(lookup: SubmitOutcome | null | "unknown") {
  t = await createTestApp();
  const fake = fakeMarketplace(lookup);
  (t.deps.drivers as Record<string, MarketplaceDriver>).fake = fake.driver;
  const { apiKey, accountId } = await t.account({ credits: 2 });
  await setMarketplaceDriver(t.deps, accountId, "fake" as never);
  const doc = makeDoc();
  await ingestDocuments(t.deps, [doc], { source: "test" });
  const queued = await apply(t.deps, (await authenticate(t.deps, apiKey))!, { jobId: (doc.jobTile as any).job.ciphertext, coverLetter: "Hi" });
  const { applications } = tables(t.deps.db);
  await exec(t.deps.db, t.deps.db.update(applications).set({ phase: "submitting" }).where(eq(applications.id, queued.queueId)));
  await submitApplication(t.deps, { applicationId: queued.queueId }, { taskId: 1, attempt: 2, isLastAttempt: false });
  const app = (await one(
    t.deps.db,
    t.deps.db.select({ status: applications.status, e: applications.errorMessage }).from(applications).where(eq(applications.id, queued.queueId)),
  ))!;
  return { app, calls: fake.calls, account: await getAccount(t.deps, accountId) };
}

describe("reconciling an application interrupted mid-submission", async () => {
  test("the marketplace recorded it: settled from the record, charged once, not sent again", async () => {
    const { app, calls, account } = await interruptedApplication({ status: "applied", message: "it arrived" });
    expect(app.status).toBe("applied");
    expect(calls).toEqual({ submit: 0, lookup: 1 });
    expect(account).toMatchObject({ credits: 1, creditsHeld: 0 });
  });

  test("the marketplace has no record: it is sent (once)", async () => {
    const { app, calls } = await interruptedApplication(null);
    expect(app.status).toBe("applied");
    expect(calls).toEqual({ submit: 1, lookup: 1 });
  });

  test("the driver cannot tell: failed with a message saying so, never resubmitted, not charged", async () => {
    const { app, calls, account } = await interruptedApplication("unknown");
    expect(app.status).toBe("failed");
    expect(app.e).toContain("could not confirm whether it arrived; no credit was charged");
    expect(calls).toEqual({ submit: 0, lookup: 1 });
    expect(account).toMatchObject({ credits: 2, creditsHeld: 0 });
  });
});
