import { expect, setDefaultTimeout, test } from "bun:test";
import { rawMany } from "../../../src/db/query";
import { ensureOwnFreelancer } from "../../../src/marketplace/sandbox/driver";
import { setConnects } from "../../../src/marketplace/sandbox/repo";
import { freelancerIdFor } from "../../../src/marketplace/sandbox/rules";
import { SUBMIT_TASK } from "../../../src/modules/applications/service";
import { submitApplication } from "../../../src/modules/applications/submit.task";
import { autoApplyEntry } from "../../../src/modules/autopilot/auto.task";
import { AUTO_APPLY_TASK } from "../../../src/modules/feeds/admit";
import { ingestDocuments } from "../../../src/modules/intake/ingest";
import { show } from "../../helpers/app";
import { makeDoc } from "../../helpers/factories";
import { until } from "../../helpers/poll";
import { BOT_TOKEN, CHAT, telegramRig } from "../../helpers/telegram-fixture";

// An auto-mode application whose drafted screening answer leaves "[your start date]" to fill in waits for review;
// Telegram cannot edit answers, so its alert offers no Approve, and an old Approve button is refused.

setDefaultTimeout(20_000);

const rig = telegramRig();

test("a fill-in hold's Telegram alert says to fill the answers in on the Review page and cannot be approved there", async () => {
  const t = await rig.open({ governor: true });
  const account = await t.account({ credits: 5 });
  await ensureOwnFreelancer(t.deps.db, account.accountId, t.clock.now());
  await setConnects(t.deps.db, freelancerIdFor(account.accountId), 10_000);
  const workingHours = { timeZone: "UTC", days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "23:59" };
  const limits = { proposalsPerDay: 10, proposalsPerHour: 10, minGapMinutes: 0, workingHours, connectsPerDay: 10_000 };
  expect((await t.request("PATCH", "/api/v1/automation", { key: account.apiKey, json: limits })).status).toBe(200);
  const channelId = await rig.addChannel(account.apiKey, BOT_TOKEN, CHAT);
  const feed = await t.request("POST", "/api/v1/feeds", {
    key: account.apiKey,
    json: { title: "Rust auto", minScore: 0, includes: ["rust"], channelIds: [channelId] },
  });
  expect(feed.status, show(feed)).toBe(201);
  const mode = await t.request("PUT", `/api/v1/automation/feeds/${feed.body.feed.id}`, { key: account.apiKey, json: { applyMode: "auto", minScore: 0 } });
  expect(mode.status, show(mode)).toBe(200);
  rig.runWorkers({
    [SUBMIT_TASK]: (p, c) => submitApplication(t.deps, p, c),
    [AUTO_APPLY_TASK]: (p) => autoApplyEntry(t.deps, p),
  });
  rig.startBots();
  await rig.bind(account.apiKey, channelId, CHAT);

  const title = "Rust backend for a payments team";
  t.clock.advance(1_500);
  await ingestDocuments(t.deps, [makeDoc({ title, skills: ["Rust"], questions: ["When can you start?"] })], { source: "test" });
  const held = () => rig.sentTo(CHAT).find((c) => String(c.body.text).includes("Waiting for your approval") && String(c.body.text).includes(title));
  await until(
    () => {
      if (held() !== undefined) return true;
      t.clock.advance(1_100);
      rig.deliverer?.notify();
      rig.worker?.notify();
      return false;
    },
    "the waiting-for-approval message",
    15_000,
  );
  const call = held()!;
  const list = await t.request("GET", "/api/v1/applications/held", { key: account.apiKey });
  const queueId = list.body.applications[0].queueId as string;
  expect(list.body.applications[0].kind).toBe("fill-in");
  expect(String(call.body.text)).toContain("fill it in on the Review page, then approve");
  expect(rig.buttons(call)).toEqual([{ text: "Discard", callback_data: `hd:${queueId}` }]);

  // An Approve pressed anyway (a forged or old button): refused with where to do it, and it still waits.
  const pressed = await rig.pressed(CHAT, rig.messageIdOf(call), `ha:${queueId}`);
  expect(pressed.show_alert).toBe(true);
  expect(pressed.text).toMatch(/still has "\[your [^\]]+\]" to fill in\. Fill the answers in on the dashboard's Review page, then approve it there\.$/);
  expect(rig.editsOf(rig.messageIdOf(call))).toEqual([]);
  const rows = await rawMany<{ status: string; held_reason: string }>(t.deps.db, "apps", "SELECT status, held_reason FROM applications", []);
  expect(rows).toEqual([{ status: "processing", held_reason: "fill-in:1" }]);
  expect(await rawMany(t.deps.db, "subs", "SELECT application_id FROM sandbox_submissions", [])).toEqual([]);
});
