import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { money, relativeTime } from "../../../src/modules/channels/format";
import { DISCORD_LIMITS, type DiscordMessage, discordEscape } from "../../../src/modules/channels/kinds/discord";
import { EMAIL_LIMITS } from "../../../src/modules/channels/kinds/email";
import { NTFY_LIMITS, ntfyPriority } from "../../../src/modules/channels/kinds/ntfy";
import { SLACK_LIMITS, type SlackMessage } from "../../../src/modules/channels/kinds/slack";
import { TELEGRAM_LIMITS } from "../../../src/modules/channels/kinds/telegram";
import { cutAtSentence, fitText, utf8Bytes } from "../../../src/modules/channels/kinds/text";
import { CHANNEL_TYPES, type ChannelMessage } from "../../../src/modules/channels/model";
import { renderAlert, renderDigest, renderOutcomeAlert } from "../../../src/modules/channels/render";
import type { OutcomePayload, WebhookPayload } from "../../../src/modules/feeds/outbox-payload";
import { buildOutcomePayload, buildTestPayload, SAMPLE_JOB_DOCUMENT } from "../../../src/modules/feeds/outbox-payload-build";
import { normalizeJob } from "../../../src/modules/jobs/normalize";
import { DASHBOARD_JOB_URL, DASHBOARD_URL, fullPayload, NOW, sparsePayload } from "./fixtures";

const ctx = { dashboardJobUrl: DASHBOARD_JOB_URL, nowTs: NOW };

function normalizedSample() {
  const normalized = normalizeJob(SAMPLE_JOB_DOCUMENT, { nowTs: NOW });
  if (!normalized.ok) throw new Error(normalized.error);
  return normalized.job;
}

/** What a person would read, per kind: the text itself, or the JSON body. */
function shown(message: ChannelMessage): string {
  switch (message.type) {
    case "telegram":
      return message.text;
    case "slack":
    case "discord":
      return JSON.stringify(message.body, null, 2);
    case "ntfy":
      return JSON.stringify(message, null, 2);
    case "email":
      return `Subject: ${message.subject}\n\n${message.text}\n\n--- html ---\n${message.html}`;
  }
}

describe("each kind's alert (snapshots)", () => {
  for (const type of CHANNEL_TYPES) {
    test(`${type}: a full job`, () => {
      expect(shown(renderAlert(type, fullPayload(), ctx))).toMatchSnapshot();
    });
    test(`${type}: a sparse job, no dashboard link`, () => {
      expect(shown(renderAlert(type, sparsePayload(), { dashboardJobUrl: null, nowTs: NOW }))).toMatchSnapshot();
    });
  }
});

test("a test alert says it was sent on request to this kind of channel, never that a webhook URL was saved", () => {
  const sample = fullPayload();
  const test = buildTestPayload({
    eventId: "evt_test",
    createdAtTs: NOW,
    feed: { id: "c1", title: "Test alert for Phone" },
    job: normalizedSample(),
    source: "sample",
  });
  const where = { telegram: "Telegram chat", slack: "Slack channel", discord: "Discord channel", ntfy: "ntfy topic", email: "e-mail channel" } as const;
  for (const type of CHANNEL_TYPES) {
    const text = shown(renderAlert(type, test, ctx));
    expect(text, type).toContain(`sent on request to check this ${where[type]}`);
    expect(text, type).not.toContain("webhook URL");
    // A real match keeps its own reason.
    expect(shown(renderAlert(type, sample, ctx)), type).toContain("Strong fit");
  }
});

test("every alert carries the content the issue lists", () => {
  for (const type of CHANNEL_TYPES) {
    const text = shown(renderAlert(type, fullPayload(), ctx));
    for (const part of [
      "UX audit of our SaaS dashboard",
      "$100–$150/hr",
      "Germany",
      "payment verified",
      "rated 4.6 (33 reviews)",
      "$104.2K spent",
      "92/100",
      "8.5/10",
      "Strong fit: Figma prototypes and a SaaS dashboard audit",
      "26 min ago",
      "Figma, Mobile App Design, UI/UX Design, Web Design, Prototyping",
      "https://marketplace.example/jobs/~020000000000000000001",
      DASHBOARD_JOB_URL,
      "We are Stonepoint Group",
    ]) {
      expect(text, `${type} lacks ${part}`).toContain(part);
    }
  }
});

describe("hostile job text renders as text and pings no one", () => {
  const HOSTILE = [
    "<b>x</b>",
    "*bold*",
    "@everyone",
    "@here",
    "<!channel>",
    "[link](http://evil.example)",
    "<@U123>",
    "a & b",
    "_i_ ~s~ `c` ||spoiler||",
    "# heading",
  ];
  const hostile = (): WebhookPayload => {
    const p = fullPayload();
    const all = HOSTILE.join(" ");
    return { ...p, title: all, description: `${all}\n> quote\n- item`, skills: HOSTILE.slice(0, 3), scoreReason: all, feedTitle: all };
  };

  test("Telegram: only our own tags (b and a) remain; the job's markup is escaped", () => {
    const { text } = renderAlert("telegram", hostile(), ctx);
    const tags = [...text.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[1]);
    expect(new Set(tags)).toEqual(new Set(["b", "a"]));
    expect(text.match(/<a href=/g)).toHaveLength(2);
    expect(text).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(text).toContain("&lt;!channel&gt; [link](http://evil.example) &lt;@U123&gt; a &amp; b");
    expect(text).not.toContain("<!channel>");
  });

  test("Slack: no raw < > & from the job anywhere, and job text never in mrkdwn", () => {
    const { body } = renderAlert("slack", hostile(), ctx) as SlackMessage;
    const texts: { type: string; text: string }[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const o = node as Record<string, unknown>;
        if (typeof o.text === "string" && typeof o.type === "string") texts.push({ type: o.type, text: o.text });
        Object.values(o).forEach(walk);
      }
    };
    walk(body.blocks);
    const all = [body.text, ...texts.map((t) => t.text)].join("\n");
    for (const raw of ["<!channel>", "<@U123>", "<b>", "a & b"]) expect(all).not.toContain(raw);
    expect(all).toContain("&lt;!channel&gt;");
    expect(all).toContain("&lt;@U123&gt;");
    for (const t of texts.filter((t) => t.type === "mrkdwn")) for (const h of HOSTILE) expect(t.text).not.toContain(h);
    expect(body.mrkdwn).toBe(false);
  });

  test("Discord: mentions off, @everyone/@here broken, markdown and masked links escaped", () => {
    const { body } = renderAlert("discord", hostile(), ctx) as DiscordMessage;
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const embed = body.embeds[0];
    const all = [embed.title, embed.description, embed.footer?.text ?? "", ...embed.fields.map((f) => f.value)].join("\n");
    expect(all).not.toMatch(/@(everyone|here)/);
    expect(all).toContain("@\u200deveryone");
    expect(embed.title).toContain("\\[link\\](http://evil.example)");
    expect(embed.title).toContain("\\<@U123\\>");
    expect(embed.title).toContain("\\*bold\\*");
    expect(embed.title).toContain("\\<b\\>x\\</b\\>");
    expect(embed.title).toContain("\\_i\\_ \\~s\\~ \\`c\\` \\|\\|spoiler\\|\\|");
    expect(embed.description).toContain("\n\\> quote\n\\- item");
    // Every markdown character in the description is escaped, except in our own bold label and links.
    const ours = embed.description.replace(/^\*\*Match:\*\* /, "").replace(/\[Open (the job|in jobpilot)\]\([^)]*\)/g, "");
    expect(ours.replace(/\\[\\*_~`|[\]<>#+-]/g, "")).not.toMatch(/[*_~`|[\]<>]/);
  });

  test("ntfy: plain text (no markdown flag), the title shown as written", () => {
    const message = renderAlert("ntfy", hostile(), ctx);
    expect(message.title).toContain("<b>x</b> *bold* @everyone");
    expect(JSON.stringify(message)).not.toContain("markdown");
  });

  test("e-mail: HTML escaped, the subject one line whatever the title holds", () => {
    const p = hostile();
    p.title = `${p.title}\r\nBcc: victim@evil.example`;
    const message = renderAlert("email", p, ctx);
    expect(message.subject).not.toMatch(/[\r\n]/);
    expect(message.html).not.toContain("<b>x</b>");
    expect(message.html).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(message.html).toContain("a &amp; b");
    expect(message.text).toContain("<b>x</b>"); // plain text is plain
  });

  test("a job link that is not http(s) is never rendered as a link", () => {
    const p = { ...fullPayload(), url: "javascript:alert(1)" };
    for (const type of CHANNEL_TYPES) expect(shown(renderAlert(type, p, ctx)), type).not.toContain("javascript:");
  });
});

describe("long descriptions are cut at a sentence within each platform's limit", () => {
  const sentences = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} says <something> & more.`).join(" ");
  const payload = { ...fullPayload(), description: sentences };
  const endsAtSentence = (text: string) => expect(text).toMatch(/more\. …$/);

  test("Telegram: the whole text within 4,096", () => {
    const { text } = renderAlert("telegram", payload, ctx);
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_LIMITS.text);
    expect(text.length).toBeGreaterThan(TELEGRAM_LIMITS.text - 200);
    endsAtSentence(text.split("\n\n").at(-2)!);
  });

  test("Slack: the description section within 3,000", () => {
    const { body } = renderAlert("slack", payload, ctx) as SlackMessage;
    const section = (body.blocks as { type: string; text?: { text: string } }[]).filter((b) => b.type === "section" && b.text)[1]!.text!.text;
    expect(section.length).toBeLessThanOrEqual(SLACK_LIMITS.section);
    expect(section.length).toBeGreaterThan(SLACK_LIMITS.section - 200);
    endsAtSentence(section);
  });

  test("Discord: the description within 4,096 and the embed within 6,000", () => {
    const { body } = renderAlert("discord", payload, ctx) as DiscordMessage;
    const embed = body.embeds[0];
    expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    const total =
      embed.title.length + embed.description.length + (embed.footer?.text.length ?? 0) + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
    endsAtSentence(embed.description.split("\n\n").at(-2)!);
  });

  test("ntfy: the message within its byte limit, with multi-byte text too", () => {
    const wide = { ...payload, description: Array.from({ length: 400 }, (_, i) => `Satz Nummer ${i} über Größe — 日本語.`).join(" ") };
    const message = renderAlert("ntfy", wide, ctx);
    expect(utf8Bytes(message.message)).toBeLessThanOrEqual(NTFY_LIMITS.messageBytes);
    expect(message.message).toMatch(/日本語\. …$/);
  });

  test("e-mail: bounded too", () => {
    const long = { ...payload, description: sentences.repeat(3) };
    const message = renderAlert("email", long, ctx);
    expect(message.text).toMatch(/more\. …\n\nOpen the job/);
    expect(message.text.length).toBeLessThan(EMAIL_LIMITS.description + 2_000);
  });

  test("text that escaping inflates five-fold still fits (Telegram)", () => {
    const { text } = renderAlert("telegram", { ...payload, description: "&&&&&&&&&. ".repeat(1000) }, ctx);
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_LIMITS.text);
    expect(text).toContain("&amp;&amp;");
  });
});

describe("digests", () => {
  const jobs = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ ...fullPayload(), title: `Job ${i + 1}: ${"long title ".repeat(20)}`, matchingScore: 9 - i / 100 }));

  for (const type of CHANNEL_TYPES) {
    test(`${type}: lists the jobs and "and K more" with the dashboard link (snapshot)`, () => {
      const second = { ...sparsePayload(), title: "Second <b>job</b> @everyone" };
      const message = renderDigest(type, [fullPayload(), second], { more: 3, dashboardUrl: DASHBOARD_URL, nowTs: NOW });
      const text = shown(message);
      expect(text).toContain("5 new jobs");
      expect(text).toContain("and 3 more");
      expect(text).toContain(DASHBOARD_URL);
      expect(text).toMatchSnapshot();
    });
  }

  test("jobs that do not fit are counted in 'and K more', within each limit", () => {
    const many = jobs(60);
    const telegram = renderDigest("telegram", many, { more: 0, dashboardUrl: DASHBOARD_URL, nowTs: NOW });
    expect(telegram.text.length).toBeLessThanOrEqual(TELEGRAM_LIMITS.text);
    const listed = (telegram.text.match(/<a href="https:\/\/marketplace/g) ?? []).length;
    expect(telegram.text).toContain(`and ${60 - listed} more`);
    expect(listed).toBeGreaterThan(5);

    const slack = renderDigest("slack", many, { more: 10, dashboardUrl: DASHBOARD_URL, nowTs: NOW }) as SlackMessage;
    expect(slack.body.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    expect(JSON.stringify(slack.body)).toContain(`and ${70 - (slack.body.blocks.length - 3)} more`);

    const discord = renderDigest("discord", many, { more: 0, dashboardUrl: DASHBOARD_URL, nowTs: NOW }) as DiscordMessage;
    expect(discord.body.embeds[0].description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(discord.body.embeds[0].description).toMatch(/and \d+ more — \[open jobpilot\]/);

    const ntfy = renderDigest("ntfy", many, { more: 0, dashboardUrl: DASHBOARD_URL, nowTs: NOW });
    expect(utf8Bytes(ntfy.message)).toBeLessThanOrEqual(NTFY_LIMITS.messageBytes);
  });

  test("the heading names the feed, escaped for the platform and within its limit", () => {
    // A chat or channel may take the digests of several feeds: each says whose jobs it lists.
    const hostileFeed = `<b>x</b> @everyone & ${"feed ".repeat(100)}`;
    const payloads = [fullPayload(), sparsePayload()].map((p) => ({ ...p, feedTitle: hostileFeed }));
    const digest = <T extends (typeof CHANNEL_TYPES)[number]>(type: T) => renderDigest(type, payloads, { more: 0, dashboardUrl: null, nowTs: NOW });

    const telegram = digest("telegram").text.split("\n")[0]!;
    expect(telegram).toStartWith("<b>2 new jobs — &lt;b&gt;x&lt;/b&gt; @everyone &amp; feed feed");
    expect(telegram.length).toBeLessThanOrEqual(400 + "<b></b>".length);
    const slack = digest("slack") as SlackMessage;
    const header = (slack.body.blocks[0] as { text: { text: string } }).text.text;
    expect(header).toStartWith("2 new jobs — &lt;b&gt;x&lt;/b&gt; @everyone &amp; feed");
    expect(header.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    const discord = (digest("discord") as DiscordMessage).body.embeds[0];
    expect(discord.title).toStartWith("2 new jobs — \\<b\\>x\\</b\\> @\u200deveryone & feed");
    expect(discord.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    const ntfy = digest("ntfy");
    expect(ntfy.title).toStartWith(`2 new jobs — <b>x</b> @everyone & feed`);
    expect(ntfy.title.length).toBeLessThanOrEqual(NTFY_LIMITS.title);
    const email = digest("email");
    expect(email.subject).toStartWith("2 new jobs — <b>x</b> @everyone & feed");
    expect(email.subject.length).toBeLessThanOrEqual(EMAIL_LIMITS.subject);
    expect(email.text.split("\n")[0]).toStartWith("2 new jobs — <b>x</b> @everyone & feed");
    expect(email.html).toContain('<h2 style="margin:0 0 12px;font-size:18px">2 new jobs — &lt;b&gt;x&lt;/b&gt; @everyone &amp; feed');
  });

  test("without jobs left over there is no 'more' line", () => {
    const message = renderDigest("telegram", [fullPayload()], { more: 0, dashboardUrl: null, nowTs: NOW });
    expect(message.text).toStartWith("<b>1 new job — Design work</b>");
    expect(message.text).not.toContain("more");
  });
});

describe("wording", () => {
  test("budgets: hourly range, one end, fixed, other currencies, none", () => {
    const budget = (b: Partial<WebhookPayload["budget"]>) => {
      const p = fullPayload();
      p.budget = { hourlyMin: null, hourlyMax: null, fixedAmount: null, currency: "USD", ...b };
      return (
        renderAlert("ntfy", p, ctx)
          .message.split("\n")
          .find((l) => l.startsWith("Budget: ")) ?? null
      );
    };
    expect(budget({ hourlyMin: 30, hourlyMax: 60 })).toBe("Budget: $30–$60/hr");
    expect(budget({ hourlyMin: 45, hourlyMax: 45 })).toBe("Budget: $45/hr");
    expect(budget({ hourlyMin: 30 })).toBe("Budget: from $30/hr");
    expect(budget({ hourlyMax: 60 })).toBe("Budget: up to $60/hr");
    expect(budget({ fixedAmount: 1500 })).toBe("Budget: $1,500 fixed");
    expect(budget({ fixedAmount: 99.5, currency: "EUR" })).toBe("Budget: €99.50 fixed");
    expect(budget({ fixedAmount: 500, currency: null })).toBe("Budget: 500 fixed");
    expect(budget({})).toBeNull();
    expect(money(1200, "ZZZ")).toBe("ZZZ\u00a01,200");
    expect(money(104178.91, "USD", true)).toBe("$104.2K");
  });

  test("relative posting times", () => {
    const ago = (ms: number) => relativeTime(NOW - ms, NOW);
    expect(ago(-60_000)).toBe("just now");
    expect(ago(59_000)).toBe("just now");
    expect(ago(12 * 60_000)).toBe("12 min ago");
    expect(ago(3 * 3_600_000 + 5)).toBe("3 h ago");
    expect(ago(26 * 3_600_000)).toBe("1 day ago");
    expect(ago(5 * 86_400_000)).toBe("5 days ago");
    expect(ago(90 * 86_400_000)).toBe("on 2025-10-17");
    expect(relativeTime(Number.NaN, NOW)).toBeNull();
  });

  test("ntfy priority follows the matching score", () => {
    expect([10, 9, 8, 7.5, 6, 5, 3, 2.5, 1, 0].map(ntfyPriority)).toEqual([5, 5, 4, 4, 3, 3, 2, 2, 1, 1]);
  });

  test("discordEscape leaves plain words alone", () => {
    expect(discordEscape("Senior React developer, 3 months")).toBe("Senior React developer, 3 months");
  });
});

describe("cutting at a sentence", () => {
  test("after the last sentence that fits, else after a word, ending with ' …'", () => {
    expect(cutAtSentence("One. Two. Three.", 100)).toBe("One. Two. Three.");
    expect(cutAtSentence("First sentence here. Second sentence is longer than the room.", 40)).toBe("First sentence here. …");
    expect(cutAtSentence("Does it work? Yes! It does, mostly and then some more words", 30)).toBe("Does it work? Yes! …");
    expect(cutAtSentence("Line one\nLine two is here and goes on", 20)).toBe("Line one …");
    // A sentence end too early (under half the room) loses to a word boundary.
    expect(cutAtSentence("Hi. this text has no other sentence end in it at all", 30)).toBe("Hi. this text has no other …");
    // "3.5" is not the end of a sentence.
    expect(cutAtSentence("Version 3.5 is required for this work package", 14)).toBe("Version 3.5 …");
    expect(cutAtSentence("x".repeat(50), 10)).toBe("xxxxxxxx …");
    expect(cutAtSentence("😀".repeat(10), 7)).toBe("😀😀 …");
  });

  test("property: never longer than the limit, a prefix of the text when cut, never half a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 0, max: 320 }), (text, max) => {
        const out = cutAtSentence(text, max);
        expect(out.length).toBeLessThanOrEqual(Math.max(max, 0));
        if (out !== text && out !== "") {
          expect(out.endsWith(" …")).toBe(true);
          expect(text.startsWith(out.slice(0, -2))).toBe(true);
        }
        expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
      }),
    );
  });

  test("property: fitText meets the limit after escaping", () => {
    const escapeHtml = (s: string) => s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), fc.integer({ min: 0, max: 600 }), (text, max) => {
        expect(fitText(text, max, escapeHtml).length).toBeLessThanOrEqual(max);
        expect(utf8Bytes(fitText(text, max, (s) => s, utf8Bytes))).toBeLessThanOrEqual(max);
      }),
    );
  });
});

describe("outcome alerts (proposal.viewed / replied / hired)", () => {
  const HOSTILE = 'Rust <b>x</b> *bold* @everyone <!channel> [link](http://evil) & "q"';
  const outcomePayload = (type: OutcomePayload["type"], over: Partial<OutcomePayload["application"]> = {}): OutcomePayload =>
    buildOutcomePayload({
      eventId: "evt_1",
      type,
      createdAtTs: NOW,
      feed: { id: "feed-1", title: "Leads @here" },
      processedJobId: "entry-1",
      job: { ciphertext: "~01abc", title: HOSTILE, url: "https://marketplace.example/jobs/~01abc" },
      application: {
        queueId: "q-1",
        freelancerId: "f-1",
        profileId: "p-1",
        sentAtTs: NOW - 3 * 3_600_000,
        stageAtTs: NOW - 5 * 60_000,
        outcome: type === "proposal.hired" ? "hired" : null,
        valueUsd: 1200,
        connectsCostUsd: 2.6,
        ...over,
      },
    });

  test("the payload carries the value on a hire only, and the stage named by the type", () => {
    expect(outcomePayload("proposal.replied").application).toMatchObject({
      stage: "replied",
      valueUsd: null,
      sentAt: new Date(NOW - 3 * 3_600_000).toISOString(),
    });
    expect(outcomePayload("proposal.hired").application).toMatchObject({ stage: "hired", valueUsd: 1200, outcome: "hired" });
  });

  test("every kind says what happened, with the title, when, and both links; job text pings no one", () => {
    const headlines = { "proposal.viewed": "Proposal viewed:", "proposal.replied": "Client replied:", "proposal.hired": "Hired:" } as const;
    for (const type of Object.keys(headlines) as (keyof typeof headlines)[]) {
      for (const kind of CHANNEL_TYPES) {
        const message = renderOutcomeAlert(kind, outcomePayload(type), ctx);
        const text = shown(message);
        expect(text, `${kind} ${type}`).toContain(headlines[type]);
        expect(text, kind).toContain("5 min ago");
        expect(text, kind).toContain(DASHBOARD_JOB_URL);
        expect(text, kind).toContain("https://marketplace.example/jobs/~01abc");
        if (type === "proposal.hired") expect(text, kind).toContain("$1,200");
        else expect(text, kind).not.toContain("$1,200");
        // The job's own markup never comes through as markup.
        if (kind === "telegram") expect(text).not.toContain("<b>x</b>");
        if (message.type === "email") expect(message.html).not.toContain("<b>x</b>"); // the plain-text part is plain text
        if (kind === "slack") expect(text).not.toContain("<!channel>");
        if (kind === "discord") {
          expect((message as DiscordMessage).body.allowed_mentions).toEqual({ parse: [] });
          expect(text).not.toMatch(/@everyone|@here/);
        }
      }
    }
    expect(renderOutcomeAlert("ntfy", outcomePayload("proposal.hired"), ctx)).toMatchObject({ priority: 5, tags: ["tada"] });
    expect(renderOutcomeAlert("ntfy", outcomePayload("proposal.viewed"), ctx)).toMatchObject({ priority: 3, tags: ["eyes"] });
    expect(renderOutcomeAlert("telegram", outcomePayload("proposal.replied"), ctx)).not.toHaveProperty("replyMarkup");
  });

  test("a hire that fell through before it was sent says so, without a value", () => {
    const text = shown(renderOutcomeAlert("email", outcomePayload("proposal.hired", { outcome: "lost", valueUsd: null }), ctx));
    expect(text).toContain("Now: lost");
    expect(text).not.toContain("$1,200");
  });
});
