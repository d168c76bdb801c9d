import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { createDeliverer } from "../../../src/cli/serve";
import * as listsRead from "../../../src/modules/clients/lists-read";
import type { WebhookDeliverer } from "../../../src/modules/delivery/deliverer";
import { markFavoured } from "../../../src/modules/feeds/outbox-event-payload";
import { type WebhookPayload, WebhookPayloadSchema } from "../../../src/modules/feeds/outbox-payload";
import { buildJobMatchedPayload, buildTestPayload, SAMPLE_JOB_DOCUMENT } from "../../../src/modules/feeds/outbox-payload-build";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

// The webhook payload's extension `favoured` (feeds/outbox-event-payload.ts): true when the job's client is on the
// feed's account's favoured list as the event is sent, and no key at all otherwise, so other receivers' bodies stay as they were.

let t: TestApp | undefined;
let receiver: WebhookReceiver | undefined;
let deliverer: WebhookDeliverer | undefined;
afterEach(async () => {
  await deliverer?.stop();
  deliverer = undefined;
  await receiver?.close();
  receiver = undefined;
  await t?.close();
  t = undefined;
});

async function setup() {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ config: { webhookAllowPrivate: true, webhookTimeoutMs: 2_000 } });
  const { apiKey, accountId } = await t.account();
  const putList = async (companyId: string, list: "blocked" | "favoured") => {
    const res = await t!.request("PUT", `/api/v1/client-lists/${companyId}`, { key: apiKey, json: { list } });
    expect(res.status, show(res)).toBe(200);
  };
  return { apiKey, accountId, putList };
}

function expectValid(payload: unknown): void {
  const errors = [...Value.Errors(WebhookPayloadSchema, payload)].slice(0, 5).map((e) => [e.path, e.message]);
  expect(errors).toEqual([]);
}

describe("the webhook payload's favoured extension", () => {
  test("a favoured client's job.matched carries favoured: true; a blocked or unlisted client's has no favoured key, as the lists read when sent", async () => {
    const { apiKey, putList } = await setup();
    const created = await t!.request("POST", "/api/v1/feeds", { key: apiKey, json: { title: "hooks", minScore: 0, webhookUrl: receiver!.url } });
    expect(created.status, show(created)).toBe(201);
    await putList("co-fav", "favoured");
    await putList("co-turned", "favoured");
    const ingested = await ingestDocuments(
      t!.deps,
      ["co-fav", "co-none", "co-turned", "co-late"].map((companyId) => makeDoc({ title: `Job of ${companyId}`, companyId })),
      { source: "test" },
    );
    expect(ingested.matched).toBe(4);
    // Changed after the jobs entered the feed, before their events go: the payload follows the lists as they are now.
    await putList("co-turned", "blocked");
    await putList("co-late", "favoured");

    deliverer = createDeliverer(t!.deps);
    deliverer.start();
    await receiver!.waitFor(5);
    await deliverer.idle();
    const bodies = receiver!.received.map((r) => r.json as Record<string, unknown>);
    for (const body of bodies) expectValid(body);
    expect(bodies.find((b) => b.type === "webhook.test")).not.toHaveProperty("favoured");
    const byClient = new Map(bodies.filter((b) => b.type === "job.matched").map((b) => [b.companyId, b]));
    expect([...byClient.keys()].sort()).toEqual(["co-fav", "co-late", "co-none", "co-turned"]);
    expect(byClient.get("co-fav")!.favoured).toBe(true);
    expect(byClient.get("co-late")!.favoured).toBe(true);
    expect(byClient.get("co-none")).not.toHaveProperty("favoured");
    expect(byClient.get("co-turned")).not.toHaveProperty("favoured");
    // Absent, not false: the raw body of an unlisted client's job does not name the field.
    expect(receiver!.received.find((r) => r.json.companyId === "co-none")!.body).not.toContain("favoured");
  });

  test("markFavoured marks a batch of payloads (a digest's) with one read of the lists: only the account's favoured, only job.matched", async () => {
    const { accountId, putList } = await setup();
    await putList("co-fav", "favoured");
    await putList("co-bad", "blocked");
    // Another account's favoured list says nothing about this account's jobs.
    const stranger = await t!.account({ name: "Other account" });
    const res = await t!.request("PUT", "/api/v1/client-lists/co-other", { key: stranger.apiKey, json: { list: "favoured" } });
    expect(res.status, show(res)).toBe(200);
    const feed = { id: "0b9d8c1e-4f2a-4c55-9a1e-2f6f3d1b7a10", title: "f" };
    const matched = (companyId: string): WebhookPayload => {
      const job = normalizeJob(makeDoc({ companyId }), { nowTs: t!.clock.now() });
      if (!job.ok) throw new Error(job.error);
      const match = { processedJobId: "5d3c2b1a-0000-4000-8000-000000000001", matchingScore: 7, scoreReason: null, matchedAtTs: t!.clock.now() };
      return buildJobMatchedPayload({ eventId: `evt_${companyId}`, createdAtTs: t!.clock.now(), feed, match, job: job.job, source: "test" });
    };
    const sample = normalizeJob(SAMPLE_JOB_DOCUMENT, { nowTs: t!.clock.now() });
    if (!sample.ok) throw new Error(sample.error);
    const testPayload = buildTestPayload({ eventId: "evt_test", createdAtTs: t!.clock.now(), feed, job: sample.job, source: "sample" });
    await putList(testPayload.companyId!, "favoured");
    const payloads = [matched("co-fav"), matched("co-bad"), matched("co-none"), matched("co-other"), testPayload];

    const reads = spyOn(listsRead, "listEntriesFor");
    try {
      await markFavoured(t!.deps.db, accountId, payloads);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
    expect(payloads.map((p) => p.favoured)).toEqual([true, undefined, undefined, undefined, undefined]);
    for (const p of payloads) expectValid(p);
  });
});
