import type { Config } from "../config";
import { finishMarketplaceConnect, parsePastedCode, startMarketplaceConnect } from "../modules/intake/connect";
import { configuredSourceNames, DEFAULT_INTERVALS, parseSourceIntervals, SOURCE_CATALOG } from "../modules/intake/registry";
import { listSourceStates, oauthStatePending } from "../modules/intake/repo";
import { SOURCE_NAME as MARKETPLACE_API_NAME } from "../sources/marketplace-api/source";
import { SANDBOX_NAME } from "../sources/sandbox/index";
import { UsageError, type Command, type CommandContext } from "./command";
import { formatTs, printJson, table, withDeps } from "./db";

function formatInterval(ms: number | undefined): string {
  if (ms === undefined) return "-";
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function schedule(config: Config, name: string): string {
  const interval = parseSourceIntervals(config.sourceIntervals)[name] ?? DEFAULT_INTERVALS[name];
  if (name === SANDBOX_NAME && interval === undefined) return formatInterval(Math.max(10, Math.round(60_000 / config.sandboxJobsPerMinute)));
  if (name === MARKETPLACE_API_NAME && interval === undefined) return `cron ${config.marketplaceApiCron}`;
  return formatInterval(interval);
}

export const sourceList: Command = {
  name: "source list",
  summary: "List every job source jobpilot knows, whether JOBPILOT_SOURCES enables it, and its schedule.",
  usage: "jobpilot source list [--json]",
  options: { json: { type: "boolean", description: "Print a JSON array" } },
  run(ctx) {
    const config = ctx.config();
    const enabled = new Set(configuredSourceNames(config));
    const rows = Object.entries(SOURCE_CATALOG).map(([name, entry]) => ({
      name,
      enabled: enabled.has(name),
      platform: entry.platform,
      schedule: schedule(config, name),
      description: entry.description,
    }));
    if (ctx.values.json) printJson(ctx, rows);
    else
      ctx.io.stdout(
        table([
          ["SOURCE", "ENABLED", "PLATFORM", "SCHEDULE", "WHAT"],
          ...rows.map((r) => [r.name, r.enabled ? "yes" : "no", r.platform, r.schedule, r.description]),
        ]),
      );
    return 0;
  },
};

export const sourceStatus: Command = {
  name: "source status",
  summary: "Show each source's last poll, jobs seen and new, last error and next run (as recorded by `serve`).",
  usage: "jobpilot source status [--json]",
  options: { json: { type: "boolean", description: "Print a JSON array" } },
  run(ctx) {
    return withDeps(ctx, async (deps) => {
      const enabled = new Set(configuredSourceNames(deps.config));
      const states = new Map((await listSourceStates(deps.db)).map((s) => [s.name, s]));
      const names = [...new Set([...enabled, ...states.keys()])].sort();
      const rows = names.map((name) => {
        const s = states.get(name);
        return {
          name,
          enabled: enabled.has(name),
          lastPollAtTs: s?.lastPollAtTs ?? null,
          lastSuccessAtTs: s?.lastSuccessAtTs ?? null,
          lastSeen: s?.lastSeen ?? 0,
          lastNew: s?.lastNew ?? 0,
          totalSeen: s?.totalSeen ?? 0,
          totalNew: s?.totalNew ?? 0,
          consecutiveFailures: s?.consecutiveFailures ?? 0,
          lastError: s?.lastError ?? null,
          lastErrorAtTs: s?.lastErrorAtTs ?? null,
          nextRunAtTs: enabled.has(name) ? (s?.nextRunAtTs ?? null) : null,
        };
      });
      if (ctx.values.json) printJson(ctx, rows);
      else if (rows.length === 0) ctx.io.stdout("No job sources enabled (JOBPILOT_SOURCES=none) and none has polled yet.\n");
      else {
        ctx.io.stdout(
          table([
            ["SOURCE", "ENABLED", "LAST POLL", "SEEN/NEW (LAST)", "SEEN/NEW (TOTAL)", "NEXT RUN", "LAST ERROR"],
            ...rows.map((r) => [
              r.name,
              r.enabled ? "yes" : "no",
              formatTs(r.lastPollAtTs),
              `${r.lastSeen}/${r.lastNew}`,
              `${r.totalSeen}/${r.totalNew}`,
              r.enabled ? (r.nextRunAtTs === null ? "at start" : formatTs(r.nextRunAtTs)) : "-",
              r.lastError
                ? `${r.lastError} (${r.consecutiveFailures} failure${r.consecutiveFailures === 1 ? "" : "s"} in a row, ${formatTs(r.lastErrorAtTs)})`
                : "-",
            ]),
          ]),
        );
      }
      return 0;
    });
  },
};

/** Reads one line of standard input (the pasted code), or null at end of input. */
async function readLine(ctx: CommandContext, signal: AbortSignal): Promise<string | null> {
  if (!ctx.io.stdin) return null;
  const reader = ctx.io.stdin().getReader();
  signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return null;
  } finally {
    reader.releaseLock();
  }
  const line = text.split("\n")[0]!.trim();
  return line || null;
}

export const sourceConnect: Command = {
  name: "source connect",
  summary: "Connect the marketplace's official API (OAuth2): prints the page to approve, then takes the code and stores the tokens encrypted.",
  usage: "jobpilot source connect marketplace [--code CODE_OR_REDIRECT_URL] [--wait SECONDS]",
  details: [
    "Needs JOBPILOT_MARKETPLACE_CLIENT_ID, JOBPILOT_MARKETPLACE_CLIENT_SECRET and JOBPILOT_SECRET_KEY.",
    "After you approve, the marketplace redirects to JOBPILOT_MARKETPLACE_REDIRECT_URI. If that is a running jobpilot's",
    "/admin/oauth/callback, it finishes there and this command notices; otherwise paste the code or the whole redirect URL.",
  ].join("\n"),
  positionals: [{ name: "PROVIDER", required: true }],
  options: {
    code: { type: "string", value: "CODE", description: "The code (or redirect URL) from an approval you already did" },
    wait: { type: "string", value: "SECONDS", description: "How long to wait for the code (default 600)" },
  },
  run(ctx) {
    if (ctx.positionals[0] !== "marketplace") throw new UsageError(`unknown provider "${ctx.positionals[0]}" (available: marketplace)`);
    const waitSeconds = ctx.values.wait === undefined ? 600 : Number(ctx.values.wait);
    if (!Number.isInteger(waitSeconds) || waitSeconds < 1) throw new UsageError("--wait must be a whole number of seconds >= 1");
    return withDeps(ctx, async (deps) => {
      if (typeof ctx.values.code === "string") {
        const { expiresAt } = await finishMarketplaceConnect(deps, parsePastedCode(ctx.values.code));
        ctx.io.stdout(`Connected. Access token valid until ${formatTs(expiresAt)}; it is refreshed automatically.\n`);
        return 0;
      }
      const { url, state } = await startMarketplaceConnect(deps);
      ctx.io.stdout(
        `Open this page, log in and approve jobpilot:\n\n  ${url}\n\nThen paste the code or the whole redirect URL here (or let ${deps.config.marketplaceRedirectUri} receive it):\n`,
      );
      const abort = new AbortController();
      const deadline = deps.clock.now() + waitSeconds * 1000;
      // Whichever comes first: the server's callback using up our state, or a pasted line (end of input = wait for the callback).
      const viaCallback = (async () => {
        while (!abort.signal.aborted && deps.clock.now() < deadline) {
          if (!(await oauthStatePending(deps.db, state))) return { callback: true } as const;
          await Bun.sleep(500);
        }
        return null;
      })();
      type Outcome = { line: string } | { callback: true } | null;
      const pasted = readLine(ctx, abort.signal).then((line): Outcome | Promise<Outcome> => (line ? { line } : viaCallback));
      const outcome: Outcome = await Promise.race([pasted, viaCallback]);
      abort.abort();
      if (!outcome) {
        ctx.io.stderr("No code arrived in time; run the command again.\n");
        return 1;
      }
      if ("callback" in outcome) {
        ctx.io.stdout("Connected through the callback; the tokens are stored and refreshed automatically.\n");
        return 0;
      }
      const parsed = parsePastedCode(outcome.line);
      const { expiresAt } = await finishMarketplaceConnect(deps, { code: parsed.code, state: parsed.state ?? state });
      ctx.io.stdout(`Connected. Access token valid until ${formatTs(expiresAt)}; it is refreshed automatically.\n`);
      return 0;
    });
  },
};
