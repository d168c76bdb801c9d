import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock";
import * as members from "../../../src/modules/members/service";
import { markRemoved } from "../../../src/modules/members/repo";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { insertSentApplication } from "../../helpers/applications";
import { makeDoc } from "../../helpers/factories";
import { ingestDocuments } from "../../../src/modules/intake/ingest";

let t: TestApp | undefined;

/** An archived job (applications name one); its ciphertext. */
async function job(title: string): Promise<string> {
  const doc = makeDoc({ title });
  await ingestDocuments(t!.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 5, 1);

/** The median the way the test reads it: the middle of the sorted times, the lower one of two (nearest rank). */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

describe("GET /api/v1/analytics/funnel?groupBy=member", () => {
  test("counts, reply rate and median time to reply per member who drafted (else sent); no member is 'API key / automation'", async () => {
    t = await createTestApp({ clock: new ManualClock(NOW) });
    const a = await t.account({ kind: "agency" });
    const other = await t.account({ name: "other" });
    const ana = (await members.createMember(t.deps, { accountId: a.accountId, email: "ana@example.com", name: "Ana", role: "bidder", by: null })).member;
    const cy = (await members.createMember(t.deps, { accountId: a.accountId, email: "cy@example.com", name: "Cy", role: "bidder", by: null })).member;

    // What the test seeds, and from it what it expects: one list per proposal.
    const seeded: { sentBy: string | null; draftedBy: string | null; replyAfterMs: number | null }[] = [
      ...[1, 3, 2, 5].map((h) => ({ sentBy: ana.id, draftedBy: null, replyAfterMs: h * HOUR })),
      ...Array.from({ length: 6 }, () => ({ sentBy: ana.id, draftedBy: cy.id, replyAfterMs: null })),
      { sentBy: null, draftedBy: cy.id, replyAfterMs: 7 * HOUR },
      { sentBy: null, draftedBy: cy.id, replyAfterMs: null },
      { sentBy: null, draftedBy: null, replyAfterMs: null },
      { sentBy: null, draftedBy: null, replyAfterMs: 0.5 * HOUR },
    ];
    let n = 0;
    for (const s of seeded) {
      const sentAt = NOW - 10 * 24 * HOUR + n * HOUR;
      await insertSentApplication(t, a.accountId, await job(`Job ${++n}`), {
        sentBy: s.sentBy,
        draftedBy: s.draftedBy,
        processedAtTs: sentAt,
        appliedAtTs: sentAt - 1000,
        replied: s.replyAfterMs !== null,
        repliedAtTs: s.replyAfterMs === null ? null : sentAt + s.replyAfterMs,
      });
    }
    // Another account's proposal sent by nobody of this one: never counted.
    await insertSentApplication(t, other.accountId, await job("Theirs"), { sentBy: null });
    // A member removed since keeps the history, by name.
    await markRemoved(t.deps.db, cy.id, NOW);

    const res = await t.request("GET", "/api/v1/analytics/funnel?groupBy=member", { key: a.apiKey });
    expect(res.status, show(res)).toBe(200);
    const keyOf = (s: (typeof seeded)[number]) => s.draftedBy ?? s.sentBy ?? "none";
    const expected = [...new Set(seeded.map(keyOf))].map((key) => {
      const mine = seeded.filter((s) => keyOf(s) === key);
      const replies = mine.filter((s) => s.replyAfterMs !== null).map((s) => s.replyAfterMs!);
      return {
        key,
        label: key === ana.id ? "Ana" : key === cy.id ? "Cy" : "API key / automation",
        sent: mine.length,
        replied: replies.length,
        replyRate: mine.length >= 10 ? replies.length / mine.length : null,
        medianReplyMs: replies.length === 0 ? null : median(replies),
      };
    });
    const got = res.body.groups.map((g: Record<string, unknown>) => ({
      key: g.key,
      label: g.label,
      sent: g.sent,
      replied: g.replied,
      replyRate: g.replyRate,
      medianReplyMs: g.medianReplyMs,
    }));
    // Busiest first.
    expect(got).toEqual(expected.sort((x, y) => y.sent - x.sent || x.key.localeCompare(y.key)));
    // Cy's six drafts that Ana sent count for Cy, who wrote them: 8 in all; Ana keeps the 4 she wrote and sent.
    expect(got[0]).toMatchObject({ key: cy.id, sent: 8, replied: 1, replyRate: null, medianReplyMs: 7 * HOUR });
    expect(got.find((g: { key: string }) => g.key === ana.id)).toMatchObject({ sent: 4, replied: 4, medianReplyMs: 2 * HOUR });
    expect(res.body.total.sent).toBe(seeded.length);
  });
});
