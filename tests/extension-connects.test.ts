/**
 * The companion's Connects balance report and its pause on the server's hourly read cap (issue 42): what it reads
 * off the apply page (the marketplace's and the sandbox's), what it reports with a submitted outcome, how the server
 * maps it, and how a 429 pauses watching.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { parseHTML } from "linkedom";
import type { DomDocument } from "../extension/src/adapter";
import { readApplyPage, withConnects } from "../extension/src/apply";
import { readsPause, readsPaused, watchStateLine } from "../extension/src/watch";
import { PageOutcome, pageOutcome } from "../src/marketplace/companion/contract";
import * as views from "../src/marketplace/sandbox/site/views";
import type { JobDocument } from "../src/sources/document";
import { makeDoc } from "./helpers/factories";

const parse = (html: string) => parseHTML(html).document as unknown as DomDocument;
const MP = "https://www.upwork.com";
const SERVER = "http://127.0.0.1:4000";
const SANDBOX = `${SERVER}/sandbox/site`;
const before = { boostBids: 0, afterSubmit: false };

function formFacts(doc: DomDocument, href: string) {
  const read = readApplyPage(doc, href, [SERVER], "text", before);
  if (read.kind !== "form") throw new Error(`expected the form, got ${JSON.stringify(read)}`);
  return read.facts;
}

describe("the balance read off the apply page", () => {
  test("the marketplace's form (research fixture) and the sandbox's form both show Available Connects", () => {
    const real = formFacts(
      parse(readFileSync(join(import.meta.dir, "fixtures/companion/apply-form.html"), "utf8")),
      `${MP}/nx/proposals/job/~021111111111111111111/apply/`,
    );
    expect(real).toMatchObject({ requiredConnects: 16, availableConnects: 42 });
    const doc = makeDoc({ ciphertext: "~021111111111111111111" }) as unknown as JobDocument;
    const view = { doc, connectsRequired: 12, connectsAvailable: 57, profiles: [{ profileId: "~01own", label: "Ada — Ada", hourlyRate: 50 }], questions: [] };
    const sandbox = formFacts(
      parse(views.applyPage({ base: SANDBOX, signedInAs: "acc_1" }, view)),
      `${SANDBOX}/nx/proposals/job/~021111111111111111111/apply/`,
    );
    expect(sandbox).toMatchObject({ requiredConnects: 12, availableConnects: 57 });
  });

  test("a submitted outcome carries what is left after the cost and the boost, and passes the server's schema", () => {
    const outcome = withConnects({ page: "submitted" }, { requiredConnects: 16, availableConnects: 42, boostBids: 5 });
    expect(outcome).toEqual({ page: "submitted", connectsRequired: 16, boostConnects: 5, connectsAvailable: 21 });
    expect(Value.Check(PageOutcome, outcome)).toBe(true);
    expect(pageOutcome(outcome as PageOutcome, "task_1")).toMatchObject({ status: "applied", connects: { required: 16, boost: 5 }, connectsAvailable: 21 });
  });

  test("no balance without the form's count, nor one that would be negative; other pages are left alone", () => {
    expect(withConnects({ page: "submitted" }, { requiredConnects: 16, boostBids: 0 })).toEqual({ page: "submitted", connectsRequired: 16, boostConnects: 0 });
    // A page that said fewer than the cost (read wrong): no guess.
    expect(withConnects({ page: "submitted" }, { requiredConnects: 16, availableConnects: 10, boostBids: 0 })).not.toHaveProperty("connectsAvailable");
    // Without the required count the cost is unknown, so the balance after it is too.
    expect(withConnects({ page: "submitted" }, { availableConnects: 40 })).toEqual({ page: "submitted" });
    expect(withConnects({ page: "not_reviewed" }, { requiredConnects: 16, availableConnects: 40 })).toEqual({ page: "not_reviewed" });
  });

  test("the server keeps a too-few page's available count as the balance", () => {
    expect(pageOutcome({ page: "not_enough_connects", required: 24, available: 6 }, "task_1")).toMatchObject({
      status: "not_enough_connects",
      connectsAvailable: 6,
    });
    expect(pageOutcome({ page: "job_unavailable" }, "task_1")).not.toHaveProperty("connectsAvailable");
  });
});

describe("the pause on the server's companionReadsPerHour", () => {
  const now = Date.UTC(2026, 11, 7, 10, 15);
  const error =
    "companionReadsPerHour: the browser companion may capture or read 60 marketplace pages an hour and has used them (60 in the last hour); the next one frees at 2026-12-07T11:00:00.000Z";

  test("a 429 pauses until its retry-after, with the server's words; without one, an hour", () => {
    const paused = readsPause({ error }, "2700", now);
    expect(paused.readsPausedUntil).toBe(now + 2_700_000);
    expect(paused.readsPausedReason).toBe(error);
    expect(paused.lastStatus).toContain(error);
    expect(readsPause(null, null, now).readsPausedUntil).toBe(now + 3_600_000);
    expect(readsPause({ error }, "soon", now).readsPausedUntil).toBe(now + 3_600_000);
    expect(readsPause({}, "60", now).readsPausedReason).toContain("companionReadsPerHour");
    expect(readsPaused(paused, now + 2_699_999)).toBe(true);
    expect(readsPaused(paused, now + 2_700_000)).toBe(false);
    expect(readsPaused({}, now)).toBe(false);
  });

  test("the options page's state line shows it while it lasts, then watching again", () => {
    const on = { watchEnabled: true, watchUrls: [`${MP}/nx/search/jobs/?q=rust`] };
    const line = watchStateLine({ ...on, readsPausedUntil: Date.now() + 60_000, readsPausedReason: error });
    expect(line.state).toBe("waiting");
    expect(line.text).toStartWith("Waiting until ");
    expect(line.text).toContain(error);
    expect(watchStateLine({ ...on, readsPausedUntil: Date.now() - 1, readsPausedReason: error }).state).toBe("on");
  });
});
