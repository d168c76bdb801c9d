import { afterEach, describe, expect, test } from "bun:test";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { insertSentApplication } from "../../helpers/applications";
import { browser } from "../../helpers/dashboard";
import { makeDoc } from "../../helpers/factories";

let t: TestApp;
const { get, signIn } = browser(() => t);
afterEach(async () => {
  await t?.close();
});

const cipherOf = (doc: Record<string, unknown>) => (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;

describe("inbox cards", () => {
  test("each marketplace card says what the job is worth against its Connects, from the account's own outcomes once it has them", async () => {
    t = await createTestApp({ config: { connectPriceUsd: 0.15 } });
    const acct = await t.account({ name: "Acme", credits: 5 });
    const { token } = await signIn(acct.apiKey);
    const feed = await t.request("POST", "/api/v1/feeds", { key: acct.apiKey, json: { title: "Widgets", minScore: 0, includes: ["widget"] } });
    expect(feed.status, show(feed)).toBe(201);
    const fixed: Record<string, unknown> = { ...makeDoc({ title: "Widget shop", fixed: 900 }), connectPrice: 8 };
    const hourly = makeDoc({ title: "Widget API", hourly: [40, 80] });
    await ingestDocuments(t.deps, [fixed, hourly], { source: "test" });

    const page = await get("/dashboard", token);
    expect(page.status, show(page)).toBe(200);
    // No outcomes: the market prior, 0.15 × 0.3; $900 fixed with its 8 Connects; $40/hr × 20 h with the default 16.
    expect(page.text).toContain("Worth ~$40.50; costs $1.20 in Connects");
    expect(page.text).toContain("Worth ~$36.00; costs $2.40 in Connects");
    expect(page.text).toContain("mostly the market&#39;s figure: 0 replies to 0 of your proposals in score band 5-6");

    // 40 proposals sent in band 5-6 (the prompt-less feed's score), none replied: the ledger now outweighs the prior.
    const others = Array.from({ length: 40 }, () => makeDoc({ title: "Unrelated" }));
    await ingestDocuments(t.deps, others, { source: "test" });
    for (const doc of others) {
      await insertSentApplication(t, acct.accountId, cipherOf(doc), { fixedBid: 100 });
    }
    const after = await get("/dashboard", token);
    // P(reply) = 3 ÷ 60 = 0.05: $900 × 0.05 × 0.3 = $13.50; $800 × 0.05 × 0.3 = $12.00.
    expect(after.text).toContain("Worth ~$13.50; costs $1.20 in Connects");
    expect(after.text).toContain("your record: 0 replies to 40 of your proposals in score band 5-6");
  });
});
