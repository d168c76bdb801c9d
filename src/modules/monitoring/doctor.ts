/**
 * `jobpilot doctor`: what a self-hoster checks when something is off, each answered in one line with what
 * to do about it. The checks run in order against the configuration and the database as they are (the
 * database is opened but never migrated or written), and reach out only to servers the configuration
 * names (the model server, JOBPILOT_TIME_CHECK_URL).
 *
 * Adding a check: write a DoctorCheck and
 * put it in DOCTOR_CHECKS; a check that does not apply says SKIP.
 */
import { existsSync, statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Config } from "../../config";
import { SETTINGS } from "../../config";
import { isPg, openDatabase, type Db } from "../../db/client";
import { closeAnyDatabase } from "../../db/open";
import { databaseStats, migrationStatus, walBytes } from "../../db/status";
import { rawMany } from "../../db/query";
import { databaseLabel } from "../../deps";
import type { Clock } from "../../lib/clock";
import { classifyAddress } from "../../lib/ssrf";
import { CONNECTED_GRACE_MS } from "../../marketplace/companion/driver";
import { findCompanion } from "../../marketplace/companion/repo";
import { COMPANION_KEY_LABEL } from "../../marketplace/driver";
import { liveKeysLabelled } from "../accounts/repo";
import { failingChannels } from "../channels/repo";
import { accountHeads } from "../feeds/outbox-fair";
import { feedsWithWebhookProblems } from "../feeds/repo";
import { configuredSourceNames, configuredSources } from "../intake/registry";
import { listSourceStates } from "../intake/repo";

export type DoctorStatus = "OK" | "WARN" | "FAIL" | "SKIP";

export interface Finding {
  status: DoctorStatus;
  check: string;
  detail: string;
  /** What to do about a WARN or FAIL. */
  fix?: string;
}

export interface DoctorContext {
  config: Config;
  /** The configured database, opened as it is; null when it could not be (the database check says why). */
  db: Db | null;
  clock: Clock;
  fetch: typeof fetch;
  /** Each outside request's limit. */
  timeoutMs: number;
}

export interface DoctorCheck {
  name: string;
  run(ctx: DoctorContext): Promise<Finding[]> | Finding[];
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Free space next to the database under these is a warning, under the FAIL ones a failure: SQLite needs room for its WAL and checkpoints. */
export const DISK_WARN = { bytes: GiB, fraction: 0.1 };
export const DISK_FAIL = { bytes: 100 * MiB, fraction: 0.01 };
/** A WAL this big means checkpoints cannot finish (a reader that never lets go). */
export const WAL_WARN_BYTES = 512 * MiB;
/** Clock skew: Standard Webhooks receivers refuse signatures more than 5 minutes off. */
export const SKEW_WARN_MS = 30_000;
export const SKEW_FAIL_MS = 5 * 60_000;
/** A source whose next poll is this late is not being polled (serve stopped, or its loop is stuck). */
export const SOURCE_OVERDUE_MS = 10 * 60_000;

const ok = (check: string, detail: string): Finding => ({ status: "OK", check, detail });
const skip = (check: string, detail: string): Finding => ({ status: "SKIP", check, detail });
const warn = (check: string, detail: string, fix: string): Finding => ({ status: "WARN", check, detail, fix });
const fail = (check: string, detail: string, fix: string): Finding => ({ status: "FAIL", check, detail, fix });

function size(bytes: number): string {
  return bytes >= GiB ? `${(bytes / GiB).toFixed(1)} GiB` : bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return s < 172_800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} days`;
}

const isLoopbackUrl = (url: string) => {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || classifyAddress(host).range === "loopback";
};

/** Secrets and endpoints configured in a way that leaks or widens access. */
const configuration: DoctorCheck = {
  name: "configuration",
  run({ config }) {
    const found: Finding[] = [];
    if (config.webhookAllowPrivate)
      found.push(
        warn(
          "configuration",
          `${SETTINGS.webhookAllowPrivate.env}=true lets feed webhooks reach any private or loopback address (this machine's services included)`,
          `list only the receivers you mean in ${SETTINGS.webhookAllowlist.env} and unset ${SETTINGS.webhookAllowPrivate.env}`,
        ),
      );
    if (config.openaiApiKey && config.openaiBaseUrl?.startsWith("http://") && !isLoopbackUrl(config.openaiBaseUrl))
      found.push(
        warn(
          "configuration",
          `${SETTINGS.openaiBaseUrl.env} is plain http to another machine: the API key and every prompt cross the network unencrypted`,
          "use https (or a tunnel) to reach the model server",
        ),
      );
    if (config.bridgeUrl?.startsWith("http://") && !isLoopbackUrl(config.bridgeUrl))
      found.push(
        warn(
          "configuration",
          `${SETTINGS.bridgeUrl.env} is plain http to another machine: proposals cross the network unencrypted`,
          "use https for the bridge submitter",
        ),
      );
    // A test's fake in place of a platform: alerts, tokens and bot commands would go to whatever it points at.
    for (const [key, setting] of Object.entries(SETTINGS) as [keyof typeof SETTINGS, (typeof SETTINGS)[keyof typeof SETTINGS]][]) {
      if (!("isTestOnly" in setting) || config[key] === setting.default) continue;
      found.push(warn("configuration", `${setting.env} is a test-only setting and is set: ${setting.doc}`, `unset ${setting.env} outside tests`));
    }
    return found.length > 0 ? found : [ok("configuration", "settings parse; nothing insecure found")];
  },
};

/** The database answers, is intact, and has exactly this version's migrations. */
const database: DoctorCheck = {
  name: "database",
  async run(ctx) {
    const { config, db } = ctx;
    if (!db) return []; // openForDoctor already said why
    const found: Finding[] = [];
    const where = databaseLabel(config);
    try {
      if (isPg(db)) {
        await rawMany(db, "doctor-ping", "SELECT 1 AS ok", []);
        const stats = await databaseStats(db, config.dbPath);
        found.push(ok("database", `PostgreSQL ${where} answers (${size(stats.sizeBytes)})`));
      } else {
        // Reads every page: on a large file this takes a while, which is the price of knowing.
        const rows = await rawMany<{ integrity_check: string }>(db, "doctor-integrity", "PRAGMA integrity_check", []);
        const problems = rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
        const wal = walBytes(config.dbPath) ?? 0;
        if (problems.length > 0)
          found.push(
            fail(
              "database",
              `SQLite ${where}: integrity_check found ${problems.length} problem(s): ${problems.slice(0, 3).join("; ")}`,
              "stop jobpilot and restore the latest backup (or salvage with `sqlite3 FILE .recover`)",
            ),
          );
        else if (wal > WAL_WARN_BYTES)
          found.push(
            warn(
              "database",
              `SQLite ${where}: integrity ok, but the write-ahead log is ${size(wal)}`,
              "a long-lived reader (a backup tool, an open sqlite3 shell) keeps checkpoints from finishing: close it",
            ),
          );
        else found.push(ok("database", `SQLite ${where}: integrity ok, WAL ${size(wal)}`));
      }
    } catch (err) {
      ctx.db = null; // the checks after this one say "not available" instead of failing one by one
      return [
        fail("database", `${where} does not answer: ${(err as Error).message}`, "check that the database server runs and the URL, user and password are right"),
      ];
    }
    const m = await migrationStatus(db);
    if (m.unknown.length > 0)
      found.push(
        fail(
          "migrations",
          `the database has ${m.unknown.length} migration(s) this version does not know (${m.unknown.join(", ")}): a newer jobpilot migrated it`,
          "run the newer jobpilot binary (downgrading over a migrated database is not supported)",
        ),
      );
    else if (m.pending.length > 0)
      found.push(
        warn("migrations", `${m.applied} of ${m.expected} applied; pending: ${m.pending.join(", ")}`, "run `jobpilot migrate` (`serve` applies them at start)"),
      );
    else found.push(ok("migrations", `all ${m.expected} of this version applied`));
    return found;
  },
};

/** Room next to the SQLite file for its growth, WAL and checkpoints. */
const disk: DoctorCheck = {
  name: "disk",
  run({ config }) {
    if (config.databaseUrl) return [skip("disk", "the data lives on the PostgreSQL server: watch its disk there")];
    if (config.dbPath === ":memory:") return [skip("disk", "in-memory database")];
    let dir = dirname(resolve(config.dbPath));
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    const fraction = fs.blocks > 0 ? fs.bavail / fs.blocks : 1;
    const detail = `${size(free)} free (${Math.round(fraction * 100)}%) on the file system of ${dir}`;
    const fix = "free space or move the database (JOBPILOT_DB) to a larger disk; SQLite needs room for its WAL and checkpoints";
    if (free < DISK_FAIL.bytes || fraction < DISK_FAIL.fraction) return [fail("disk", detail, fix)];
    if (free < DISK_WARN.bytes || fraction < DISK_WARN.fraction) return [warn("disk", detail, fix)];
    return [ok("disk", detail)];
  },
};

/** The model server answers with the key and serves the configured models. */
const modelServer: DoctorCheck = {
  name: "model server",
  async run({ config, fetch, timeoutMs }) {
    if (!config.openaiApiKey) return [skip("model server", "none configured (OPENAI_API_KEY unset): the local scorer and writer are used")];
    const base = (config.openaiBaseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    let res: Response;
    try {
      res = await fetch(`${base}/models`, { headers: { authorization: `Bearer ${config.openaiApiKey}` }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const why = (err as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err as Error).message;
      return [fail("model server", `cannot reach ${base}: ${why}`, `check ${SETTINGS.openaiBaseUrl.env} and that the model server is running`)];
    }
    const body = await res.text();
    if (res.status === 401 || res.status === 403)
      return [fail("model server", `${base} refused the API key (HTTP ${res.status})`, `check ${SETTINGS.openaiApiKey.env}`)];
    if (!res.ok)
      return [
        fail(
          "model server",
          `${base}/models answered HTTP ${res.status}`,
          `check ${SETTINGS.openaiBaseUrl.env} (it should end in /v1 for most servers) and the server's log`,
        ),
      ];
    let served: string[];
    try {
      served = ((JSON.parse(body) as { data?: { id?: unknown }[] }).data ?? []).map((m) => String(m.id));
    } catch {
      return [fail("model server", `${base}/models did not answer JSON`, `check ${SETTINGS.openaiBaseUrl.env}: it should point at an OpenAI-compatible API`)];
    }
    const wanted = [
      [SETTINGS.scoringModel.env, config.scoringModel],
      [SETTINGS.proposalModel.env, config.proposalModel],
    ] as const;
    const missing = wanted.filter(([, name]) => !served.includes(name));
    if (missing.length === 0) return [ok("model server", `${base} answers and serves ${[...new Set(wanted.map(([, n]) => n))].join(" and ")}`)];
    const list = served.length > 12 ? `${served.slice(0, 12).join(", ")}, …` : served.join(", ") || "none";
    return missing.map(([env, name]) =>
      fail(
        "model server",
        `${base} does not serve the model "${name}" (${env}); it serves: ${list}`,
        `set ${env} to a served model, or load "${name}" into the model server`,
      ),
    );
  },
};

/** Each enabled source has polled, recently, and without failing. */
const sources: DoctorCheck = {
  name: "sources",
  async run({ config, db, clock }) {
    const names = configuredSourceNames(config);
    if (names.length === 0) return [skip("sources", "none enabled (JOBPILOT_SOURCES=none): push ingestion and capture only")];
    try {
      configuredSources({ config, db: db as Db, searchTerms: async () => [] });
    } catch (err) {
      return [fail("sources", (err as Error).message, "fix the source settings (see `jobpilot source list`)")];
    }
    if (!db) return [skip("sources", "the database is not available")];
    const states = new Map((await listSourceStates(db)).map((s) => [s.name, s]));
    const now = clock.now();
    return names.map((name) => {
      const check = `source ${name}`;
      const s = states.get(name);
      if (!s || s.lastPollAtTs === null) return warn(check, "has never polled", "start `jobpilot serve` (it polls the enabled sources)");
      if (s.consecutiveFailures > 0)
        return warn(
          check,
          `${s.consecutiveFailures} failed poll(s) in a row, the last ${ago(now - (s.lastErrorAtTs ?? s.lastPollAtTs))} ago: ${s.lastError ?? "unknown error"}`,
          name === "marketplace-api"
            ? "see `jobpilot source status`; reconnect with `jobpilot source connect` if the grant expired"
            : "see `jobpilot source status`; a board that keeps failing may have changed or be down",
        );
      if (s.nextRunAtTs !== null && now - s.nextRunAtTs > SOURCE_OVERDUE_MS)
        return warn(
          check,
          `its next poll was due ${ago(now - s.nextRunAtTs)} ago (last poll ${ago(now - s.lastPollAtTs)} ago)`,
          "check that `jobpilot serve` is running (GET /readyz lists its loops)",
        );
      return ok(check, `last poll ${ago(now - s.lastPollAtTs)} ago, ${s.lastNew} new of ${s.lastSeen}`);
    });
  },
};

/** Feed webhook endpoints that keep failing or were disabled for it. */
const webhooks: DoctorCheck = {
  name: "webhooks",
  async run({ db, clock }) {
    if (!db) return [skip("webhooks", "the database is not available")];
    const problems = await feedsWithWebhookProblems(db, null);
    if (problems.length === 0) return [ok("webhooks", "no feed webhook endpoint is failing")];
    const now = clock.now();
    return problems.map((p) =>
      p.disabledAtTs !== null
        ? warn(
            "webhooks",
            `feed "${p.title}" (${p.feedId}, account ${p.accountId}): endpoint disabled ${ago(now - p.disabledAtTs)} ago${p.disabledReason ? `: ${p.disabledReason}` : ""}`,
            "fix the receiver, then save the feed's webhookUrl again (PUT /api/v1/feeds/{id}) to re-enable it",
          )
        : warn(
            "webhooks",
            `feed "${p.title}" (${p.feedId}, account ${p.accountId}): every delivery failing for ${ago(now - (p.failingSinceTs ?? now))}`,
            "see GET /api/v1/feeds/{id}/deliveries for the receiver's answers; it is disabled after JOBPILOT_WEBHOOK_DISABLE_AFTER",
          ),
    );
  },
};

/** Notification channels whose last attempt failed (a later delivery clears it). */
const channels: DoctorCheck = {
  name: "channels",
  async run({ db, clock }) {
    if (!db) return [skip("channels", "the database is not available")];
    const failing = await failingChannels(db);
    if (failing.length === 0) return [ok("channels", "no notification channel is failing")];
    const now = clock.now();
    return failing.map((c) =>
      warn(
        "channels",
        `${c.type} channel "${c.name}" (${c.id}, account ${c.accountId}): last attempt failed: ${c.lastError}${
          c.lastDeliveryAtTs === null ? " (never delivered)" : ` (last delivery ${ago(now - c.lastDeliveryAtTs)} ago)`
        }`,
        "press Send test on the dashboard's Channels page (or POST /api/v1/channels/{id}/test) and fix what it says",
      ),
    );
  },
};

/** An account whose oldest due alert has waited this long is falling behind (a healthy outbox sends in seconds). */
export const OUTBOX_AGE_WARN_MS = 5 * 60_000;

/** Accounts whose oldest due event (webhook or channel alert) has waited past OUTBOX_AGE_WARN_MS: one line each. */
const outbox: DoctorCheck = {
  name: "outbox",
  async run({ db, clock }) {
    if (!db) return [skip("outbox", "the database is not available")];
    const now = clock.now();
    const heads = await accountHeads(db);
    const late = heads.filter((h) => now - h.oldestDueTs > OUTBOX_AGE_WARN_MS).sort((a, b) => a.oldestDueTs - b.oldestDueTs);
    if (late.length === 0) return [ok("outbox", `${heads.length} account(s) with alerts to send, none waiting over ${ago(OUTBOX_AGE_WARN_MS)}`)];
    return late.map((h) =>
      warn(
        "outbox",
        `account ${h.accountId}: its oldest due alert has waited ${ago(now - h.oldestDueTs)}`,
        "is `jobpilot serve` running? See /metrics jobpilot_outbox_oldest_due_age_seconds and the account's deliveries for slow or failing receivers",
      ),
    );
  },
};

/**
 * The browser companions paired with this server (an unrevoked key labelled "browser companion"): connected now,
 * last seen when, or paired but never connected since (it cannot reach this server, or its browser is closed).
 */
const companion: DoctorCheck = {
  name: "companion",
  async run({ db, clock }) {
    if (!db) return [skip("companion", "the database is not available")];
    const paired = await liveKeysLabelled(db, COMPANION_KEY_LABEL);
    if (paired.size === 0) return [skip("companion", "not paired (pair one on the dashboard's Browser companion page)")];
    const now = clock.now();
    const findings: Finding[] = [];
    for (const [accountId, pairedAt] of paired) {
      const lastSeen = (await findCompanion(db, accountId))?.lastSeenTs ?? null;
      const seen = lastSeen === null ? null : Number(lastSeen);
      if (seen === null || seen < pairedAt) {
        findings.push(
          warn(
            "companion",
            `account ${accountId}: paired ${ago(now - pairedAt)} ago, has not connected since`,
            "open the browser where it is installed; its options page says why it cannot reach this server (pair it again with the address it can reach)",
          ),
        );
      } else if (now - seen <= CONNECTED_GRACE_MS)
        findings.push(ok("companion", `account ${accountId}: paired and connected (last seen ${ago(now - seen)} ago)`));
      else
        findings.push(ok("companion", `account ${accountId}: paired, not connected now (last seen ${ago(now - seen)} ago: its browser is closed or asleep)`));
    }
    return findings;
  },
};

/** This machine's clock against a server's Date header (signatures, token expiry and schedules depend on it). */
const clock: DoctorCheck = {
  name: "clock",
  async run({ config, fetch, clock, timeoutMs }) {
    const url =
      config.timeCheckUrl ?? (config.openaiApiKey ? `${(config.openaiBaseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/models` : undefined);
    if (!url) return [skip("clock", `nothing to compare with (set ${SETTINGS.timeCheckUrl.env} to any https server you trust)`)];
    const host = new URL(url).host;
    const sentAt = clock.now();
    const started = performance.now();
    let date: string | null;
    try {
      const res = await fetch(url, { method: "GET", signal: AbortSignal.timeout(timeoutMs) });
      date = res.headers.get("date");
      await res.body?.cancel().catch(() => {});
    } catch (err) {
      return [skip("clock", `${host} did not answer (${(err as Error).message}); nothing to compare with`)];
    }
    const theirs = date ? Date.parse(date) : Number.NaN;
    if (!Number.isFinite(theirs)) return [skip("clock", `${host} sent no Date header to compare with`)];
    // Their clock read somewhere during the round trip; a Date header has whole seconds, so ±1 s is noise.
    const ours = sentAt + (performance.now() - started) / 2;
    const skewMs = ours - theirs;
    const detail = `${Math.abs(Math.round(skewMs / 1000))} s ${skewMs >= 0 ? "ahead of" : "behind"} ${host}`;
    const fix = "turn on time synchronisation (e.g. `timedatectl set-ntp true`)";
    if (Math.abs(skewMs) > SKEW_FAIL_MS) return [fail("clock", `${detail}: webhook signatures will be refused`, fix)];
    if (Math.abs(skewMs) > SKEW_WARN_MS) return [warn("clock", detail, fix)];
    return [ok("clock", detail)];
  },
};

/** In the order they print. */
export const DOCTOR_CHECKS: DoctorCheck[] = [configuration, database, disk, modelServer, sources, webhooks, channels, outbox, companion, clock];

/** The configured database as it is, never created or migrated: a missing SQLite file is a finding, not a new file. */
export async function openForDoctor(config: Config): Promise<{ db: Db | null; finding?: Finding }> {
  if (config.databaseUrl) return { db: (await import("../../db/client-pg")).openPgAsDb(config.databaseUrl, { max: 2 }) };
  if (config.dbPath !== ":memory:" && !existsSync(config.dbPath))
    return {
      db: null,
      finding: warn(
        "database",
        `${config.dbPath} does not exist yet`,
        "start `jobpilot serve` or run `jobpilot migrate` to create it (or point JOBPILOT_DB at your database)",
      ),
    };
  try {
    return { db: openDatabase(config.dbPath, { synchronous: config.sqliteSynchronous }) };
  } catch (err) {
    return { db: null, finding: fail("database", `cannot open ${config.dbPath}: ${(err as Error).message}`, "check the path and its permissions") };
  }
}

/** Runs every check in order; a check that throws is a FAIL of its own, never the end of the report. */
export async function runDoctor(config: Config, opts: { clock: Clock; fetch?: typeof fetch; timeoutMs?: number }): Promise<Finding[]> {
  const opened = await openForDoctor(config);
  const ctx: DoctorContext = { config, db: opened.db, clock: opts.clock, fetch: opts.fetch ?? fetch, timeoutMs: opts.timeoutMs ?? 5000 };
  const findings: Finding[] = [];
  try {
    for (const check of DOCTOR_CHECKS) {
      if (check === database && opened.finding) findings.push(opened.finding);
      try {
        findings.push(...(await check.run(ctx)));
      } catch (err) {
        findings.push(fail(check.name, `the check itself failed: ${(err as Error).message}`, "run with --log-level debug and report it"));
      }
    }
  } finally {
    if (opened.db) await closeAnyDatabase(opened.db).catch(() => {});
  }
  return findings;
}
