import { createApp, listenOptions } from "../app";
import { closeDeps, createDeps, databaseLabel, flushUsage } from "../deps";
import { systemClock } from "../lib/clock";
import { createLogger, resolveLogFormat } from "../lib/log";
import { bootstrapFirstOwner, LINK_LIFETIME_MS } from "../modules/members/service";
import { createShutdown } from "../shutdown";
import { Loop } from "../worker/loop";
import { isEngineTuned } from "../lib/engine-tuning";
import { MemoryTrim } from "../worker/memory-trim";
import { TaskWorker } from "../worker/worker";
import { SCORE_TASK, scoreFeedMatch } from "../modules/scoring/service";
import { searchTerms } from "../modules/feeds/repo";
import { sealClearWebhooks } from "../modules/feeds/webhook-seal";
import { configuredSources, optionalMarketplaceApiOptions, sourceLookup } from "../modules/intake/registry";
import { importLegacyTokenFile } from "../modules/intake/tokens";
import { sourceLoops } from "../modules/intake/runner";
import { SUBMIT_TASK } from "../modules/applications/service";
import { autoApplyEntry } from "../modules/autopilot/auto.task";
import { AUTO_APPLY_TASK } from "../modules/feeds/admit";
import { submitApplication } from "../modules/applications/submit.task";
import { SYNC_TASK, syncEngagement } from "../modules/applications/sync.task";
import { createMarketplaceApiTracker } from "../sources/marketplace-api/tracker";
import { SANDBOX_NAME } from "../sources/sandbox/index";
import { startScheduler } from "../worker/scheduler";
import { leaseGate, listenForWork } from "../worker/cluster";
import { isPg, releaseMemory } from "../db/client";
import { WebhookDeliverer } from "../modules/delivery/deliverer";
import { TRACK_TASK, trackJobs } from "../modules/intake/track.task";
import { channelSenderOf } from "../modules/delivery/channel-delivery";
import { TelegramBots } from "../modules/telegram/poller";
import { editSettledAlert, TELEGRAM_SETTLED_TASK } from "../modules/telegram/settled.task";
import { RETENTION_CRON, RETENTION_TASK, runRetention } from "../modules/maintenance/retention.task";
import { BACKUP_TASK, runBackup, scheduledBackups } from "../modules/maintenance/backup.task";
import { pruneSessions, SESSIONS_CRON, SESSIONS_TASK } from "../modules/dashboard/sessions.task";
import { Cron } from "croner";
import { ConfigError, SETTINGS } from "../config";
import { browserBaseUrl, LISTEN_OPTIONS, type Command, type Running } from "./command";
import { resolveSecretKey } from "./secret-key";

/** How long a node's lease on a job source lasts without renewal (another node polls it after this). */
const SOURCE_LEASE_MS = 60_000;

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the HTTP API and every background loop in one process. Applies pending migrations first.",
  usage: "jobpilot serve [--port N] [--host ADDR] [--db PATH] [--log-level LEVEL]",
  details:
    "Logs go to stdout (JSON lines); the start banner goes to stderr. On an empty database it creates a first account and prints its API key once, in the banner on stderr. SIGTERM or SIGINT stops it gracefully.",
  options: LISTEN_OPTIONS,
  async run(ctx): Promise<Running> {
    const config = ctx.config();
    if (config.backupCron) checkCronPattern(SETTINGS.backupCron.env, config.backupCron);
    const log = createLogger({ level: config.logLevel, format: resolveLogFormat(config.logFormat, ctx.io.stdoutIsTTY === true), write: ctx.io.stdout });
    const { deps, migrations } = await createDeps(config, { clock: systemClock, log, secretKey: resolveSecretKey(config, log) });
    if (migrations.applied.length) log.info("migrations applied", { applied: migrations.applied });
    let sources: ReturnType<typeof configuredSources>;
    const sourceDeps = { config, db: deps.db, clock: deps.clock, searchTerms: (platform: string) => searchTerms(deps.db, platform) };
    try {
      // Before any source or tracker reads the tokens: the file of an earlier version becomes the database row.
      await importLegacyTokenFile({ db: deps.db, dbPath: config.dbPath, clock: deps.clock, log });
      // Before anything is delivered or backed up: webhook URLs and secrets of earlier versions are sealed once.
      await sealClearWebhooks({ db: deps.db, secretKey: deps.secretKey, log });
      sources = configuredSources(sourceDeps);
    } catch (err) {
      await closeDeps(deps);
      throw err;
    }
    const first = await bootstrapFirstOwner(deps, config.firstRunCredits);

    const app = createApp(deps);
    try {
      app.listen(listenOptions(config));
    } catch (err) {
      await closeDeps(deps);
      throw new Error(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
    }
    const server = app.server!;
    const findSource = sourceLookup(sourceDeps, sources);
    const tracker = createMarketplaceApiTracker(optionalMarketplaceApiOptions(config, deps.db), log);
    // Telegram alerts edited with an application's outcome link to the dashboard as the deliverer's alerts do.
    const alertSender = channelSenderOf(deps, browserBaseUrl(config.host, server.port ?? config.port));
    // Two workers, so slow model calls for scoring never hold up submissions.
    const worker = new TaskWorker(deps, {
      concurrency: config.workerConcurrency,
      leaseMs: config.taskLeaseMs,
      handlers: {
        [SCORE_TASK]: (payload, ctx) => scoreFeedMatch(deps, payload, ctx),
        [SYNC_TASK]: (payload, ctx) => syncEngagement(deps, payload, ctx, tracker),
        [TRACK_TASK]: () => trackJobs(deps, findSource),
        [TELEGRAM_SETTLED_TASK]: (payload) => editSettledAlert(deps, alertSender, payload),
        [RETENTION_TASK]: () => runRetention(deps),
        [SESSIONS_TASK]: () => pruneSessions(deps),
        [BACKUP_TASK]: () => runBackup(deps),
      },
    });
    const applyWorker = new TaskWorker(deps, {
      name: "apply",
      concurrency: config.applyConcurrency,
      leaseMs: config.taskLeaseMs,
      perKey: { key: (p: { accountId?: string }) => p.accountId ?? "", limit: config.applyConcurrencyPerAccount },
      retryBaseMs: 2000,
      retryMaxMs: 60_000,
      handlers: {
        [SUBMIT_TASK]: (payload, ctx) => submitApplication(deps, payload, ctx),
        [AUTO_APPLY_TASK]: (payload) => autoApplyEntry(deps, payload),
      },
    });
    const deliverer = createDeliverer(deps, browserBaseUrl(config.host, server.port ?? config.port));
    deps.work.subscribe(() => {
      worker.notify();
      applyWorker.notify();
      deliverer.notify();
    });
    // Several nodes on one PostgreSQL: the others' wake-ups arrive by NOTIFY (the workers poll every second besides).
    const listener = isPg(deps.db) ? await listenForWork(deps.db, deps.nodeId, () => deps.work.notify()) : undefined;
    worker.start();
    applyWorker.start();
    deliverer.start();
    const backups = scheduledBackups(config);
    if (!backups.on && backups.why) log.warn(backups.why);
    const scheduler = startScheduler(deps, [
      { name: "engagement-sync", pattern: config.syncCron, kind: SYNC_TASK },
      { name: "proposal-activity-tracker", pattern: config.trackerCron, kind: TRACK_TASK },
      ...(config.retentionDays > 0 ? [{ name: "retention", pattern: RETENTION_CRON, kind: RETENTION_TASK }] : []),
      { name: "dashboard-sessions", pattern: SESSIONS_CRON, kind: SESSIONS_TASK },
      ...(backups.on ? [{ name: "backup", pattern: config.backupCron!, kind: BACKUP_TASK }] : []),
    ]);
    const intake = sourceLoops(deps, sources);
    // On PostgreSQL each source polls on one node at a time: the one holding its lease (renewed every round,
    // taken over by another node a minute after its holder stops renewing).
    const sourceLeases = isPg(deps.db)
      ? intake.map((loop) => {
          const lease = leaseGate(deps, `loop:${loop.name}`, deps.nodeId, SOURCE_LEASE_MS);
          loop.onlyWhen(lease.open);
          return lease;
        })
      : [];
    // The Telegram bots of the channels answer buttons and commands: one long poll per bot, on one node.
    const telegram = new TelegramBots(deps);
    telegram.start();
    const loops = [new Loop({ name: "usage-flush", intervalMs: 1000, run: () => flushUsage(deps), log })];
    // Memory back to the system once the process is quiet after a burst (see worker/memory-trim.ts). Not one of
    // the loops /readyz watches: a missed trim leaves the node as ready as before.
    const trim = new MemoryTrim(() => releaseMemory(deps.db));
    const trimLoop = new Loop({ name: "memory-trim", intervalMs: 1000, run: () => trim.tick(), log });
    for (const loop of [...intake, ...loops, trimLoop]) loop.start();
    // What /readyz and the metrics watch: a loop that stops or hangs makes this node unready.
    deps.liveness.watch(worker, applyWorker, deliverer, telegram, ...scheduler.heartbeats, ...intake, ...loops);

    const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
    // What a browser on this machine opens (a wildcard listen address is not one).
    const browse = browserBaseUrl(config.host, server.port ?? config.port);
    log.info("listening", {
      url: base,
      dashboard: `${browse}/dashboard`,
      docs: `${browse}/docs`,
      db: databaseLabel(config),
      version: deps.version,
      // Whether it runs with the engine's heap growth capped (lib/engine-tuning.ts; the systemd unit sets it).
      engineTuned: isEngineTuned(ctx.io.env),
    });
    const banner = [
      "",
      `jobpilot ${deps.version} is listening on ${base}`,
      `  Dashboard: ${browse}/dashboard`,
      `  API docs:  ${browse}/docs`,
      `  Database:  ${databaseLabel(config)}`,
      `  Sources:   ${sources.length ? sources.map((s) => (s.name === SANDBOX_NAME ? `sandbox (simulated marketplace, ${config.sandboxJobsPerMinute} jobs/min)` : s.name)).join(", ") : "none (push ingestion only)"}`,
      `  Scoring:   ${deps.ai.isConfigured ? `model ${config.scoringModel}${config.openaiBaseUrl ? ` at ${config.openaiBaseUrl}` : ""}` : "local scorer (no OPENAI_API_KEY)"}`,
    ];
    if (first) {
      banner.push(
        "",
        `First run: created account "${first.account.name}" (${first.account.id}) with ${first.account.credits} credits.`,
        `  API key (shown once, store it now): ${first.apiKey}`,
        `  Try it:    curl -H "x-api-key: ${first.apiKey}" ${browse}/api/v1/account`,
        `  Owner:     set your e-mail and password once, within ${LINK_LIFETIME_MS.invite / 86_400_000} days: ${(config.publicUrl || browse).replace(/\/+$/, "")}/dashboard/set-password?token=${first.ownerLink.token}`,
        `  More keys: jobpilot key create --account ${first.account.id}`,
      );
    }
    // For the person at the terminal, not the log: stdout carries the JSON logs a shipper collects, and the
    // first-run key must never end up there.
    ctx.io.stderr(banner.join("\n") + "\n\n");

    let resolveDone!: (code: number) => void;
    const done = new Promise<number>((r) => (resolveDone = r));
    const shutdown = createShutdown(
      [
        { name: "stop accepting and finish in-flight requests", run: () => server.stop(false), force: () => server.stop(true) },
        {
          name: "stop job sources",
          run: async () => {
            await Promise.all(intake.map((l) => l.stop()));
            await Promise.all(sourceLeases.map((lease) => lease.release()));
          },
        },
        { name: "stop polling Telegram bots", run: () => telegram.stop() },
        { name: "stop listening for other nodes' work", run: () => listener?.stop() },
        { name: "stop schedules", run: () => scheduler.stop() },
        { name: "finish running tasks", run: () => Promise.all([worker.stop(), applyWorker.stop(), deliverer.stop()]) },
        { name: "stop background loops", run: () => Promise.all([...loops, trimLoop].map((l) => l.stop())) },
        { name: "stop the local AI threads", run: () => deps.localAi.close() },
        { name: "flush and close the database", run: () => closeDeps(deps) },
      ],
      { timeoutMs: config.shutdownTimeoutMs, log },
    );
    return {
      done,
      stop: async (reason) => {
        await shutdown(reason);
        resolveDone(0);
      },
    };
  },
};

/** A cron setting croner cannot read stops the start, naming the variable (as every other bad setting does). */
function checkCronPattern(env: string, pattern: string): void {
  try {
    new Cron(pattern, { paused: true }).stop();
  } catch (err) {
    throw new ConfigError(`Invalid ${env}: ${(err as Error).message} (got ${JSON.stringify(pattern)})`);
  }
}

/**
 * The outbox deliverer (webhooks and channels) with the server's settings. Alerts link to the dashboard at
 * JOBPILOT_PUBLIC_URL, else at `listenUrl` (serve's own address), else nowhere.
 */
export function createDeliverer(deps: import("../deps").Deps, listenUrl: string | null = null): WebhookDeliverer {
  return new WebhookDeliverer({
    db: deps.db,
    clock: deps.clock,
    log: deps.log.child({ component: "webhooks" }),
    resolve: deps.resolve,
    secretKey: deps.secretKey,
    pacer: deps.channelPacer,
    metrics: deps.metrics,
    config: {
      webhookRetryScheduleMs: deps.webhookRetryScheduleMs,
      webhookTimeoutMs: deps.config.webhookTimeoutMs,
      webhookConcurrency: deps.config.webhookConcurrency,
      webhookAccountConcurrency: deps.config.webhookAccountConcurrency,
      webhookDisableAfterMs: deps.config.webhookDisableAfterMs,
      egress: deps.egress,
      telegramApiUrl: deps.config.telegramApiUrl,
      dashboardBaseUrl: deps.config.publicUrl || listenUrl,
      connectPriceUsd: deps.config.connectPriceUsd,
    },
  });
}
