/**
 * The automation events as every channel kind's message: plain words, the review page's link, the held letter,
 * and untrusted text (a job title, a freelancer's name) shown as text in each format, pinging no one.
 */
import { describe, expect, test } from "bun:test";
import { DISCORD_LIMITS } from "../../../src/modules/channels/kinds/discord";
import { NTFY_LIMITS } from "../../../src/modules/channels/kinds/ntfy";
import { TELEGRAM_LIMITS } from "../../../src/modules/channels/kinds/telegram";
import { utf8Bytes } from "../../../src/modules/channels/kinds/text";
import { CHANNEL_TYPES, type ChannelMessage } from "../../../src/modules/channels/model";
import { renderAutomationAlert } from "../../../src/modules/channels/render";
import { heldKeyboard, parseAction } from "../../../src/modules/channels/telegram-actions";
import { buildAlertPayload, buildHeldPayload } from "../../../src/modules/feeds/outbox-payload-automation";

const REVIEW = "https://jobs.example.com/dashboard/review";
const feed = { id: "0195aaaa-0000-7000-8000-000000000001", title: "Rust leads" };
const ctx = { reviewUrl: REVIEW };
const NOW = Date.UTC(2026, 11, 1, 10, 0);

const lowBalance = (name: string | null) =>
  buildAlertPayload({
    eventId: "evt_1",
    createdAtTs: NOW,
    feed,
    jobCiphertext: null,
    facts: { kind: "balance", freelancerId: "~01abc", freelancerName: name, available: 12, threshold: 30, readAtTs: NOW - 60_000, estimated: false },
  });

const lowBudget = buildAlertPayload({
  eventId: "evt_2",
  createdAtTs: NOW,
  feed,
  jobCiphertext: "~0123",
  facts: {
    kind: "budget",
    scope: "account",
    freelancerId: "~01abc",
    freelancerName: "Ana",
    period: "week",
    periodKey: "2026-11-W30",
    fromTs: Date.UTC(2026, 10, 30),
    toTs: Date.UTC(2026, 11, 7),
    cap: 120,
    spent: 104,
    threshold: 20,
  },
});

const held = (title: string, coverLetter: string) =>
  buildHeldPayload({
    eventId: "evt_3",
    createdAtTs: NOW,
    feed,
    processedJobId: null,
    application: {
      queueId: "0197bbbb-0000-7000-8000-000000000002",
      job: { ciphertext: "~0123", title, url: "https://www.upwork.com/jobs/~0123" },
      freelancerId: "~01abc",
      kind: "draft",
      why: "A draft from the feed's draft mode, waiting for your approval.",
      coverLetter,
      reviewUrl: REVIEW,
    },
  });

/** What a person reads in each kind, as one string to search. */
function shown(message: ChannelMessage): string {
  switch (message.type) {
    case "telegram":
      return message.text;
    case "slack":
    case "discord":
      return JSON.stringify(message.body);
    case "ntfy":
      return JSON.stringify(message);
    case "email":
      return `${message.subject}\n${message.text}\n${message.html}`;
  }
}

describe("automation alerts on every channel kind", () => {
  for (const type of CHANNEL_TYPES) {
    test(`${type}: the three events in plain words, each linking to the review page`, () => {
      const connects = shown(renderAutomationAlert(type, lowBalance("Ana"), ctx));
      expect(connects).toContain("Connects low: Ana has 12 Connects left (alert under 30)");
      expect(connects).toContain(REVIEW);
      // Without a name the freelancer is named by id (Discord escapes its ~, a markdown character).
      const unnamed = shown(renderAutomationAlert(type, lowBalance(null), ctx));
      expect(unnamed).toContain("Connects low: freelancer ");
      expect(unnamed).toContain("01abc has 12 Connects left");

      const budget = shown(renderAutomationAlert(type, lowBudget, ctx));
      expect(budget).toContain("Budget: 104 of 120 Connects this week spent");
      expect(budget).toContain("16 Connects (alert under 20)");
      expect(budget).toContain(REVIEW);

      const letter = "Hello,\n\nI have built three trading backends in Rust.\n\nBest, Ana";
      const waiting = renderAutomationAlert(type, held("Rust backend for a trading desk", letter), ctx);
      const text = shown(waiting);
      expect(text).toContain("Waiting for your approval: Rust backend for a trading desk");
      expect(text).toContain("I have built three trading backends in Rust.");
      expect(text).toContain(REVIEW);
      expect(text).toContain("https://www.upwork.com/jobs/~0123");
    });
  }

  test("only the held alert on Telegram has buttons, as the sender adds them: Approve and Discard with the queue id", () => {
    const queueId = "0197bbbb-0000-7000-8000-000000000002";
    expect(renderAutomationAlert("telegram", held("x", "y"), ctx)).not.toHaveProperty("replyMarkup");
    const keyboard = heldKeyboard(queueId);
    expect(keyboard.inline_keyboard.flat().map((b) => [b.text, parseAction(b.callback_data)])).toEqual([
      ["Approve", { action: "approveHeld", id: queueId }],
      ["Discard", { action: "discardHeld", id: queueId }],
    ]);
  });

  test("untrusted text shows as text and pings no one; a long letter is cut to the platform's limit", () => {
    const title = "<b>Rust</b> & <@U123> @everyone [link](http://evil)";
    const long = "A sentence about Rust. ".repeat(2_000);
    const telegram = renderAutomationAlert("telegram", held(title, long), ctx);
    expect(telegram.text).toContain("&lt;b&gt;Rust&lt;/b&gt; &amp;");
    expect(telegram.text.length).toBeLessThanOrEqual(TELEGRAM_LIMITS.text);
    expect(telegram.text).toContain(REVIEW); // the link survives the cut
    const slack = JSON.stringify(renderAutomationAlert("slack", held(title, long), ctx).body);
    expect(slack).not.toContain("<@U123>");
    expect(slack).toContain("&lt;@U123&gt;");
    const discord = renderAutomationAlert("discord", held(title, long), ctx).body as {
      embeds: { title: string; description: string }[];
      allowed_mentions: unknown;
    };
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]!.title).not.toContain("@everyone");
    expect(discord.embeds[0]!.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    const ntfy = renderAutomationAlert("ntfy", held(title, long), ctx);
    expect(utf8Bytes(ntfy.message)).toBeLessThanOrEqual(NTFY_LIMITS.messageBytes);
    const email = renderAutomationAlert("email", held(title, long), ctx);
    expect(email.html).not.toContain("<b>Rust</b>");
    // A freelancer's name is untrusted too.
    expect(renderAutomationAlert("telegram", lowBalance("<i>Ana</i>"), ctx).text).toContain("&lt;i&gt;Ana&lt;/i&gt;");
  });
});
