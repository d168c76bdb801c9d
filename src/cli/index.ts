import { sourceConnect, sourceList, sourceStatus } from "./source";
import { VERSION } from "../deps";
import { AppError } from "../errors";
import { ConfigError } from "../config";
import { accountCreate, accountDriver, accountLimits, accountList, creditsGrant } from "./account";
import { helpText, makeContext, parseCommand, UsageError, type CliIO, type Command, type Running } from "./command";
import { keyCreate, keyList, keyRevoke } from "./key";
import { dashboardLink } from "./dashboard";
import { memberCreate, memberInvite, memberReset } from "./member";
import { migrateCommand } from "./migrate";
import { dbCopy } from "./db-copy";
import { backupCommand, restoreCommand } from "./backup";
import { serviceInstall } from "./service";
import { ingestCommand } from "./ingest";
import { serveCommand } from "./serve";
import { doctorCommand } from "./doctor";
import { mcpCommand } from "./mcp";

export const COMMANDS: Command[] = [
  serveCommand,
  migrateCommand,
  dbCopy,
  backupCommand,
  restoreCommand,
  serviceInstall,
  accountCreate,
  accountList,
  accountLimits,
  accountDriver,
  keyCreate,
  keyList,
  keyRevoke,
  creditsGrant,
  ingestCommand,
  sourceList,
  sourceStatus,
  sourceConnect,
  dashboardLink,
  memberCreate,
  memberInvite,
  memberReset,
  doctorCommand,
  mcpCommand,
];

function topHelp(): string {
  const rows = COMMANDS.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`);
  return [
    `jobpilot ${VERSION} — self-hosted job auto-apply, feed and data service`,
    "",
    "Usage: jobpilot <command> [options]",
    "",
    "Commands:",
    ...rows,
    "",
    "Run 'jobpilot <command> --help' for a command's options. Settings come from environment variables (see README); flags override them.",
    "",
  ].join("\n");
}

/** Finds the command named by the first one or two words (`serve`, `key create`, …). */
function findCommand(argv: string[]): { cmd: Command; rest: string[] } | { group: string } | null {
  const two = `${argv[0]} ${argv[1]}`;
  const byTwo = COMMANDS.find((c) => c.name === two);
  if (byTwo) return { cmd: byTwo, rest: argv.slice(2) };
  const byOne = COMMANDS.find((c) => c.name === argv[0]);
  if (byOne) return { cmd: byOne, rest: argv.slice(1) };
  if (COMMANDS.some((c) => c.name.startsWith(`${argv[0]} `))) return { group: argv[0]! };
  return null;
}

/**
 * Runs one command line. Returns the exit code (2 for a bad command line, 1 for
 * a failure), or a Running handle for serve. Never touches the process itself.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number | Running> {
  const first = argv[0];
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    const target = first === "help" && argv.length > 1 ? findCommand(argv.slice(1)) : null;
    io.stdout(target && "cmd" in target ? helpText(target.cmd) : topHelp());
    return 0;
  }
  if (first === "version" || first === "--version" || first === "-v") {
    io.stdout(`jobpilot ${VERSION}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`jobpilot: unknown command '${first}' (run 'jobpilot --help' for the list)\n`);
    return 2;
  }
  if ("group" in found) {
    const sub = argv[1];
    const names = COMMANDS.filter((c) => c.name.startsWith(`${found.group} `)).map((c) => c.name.split(" ")[1]);
    if (sub === undefined || sub === "--help" || sub === "-h") {
      io.stdout(
        `Usage: jobpilot ${found.group} <${names.join("|")}> [options]\n\n` +
          COMMANDS.filter((c) => c.name.startsWith(`${found.group} `))
            .map((c) => `  ${c.name.padEnd(16)} ${c.summary}`)
            .join("\n") +
          "\n",
      );
      return sub === undefined ? 2 : 0;
    }
    io.stderr(`jobpilot: unknown command '${found.group} ${sub}' (expected one of: ${names.join(", ")})\n`);
    return 2;
  }
  const { cmd, rest } = found;
  try {
    const { values, positionals } = parseCommand(cmd, rest);
    if (values.help) {
      io.stdout(helpText(cmd));
      return 0;
    }
    return await cmd.run(makeContext(io, values, positionals));
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.stderr(`jobpilot ${cmd.name}: ${err.message} (see 'jobpilot ${cmd.name} --help')\n`);
      return 2;
    }
    if (err instanceof AppError) {
      io.stderr(`jobpilot ${cmd.name}: ${err.message}\n`);
      return 1;
    }
    io.stderr(`jobpilot ${cmd.name}: ${(err as Error).message}\n`);
    return 1;
  }
}
