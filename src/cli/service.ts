import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { ENGINE_OPTIONS, ENGINE_TUNED_BUN_VERSIONS } from "../lib/engine-tuning";
import { dirname, join, resolve } from "node:path";
import { VERSION } from "../deps";
import { backupDirOf } from "../modules/maintenance/backup.task";
import type { Config } from "../config";
import { UsageError, type Command, type CommandContext } from "./command";

export type ServiceScope = "user" | "system";

export interface UnitOptions {
  scope: ServiceScope;
  /** The command that starts jobpilot (absolute paths); `serve` is appended. */
  program: string[];
  /** Absolute path of the SQLite file (null on PostgreSQL). */
  dbPath: string | null;
  /** Directories the service writes: the database's and the backups' (none on PostgreSQL). The first is its working directory. */
  writablePaths: string[];
  envFile: string;
  /** The account a system service runs as. */
  runAs?: string;
  shutdownTimeoutMs: number;
  /** The engine options the service runs with (lib/engine-tuning.ts), or none for a Bun not verified with them. */
  engineOptions: Readonly<Record<string, string>>;
}

/** One word of a unit file's command line: quoted when it must be, with `%` (a specifier) and `$` (a variable) escaped. */
function unitWord(word: string): string {
  const escaped = word.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return /[\s"'\\;]/.test(escaped) ? `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : escaped;
}

/** A word of a list of paths, or an Environment= assignment: `%` escaped (no `$` expansion there), quoted when it has spaces. */
function unitPath(path: string): string {
  const escaped = path.replaceAll("%", "%%");
  return /[\s"\\]/.test(escaped) ? `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : escaped;
}

/** Home directories: a system service sees them only read-only when something it needs lives there. */
const HOME_DIRS = ["/home/", "/root/", "/run/user/"];
/** What PrivateTmp=yes replaces with an empty folder of the service's own. */
const TMP_DIRS = ["/tmp/", "/var/tmp/"];

/**
 * The systemd unit for `jobpilot serve`. Hardening that costs jobpilot nothing: no new privileges, the whole file
 * system read-only but the data (and backup) directories, a private /tmp, home directories hidden or read-only.
 * Not MemoryDenyWriteExecute: Bun's JavaScript engine compiles code at run time.
 */
export function systemdUnit(o: UnitOptions): string {
  const paths = [o.program[0]!, ...o.program.slice(1).filter((w) => w.startsWith("/")), ...o.writablePaths];
  const isAnyUnder = (dirs: string[]) => paths.some((p) => dirs.some((d) => `${p}/`.startsWith(d)));
  const inHome = isAnyUnder(HOME_DIRS);
  const inTmp = isAnyUnder(TMP_DIRS);
  const lines = [
    `# Written by \`jobpilot service install --${o.scope}\` (jobpilot ${VERSION}). Settings: ${o.envFile}`,
    "[Unit]",
    "Description=jobpilot: self-hosted job feed, data and auto-apply service",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=exec",
    `ExecStart=${[...o.program, "serve"].map(unitWord).join(" ")}`,
    ...(o.writablePaths.length > 0 ? [`WorkingDirectory=${o.writablePaths[0]!.replaceAll("%", "%%")}`] : []),
    ...(o.dbPath ? [`Environment=${unitPath(`JOBPILOT_DB=${o.dbPath}`)}`] : []),
    // The engine's heap growth capped: a burst's garbage goes sooner (lib/engine-tuning.ts).
    ...Object.entries(o.engineOptions).map(([name, value]) => `Environment=${name}=${value}`),
    // Secrets and other settings; "-": a missing file is not an error.
    `EnvironmentFile=-${o.envFile.replaceAll("%", "%%")}`,
    ...(o.scope === "system" && o.runAs ? [`User=${o.runAs}`] : []),
    "Restart=on-failure",
    "RestartSec=5s",
    // serve finishes in-flight requests and background work on SIGTERM, for up to JOBPILOT_SHUTDOWN_TIMEOUT_MS.
    "KillSignal=SIGTERM",
    `TimeoutStopSec=${Math.ceil(o.shutdownTimeoutMs / 1000) + 10}s`,
    "UMask=0077",
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    `ProtectHome=${o.scope === "user" || inHome ? "read-only" : "yes"}`,
    ...(o.writablePaths.length > 0 ? [`ReadWritePaths=${o.writablePaths.map(unitPath).join(" ")}`] : []),
    // A private /tmp would hide a database (or the program) kept under /tmp from the service itself.
    ...(inTmp ? ["# PrivateTmp is off: the database, backups or program are under /tmp or /var/tmp."] : ["PrivateTmp=yes"]),
    "RestrictSUIDSGID=yes",
    "RestrictRealtime=yes",
    "LockPersonality=yes",
    "SystemCallArchitectures=native",
  ];
  if (o.scope === "system") {
    lines.push(
      "PrivateDevices=yes",
      "ProtectKernelTunables=yes",
      "ProtectKernelModules=yes",
      "ProtectKernelLogs=yes",
      "ProtectControlGroups=yes",
      "ProtectClock=yes",
      "ProtectHostname=yes",
      "RestrictNamespaces=yes",
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
      "CapabilityBoundingSet=",
    );
  }
  lines.push("", "[Install]", `WantedBy=${o.scope === "user" ? "default.target" : "multi-user.target"}`, "");
  return lines.join("\n");
}

/** Where the unit and its settings file go. */
function locations(scope: ServiceScope, env: CommandContext["io"]["env"]): { unit: string; envFile: string } {
  if (scope === "system") return { unit: "/etc/systemd/system/jobpilot.service", envFile: "/etc/jobpilot/jobpilot.env" };
  const home = env.HOME;
  if (!home) throw new UsageError("--user needs HOME set (the unit goes to ~/.config/systemd/user/)");
  const config = env.XDG_CONFIG_HOME || join(home, ".config");
  return { unit: join(config, "systemd/user/jobpilot.service"), envFile: join(config, "jobpilot/jobpilot.env") };
}

/** The settings file written next to a new unit (never over an existing one): mode 0600, as it holds secrets. */
function envFileTemplate(config: Config): string {
  return [
    "# Settings of the jobpilot service, one VARIABLE=value a line (README: Configuration).",
    "# The unit sets JOBPILOT_DB; secrets go here, as this file is readable by its owner only.",
    ...(config.databaseUrl ? [`JOBPILOT_DATABASE_URL=${config.databaseUrl}`] : []),
    "# HOST=127.0.0.1",
    "# PORT=3000",
    "# JOBPILOT_ADMIN_TOKEN=",
    "# OPENAI_API_KEY=",
    "# JOBPILOT_BACKUP_CRON=0 3 * * *",
    "# JOBPILOT_BACKUP_KEEP=7",
    "",
  ].join("\n");
}

function scopeOf(ctx: CommandContext): ServiceScope {
  if (ctx.values.user && ctx.values.system) throw new UsageError("give --user or --system, not both");
  if (ctx.values.user) return "user";
  if (ctx.values.system) return "system";
  throw new UsageError("give --user (a service of your own, no root needed) or --system (for the whole machine, as root)");
}

/** The account a system service runs as: --run-as, else the one who ran sudo. Never root. */
function runAsOf(ctx: CommandContext): string {
  const given = typeof ctx.values["run-as"] === "string" ? ctx.values["run-as"] : ctx.io.env.SUDO_USER || ctx.io.env.USER;
  if (!given || given === "root") {
    throw new UsageError(
      "--system needs --run-as USER, the account the service runs as (not root), e.g. one made for it: useradd --system --home-dir /var/lib/jobpilot --shell /usr/sbin/nologin jobpilot",
    );
  }
  if (!/^[a-z_][a-z0-9_.-]*\$?$/i.test(given)) throw new UsageError(`--run-as: '${given}' is not a user name`);
  return given;
}

function nextSteps(scope: ServiceScope, unit: string, envFile: string, envCreated: boolean, runAs: string | undefined, dataDir: string): string {
  const settings = `Settings: ${envFile}${envCreated ? " (created, readable by its owner only)" : ""}.`;
  if (scope === "user") {
    return [
      `Wrote ${unit}. ${settings}`,
      "Start it now and at every login:",
      "  systemctl --user daemon-reload",
      "  systemctl --user enable --now jobpilot",
      "Keep it running while you are logged out, and start it at boot:",
      `  loginctl enable-linger ${runAs ?? "$USER"}`,
      "Logs (the first start on an empty database prints the first account's API key there, once):",
      "  journalctl --user -u jobpilot -f",
      "",
    ].join("\n");
  }
  return [
    `Wrote ${unit}. ${settings}`,
    ...(dataDir ? [`The service runs as ${runAs}, which must own ${dataDir}:`, `  sudo chown -R ${runAs}: ${dataDir}`] : [`The service runs as ${runAs}.`]),
    "Start it now and at every boot:",
    "  sudo systemctl daemon-reload",
    "  sudo systemctl enable --now jobpilot",
    "Logs (the first start on an empty database prints the first account's API key there, once):",
    "  journalctl -u jobpilot -f",
    "",
  ].join("\n");
}

export const serviceInstall: Command = {
  name: "service install",
  summary: "Write a systemd unit that runs `jobpilot serve`, and print how to enable it.",
  usage: "jobpilot service install --user|--system [--print] [--force] [--run-as USER] [--db PATH]",
  details: [
    "--user writes ~/.config/systemd/user/jobpilot.service (no root needed); --system writes",
    "/etc/systemd/system/jobpilot.service (run it as root, e.g. with sudo). The unit starts this executable with",
    "`serve` on the database configured now (--db or JOBPILOT_DB, as an absolute path), restarts it on failure, and",
    "sandboxes it: NoNewPrivileges, ProtectSystem=strict with only the database and backup directories writable,",
    "PrivateTmp, ProtectHome. Other settings and secrets go in its EnvironmentFile (~/.config/jobpilot/jobpilot.env",
    "or /etc/jobpilot/jobpilot.env), created with mode 0600 if missing and never overwritten. An existing unit is",
    "not overwritten without --force. --print writes nothing and prints the unit instead.",
  ].join("\n"),
  options: {
    user: { type: "boolean", description: "A service of your own user (systemctl --user)" },
    system: { type: "boolean", description: "A system service (needs root to write /etc/systemd/system)" },
    print: { type: "boolean", description: "Print the unit instead of writing anything" },
    force: { type: "boolean", description: "Overwrite an existing unit file" },
    "run-as": { type: "string", value: "USER", description: "--system: the account the service runs as (default: the user who ran sudo)" },
  },
  run(ctx) {
    const scope = scopeOf(ctx);
    const config = ctx.config();
    if (!config.databaseUrl && config.dbPath === ":memory:") throw new UsageError("a service needs a database file: set --db or JOBPILOT_DB to a path");
    const program = ctx.io.program;
    if (!program || program.length === 0) throw new Error("the path of this program is unknown");
    const runAs = scope === "system" ? runAsOf(ctx) : ctx.io.env.USER;
    // On PostgreSQL nothing is written to disk: no writable directory at all.
    const dbPath = config.databaseUrl ? null : resolve(config.dbPath);
    const dataDir = dbPath ? dirname(dbPath) : "";
    const backupDir = resolve(backupDirOf(config));
    const writablePaths = dbPath ? [dataDir, ...(`${backupDir}/`.startsWith(`${dataDir}/`) ? [] : [backupDir])] : [];
    const where = locations(scope, ctx.io.env);
    const unit = systemdUnit({
      scope,
      program,
      dbPath,
      writablePaths,
      envFile: where.envFile,
      runAs,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      engineOptions: ENGINE_TUNED_BUN_VERSIONS.includes(ctx.io.bunVersion ?? "") ? ENGINE_OPTIONS : {},
    });
    if (ctx.values.print) {
      ctx.io.stdout(unit);
      return 0;
    }
    if (scope === "system" && ctx.io.uid !== 0) {
      ctx.io.stderr(
        [
          `jobpilot service install: writing ${where.unit} needs root. Run it with sudo, naming the database:`,
          `  sudo ${program.map(unitWord).join(" ")} service install --system --run-as ${runAs} ${dbPath ? `--db ${unitWord(dbPath)}` : "--database-url URL"}`,
          "or print the unit and install it yourself:",
          `  ${program.map(unitWord).join(" ")} service install --system --print > jobpilot.service`,
          "",
        ].join("\n"),
      );
      return 1;
    }
    if (existsSync(where.unit) && !ctx.values.force) {
      ctx.io.stderr(`jobpilot service install: ${where.unit} exists; --force overwrites it (compare first: --print)\n`);
      return 1;
    }
    mkdirSync(dirname(where.unit), { recursive: true });
    // The directories ReadWritePaths names must exist when the service starts.
    for (const dir of writablePaths) mkdirSync(dir, { recursive: true });
    writeFileSync(where.unit, unit, { mode: 0o644 });
    const envCreated = !existsSync(where.envFile);
    if (envCreated) {
      mkdirSync(dirname(where.envFile), { recursive: true, mode: 0o700 });
      writeFileSync(where.envFile, envFileTemplate(config), { mode: 0o600, flag: "wx" });
    }
    ctx.io.stdout(nextSteps(scope, where.unit, where.envFile, envCreated, runAs, dataDir));
    return 0;
  },
};
