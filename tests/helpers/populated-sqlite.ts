/**
 * A realistic jobpilot SQLite database for the db copy tests, made only through the product's outer
 * interfaces (a real `serve` process, its HTTP API and dashboard, and the CLI), so it stays valid whatever
 * happens inside the modules.
 */
import { expect } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";
import { startFakeTelegram, type TelegramCall } from "./channel-fakes";
import { makeDoc } from "./factories";
import { startServer } from "./process";
import { startWebhookReceiver } from "./webhook-receiver";

export async function cliRun(env: Record<string, string>, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  if (typeof code !== "number") throw new Error(`${argv.join(" ")} did not exit`);
  return { code, stdout, stderr };
}

/**
 * Runs `serve` on a new SQLite file with the sandbox marketplace producing jobs, and uses it as people
 * would: a second account and a grant from the CLI, documents ingested from a file, feeds (one with a
 * webhook, one with a scoring prompt, one alerting a Telegram chat), applications that go through, a dashboard
 * session and a sign-in link, a Telegram chat bound to the bot with a draft made from an alert's button.
 * Stops the server cleanly and returns the file.
 */
export async function populatedSqlite(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "jp-dbcopy-"));
  const dbPath = join(dir, "source.db");
  const receiver = await startWebhookReceiver();
  const telegram = await startFakeTelegram();
  const env = {
    JOBPILOT_TELEGRAM_API_URL: telegram.url,
    JOBPILOT_DB: dbPath,
    JOBPILOT_SANDBOX_JOBS_PER_MINUTE: "1200",
    JOBPILOT_SANDBOX_APPLY_LATENCY_MS: "0",
    JOBPILOT_LOGGED_OUT_WINDOW_MS: "0",
    JOBPILOT_WEBHOOK_ALLOW_PRIVATE: "true",
    JOBPILOT_TRACKER_CRON: "* * * * * *",
    JOBPILOT_SYNC_CRON: "* * * * * *",
    LOG_LEVEL: "warn",
  };
  const server = await startServer([process.execPath, "run", "src/main.ts", "serve"], env);
  try {
    const key = /API key \(shown once, store it now\): (jp_live_\w+)/.exec(server.output())![1]!;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server.url + path, {
        method,
        headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    // The CLI on the same file while the server runs.
    const cli = (...argv: string[]) => cliRun({ JOBPILOT_DB: dbPath }, ...argv);
    const created = await cli("account", "create", "--name", "Agentur Müller & Söhne ✓", "--kind", "agency", "--credits", "7", "--json");
    expect(created.code, created.stderr).toBe(0);
    const other = JSON.parse(created.stdout).accountId as string;
    expect((await cli("credits", "grant", "--account", other, "--amount", "3", "--note", "welcome 🎉")).code).toBe(0);
    expect((await cli("account", "limits", "--account", other, "--multiplier", "1.5", "--set", "apply.minute=120")).code).toBe(0);
    expect((await cli("dashboard", "link", "--account", other, "--base-url", server.url)).code).toBe(0);
    const docsFile = join(dir, "docs.ndjson");
    const docs = [
      makeDoc({ title: "Go service «mit Umlauten» — ü", fixed: 1234.56, skills: ["Go", "PostgreSQL"], questions: ["Why you?"] }),
      makeDoc({ title: "React dashboard", jobType: "HOURLY", hourly: [25.5, 60.25], skills: ["React", "TypeScript"], country: "Deutschland" }),
      makeDoc({ title: "Tiny fix", fixed: 0.1, usOnly: true, paymentVerified: false }),
      // From a client the account blocks below: kept out of every feed, on record as filtered (client_lists, filtered_jobs).
      makeDoc({ title: "Copy 500 products – contact me on Telegram", fixed: 20, companyId: "1500000000000000999" }),
    ];
    writeFileSync(docsFile, docs.map((d) => JSON.stringify(d)).join("\n"));

    const everything = await call("POST", "/api/v1/feeds", { title: "Everything", minScore: 0, webhookUrl: receiver.url });
    expect(everything.status).toBe(201);
    const scored = await call("POST", "/api/v1/feeds", {
      title: "Web developers",
      profilePrompt: "Full-stack web developer: React, TypeScript, Node.js, APIs",
      minScore: 0,
      includes: ["react", "typescript"],
      excludes: ["wordpress"],
    });
    expect(scored.status).toBe(201);
    // A Telegram channel on a feed of its own; a chat binds with /start <code> (a second code stays unused).
    const chat = { id: 4242, type: "private", first_name: "Ann" };
    const channel = await call("POST", "/api/v1/channels", {
      type: "telegram",
      name: "Phone",
      config: { botToken: "123456789:AAFdbcopyTESTdbcopyTESTdbcopyTEST0042", chatId: chat.id },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const channelId = channel.body.channel.id as string;
    expect((await call("POST", "/api/v1/feeds", { title: "Phone alerts", minScore: 0, channelIds: [channelId] })).status).toBe(201);
    const code = await call("POST", `/api/v1/channels/${channelId}/binding-code`);
    expect(code.status, JSON.stringify(code.body)).toBe(201);
    telegram.pushUpdate({ message: { message_id: 1, date: 0, chat, text: code.body.command } });
    const sent = () => telegram.callsTo("sendMessage");
    const waitFor = async (check: () => boolean, what: string) => {
      const until = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${server.output()}`);
        await Bun.sleep(25);
      }
    };
    await waitFor(() => sent().some((c) => String(c.body.text).includes("now linked")), "the Telegram binding reply");
    expect((await call("POST", `/api/v1/channels/${channelId}/binding-code`)).status).toBe(201);

    const blocked = await call("PUT", "/api/v1/client-lists/1500000000000000999", { list: "blocked", reason: "Wollte «Vorkasse» ✗" });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    expect((await call("PUT", "/api/v1/client-lists/1500000000000000001", { list: "favoured" })).status).toBe(200);
    const ingested = await cli("ingest", docsFile, "--source", "test");
    expect(ingested.code, ingested.stderr).toBe(0);

    // Sandbox jobs flow into the feeds, their webhooks are delivered.
    const deadline = Date.now() + 15_000;
    let jobs: any[] = [];
    for (;;) {
      jobs = (await call("GET", `/api/v1/feeds/${everything.body.feed.id}/jobs?limit=50`)).body.jobs ?? [];
      if ((jobs.length >= 8 && receiver.received.length >= 4) || Date.now() > deadline) break;
      await Bun.sleep(100);
    }
    expect(jobs.length, server.output()).toBeGreaterThanOrEqual(8);

    // Draft proposal under the first Telegram alert.
    const isAlert = (c: TelegramCall) => Array.isArray(c.body.reply_markup?.inline_keyboard);
    await waitFor(() => sent().some(isAlert), "a Telegram alert");
    const alert = sent().find(isAlert)!;
    const draft = (alert.body.reply_markup.inline_keyboard as TelegramCall["body"][][]).flat().find((b) => b.text === "Draft proposal")!;
    const drafted = sent().length;
    telegram.pushUpdate({
      callback_query: {
        id: "cb-1",
        from: { id: chat.id },
        chat_instance: "1",
        data: draft.callback_data,
        message: { message_id: sent().indexOf(alert) + 1, date: 0, chat },
      },
    });
    await waitFor(
      () =>
        sent()
          .slice(drafted)
          .some((c) => String(c.body.reply_markup?.inline_keyboard?.flat?.()?.map((b: TelegramCall["body"]) => b.text) ?? "").includes("Apply with this")),
      "the drafted letter",
    );

    // An experiment with its arms; the first application below is assigned to one of them.
    const experiment = await call("POST", "/api/v1/experiments", {
      name: "Short vs long",
      arms: [
        { name: "short", prompt: "Three sentences at most." },
        { name: "long", prompt: "Four paragraphs." },
      ],
    });
    expect(experiment.status, JSON.stringify(experiment.body)).toBe(201);

    // The governor's limits (no pacing, so the three applications below go at once), a freelancer's balance set by
    // hand, and with them their audit entries.
    const limits = await call("PATCH", "/api/v1/automation", {
      minGapMinutes: 0,
      connectsPerWeek: 400,
      workingHours: { timeZone: "Europe/Berlin", days: [1, 2, 3, 4, 5], start: "08:30", end: "18:00" },
    });
    expect(limits.status, JSON.stringify(limits.body)).toBe(200);
    const roster = (await call("GET", "/api/auto-apply-v2/freelancers")).body.freelancers;
    const freelancerId = roster[0].id;
    // A portfolio with text a copy must keep exactly (quotes, umlauts, an emoji).
    const portfolio = {
      caseStudies: [
        { title: "Lager-Dashboard «Müller» ✓", built: 'A "live" React dashboard', skills: ["React"], outcome: "3× faster 🎉", link: "https://example.com/x" },
      ],
      pastClients: ["Müller & Söhne"],
      skillYears: [{ skill: "React", years: 6.5 }],
    };
    expect((await call("PUT", `/api/v1/profiles/${roster[0].profiles[0].profileId}/portfolio`, portfolio)).status).toBe(200);
    expect((await call("PUT", "/api/v1/automation/connects", { freelancerId, available: 140 })).status).toBe(200);

    // Applications through the sandbox marketplace.
    const queued: string[] = [];
    for (const [i, j] of jobs
      .filter((x) => x.job.platform === "marketplace")
      .slice(0, 3)
      .entries()) {
      const res = await call("POST", "/api/auto-apply-v2/apply", {
        jobId: j.job.ciphertext,
        coverLetter: `Hello — I can help with "${j.job.title}".`,
        ...(i === 0 ? { experimentId: experiment.body.experiment.id } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      queued.push(res.body.queueId);
    }
    for (const id of queued) {
      for (let i = 0; i < 200; i++) {
        const s = await call("GET", `/api/auto-apply-v2/status?queueId=${id}`);
        if (s.body.applicationStatus !== "processing") break;
        await Bun.sleep(25);
      }
    }

    // A dashboard session, signed in with the key as a browser does.
    const form = await fetch(`${server.url}/dashboard/sign-in`);
    const cookie = /^jp_signin=([^;]*)/.exec(form.headers.get("set-cookie") ?? "")![1]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${server.url}/dashboard/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_signin=${cookie}`, origin: server.url },
      body: new URLSearchParams({ apiKey: key, csrf }).toString(),
    });
    expect(signedIn.status).toBe(303);
    // One match dismissed in the inbox, so the copy carries a feed entry's dismissal too.
    const session = /^jp_session=([^;]*)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const inbox = await (await fetch(`${server.url}/dashboard`, { headers: { cookie: `jp_session=${session}` } })).text();
    const sessionCsrf = /name="csrf" value="([^"]+)"/.exec(inbox)![1]!;
    const dismissed = await fetch(`${server.url}/dashboard/inbox/${jobs[0].processedJobId}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `jp_session=${session}` },
      body: new URLSearchParams({ csrf: sessionCsrf, action: "dismiss" }).toString(),
    });
    expect(dismissed.status).toBe(303);
    await Bun.sleep(1200); // one tracker and one sync tick
  } finally {
    expect(await server.stop()).toBe(0);
    await receiver.close();
    await telegram.close();
  }
  return dbPath;
}
