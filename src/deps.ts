import type { AutomationUsage } from "./modules/automation/usage";
import type { FeedRouting } from "./modules/automation/feed-routing";
import { feedRouting } from "./modules/members/routing";
import { automationUsage } from "./modules/applications/automation-usage";
import { parseDurations, SETTINGS, type Config } from "./config";
import { allowlistEntryError, type EgressPolicy, type Resolver } from "./lib/ssrf";
import { ConfigError } from "./config";
import { isPg, settled, type Db } from "./db/client";
import type { MigrateResult } from "./db/migrate";
import { closeAnyDatabase, openMigrated } from "./db/open";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/log";
import { RateLimiter } from "./http/rate-limiter";
import { KeyUsage } from "./modules/accounts/key-usage";
import { dayCountStore, findAccount } from "./modules/accounts/repo";
import { authenticate, isKeyActive } from "./modules/accounts/service";
import { normalizeJob } from "./modules/jobs/normalize";
import type { SandboxPorts } from "./marketplace/sandbox/driver";
import { AiClient } from "./ai/client";
import { createLocalAi, defaultLocalAiThreads, type LocalAi } from "./ai/local-ai";
import { FeedIndex } from "./modules/feeds/matcher";
import type { ChannelDirectory } from "./modules/feeds/service";
import { ownedChannelIds } from "./modules/channels/repo";
import { experimentArmOutcomes } from "./modules/applications/experiment-outcomes";
import type { ExperimentOutcomes } from "./modules/experiments/outcomes";
import { Pacer } from "./modules/channels/pace";
import { Signal } from "./lib/signal";
import { nodeWake } from "./worker/cluster";
import type { MarketplaceDriver } from "./marketplace/driver";
import { createSandboxDriver } from "./marketplace/sandbox/driver";
import { createBridgeDriver } from "./marketplace/bridge/driver";
import { createCompanionDriver } from "./marketplace/companion/driver";
import { Metrics } from "./metrics";
import { Liveness } from "./worker/liveness";
import { StorageHealth } from "./worker/storage-health";
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** Everything the app and the background loops use, built once in main.ts (and in tests/helpers). */
export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  version: string;
  rateLimiter: RateLimiter;
  keyUsage: KeyUsage;
  /** Every feed, compiled and indexed for matching; kept in step by the feeds service. */
  feedIndex: FeedIndex;
  ai: AiClient;
  /** The local scorer and writer, on their own threads (JOBPILOT_LOCAL_AI_THREADS; 0 = on this one). */
  localAi: LocalAi;
  /** Writers call wake() after committing queued work; the task worker subscribes to `work`. */
  work: Signal;
  /** On PostgreSQL wake() also tells the other nodes (NOTIFY, coalesced); serve LISTENs (worker/cluster.ts). */
  wake: () => void;
  /** This process among the nodes sharing one PostgreSQL database (it names the schedule ticks and leases it holds). */
  nodeId: string;
  /** Resolves once the wake-ups sent to other nodes are out (closeDeps waits for it before closing the pool). */
  wakeSent: () => Promise<void>;
  /** Where webhooks may go (SSRF policy), built from JOBPILOT_WEBHOOK_ALLOW_PRIVATE and _ALLOWLIST. */
  egress: EgressPolicy;
  webhookRetryScheduleMs: number[];
  /** DNS for outgoing webhooks; tests replace it. */
  resolve?: Resolver;
  /**
   * The key that seals stored secrets (channel settings): JOBPILOT_SECRET_KEY, or the key file serve
   * generates beside a SQLite database (cli/secret-key.ts); null on PostgreSQL without the setting.
   */
  secretKey: string | null;
  /** Which channels an account owns, for the feeds module (which sits upstream of channels). */
  channelDirectory: ChannelDirectory;
  /** The outcome ledger as experiments read it (applications answer; experiments sit upstream of them). */
  experimentOutcomes: ExperimentOutcomes;
  /** The applications the governor counts (applications answer; automation sits upstream of them). */
  automationUsage: AutomationUsage;
  /** The members a feed is assigned to (members answer; automation sits upstream of them). */
  feedRouting: FeedRouting;
  /** Recent sends per platform limit, shared by the deliverer and the channel test route (one per process). */
  channelPacer: Pacer;
  /** This process's Prometheus metrics (one registry per Deps, so tests never share one). */
  metrics: Metrics;
  /** The background loops `serve` started, whose heartbeats /readyz reads. */
  liveness: Liveness;
  /** Whether the database takes writes (a full disk), for /readyz. */
  storage: StorageHealth;
  /** The features as the sandbox marketplace sees them (it imports none). */
  sandboxPorts: SandboxPorts;
  /** The marketplace drivers by name; each account applies through one (accounts.marketplace_driver or the default). */
  drivers: Record<string, MarketplaceDriver> & {
    sandbox: ReturnType<typeof createSandboxDriver>;
    bridge: ReturnType<typeof createBridgeDriver>;
    companion: ReturnType<typeof createCompanionDriver>;
  };
}

/** The accounts and jobs features as the sandbox marketplace (an adapter) sees them. */
function sandboxPorts(db: Db): SandboxPorts {
  return {
    accounts: {
      kindOf: async (accountId) => (await findAccount(db, accountId))?.kind ?? null,
      authenticate: (presented) => authenticate({ db }, presented),
      isKeyActive: (accountId, keyId) => isKeyActive({ db }, accountId, keyId),
    },
    normalizeJob,
  };
}

/** Opens the database, applies pending migrations and builds the shared state. */
export async function createDeps(
  config: Config,
  base: { clock: Clock; log: Logger; secretKey?: string | null },
): Promise<{ deps: Deps; migrations: MigrateResult }> {
  const allowlist = config.webhookAllowlist
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of allowlist) {
    const problem = allowlistEntryError(entry);
    if (problem) throw new ConfigError(`Invalid JOBPILOT_WEBHOOK_ALLOWLIST: ${problem}`);
  }
  const { db, migrations } = await openMigrated(config, base.clock);
  // Loaded on first use (syncFeedIndex, before ingest matches), not here: start-up answers sooner.
  const feedIndex = new FeedIndex({ loaded: false });
  const work = new Signal();
  const nodeId = crypto.randomUUID();
  const { wake, sent } = nodeWake(db, work, nodeId, base.log);
  const deps: Deps = {
    config,
    db,
    clock: base.clock,
    log: base.log,
    version: VERSION,
    rateLimiter: new RateLimiter(dayCountStore(db), base.clock),
    keyUsage: new KeyUsage(db),
    feedIndex,
    ai: new AiClient(
      {
        apiKey: config.openaiApiKey,
        baseUrl: config.openaiBaseUrl,
        timeoutMs: config.aiTimeoutMs,
        maxRetries: config.aiMaxRetries,
        concurrency: config.aiConcurrency,
        sendReasoningEffort: config.aiReasoningEffort,
      },
      base.log.child({ component: "ai" }),
      base.clock,
    ),
    localAi: createLocalAi({ threads: config.localAiThreads ?? defaultLocalAiThreads(), log: base.log.child({ component: "local-ai" }) }),
    work,
    wake,
    nodeId,
    wakeSent: sent,
    drivers: undefined as unknown as Deps["drivers"],
    egress: {
      allowPrivate: config.webhookAllowPrivate,
      allowlist,
      privateHint: `to allow private addresses (e.g. a receiver on your LAN) set ${SETTINGS.webhookAllowPrivate.env}=true, or list the host or its CIDR in ${SETTINGS.webhookAllowlist.env}`,
    },
    webhookRetryScheduleMs: parseDurations(config.webhookRetrySchedule),
    secretKey: base.secretKey !== undefined ? base.secretKey : (config.secretKey ?? null),
    channelDirectory: { ownedBy: ownedChannelIds },
    experimentOutcomes: { perArm: experimentArmOutcomes },
    automationUsage,
    feedRouting,
    channelPacer: new Pacer(),
    metrics: new Metrics({ enabled: config.metricsEnabled, version: VERSION, backend: isPg(db) ? "pg" : "sqlite" }),
    liveness: new Liveness(),
    storage: new StorageHealth(),
    sandboxPorts: sandboxPorts(db),
  };
  const driverDeps = { db, clock: base.clock, log: base.log.child({ component: "marketplace" }), config, sandboxPorts: deps.sandboxPorts };
  deps.drivers = { sandbox: createSandboxDriver(driverDeps), bridge: createBridgeDriver(driverDeps), companion: createCompanionDriver(driverDeps) };
  return { deps, migrations };
}

/** Where the data lives, for logs and banners (a PostgreSQL URL without its password). */
export function databaseLabel(config: Config): string {
  if (!config.databaseUrl) return config.dbPath;
  try {
    const url = new URL(config.databaseUrl);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://…";
  }
}

/** Writes what is held in memory (usage, day counters), stops the local AI threads and closes the database. */
export async function closeDeps(deps: Deps): Promise<void> {
  deps.localAi.close();
  await flushUsage(deps);
  await deps.wakeSent();
  await settled(deps.db);
  await closeAnyDatabase(deps.db);
}

export async function flushUsage(deps: Deps): Promise<void> {
  await deps.keyUsage.flush();
  await deps.rateLimiter.flush();
}
