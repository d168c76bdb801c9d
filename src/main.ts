#!/usr/bin/env bun
/**
 * The process boundary: argv, environment, standard streams, signals and the
 * exit code are touched here and nowhere else.
 */
import { resolve } from "node:path";
import { runCli } from "./cli/index";
import type { Running } from "./cli/command";
import { SERVER_HEAD_LIMIT_BYTES } from "./http/request-context";

/** How to start this program again: the compiled executable (its entry script lives inside it, under /$bunfs/), or bun with the script, with the flag `bun run start` passes. */
const program = (process.argv[1] ?? "").startsWith("/$bunfs/")
  ? [process.execPath]
  : [process.execPath, `--max-http-header-size=${SERVER_HEAD_LIMIT_BYTES}`, resolve(process.argv[1] ?? "src/main.ts")];

// Installed before any command runs, so a signal that arrives while `serve` is
// starting (after its banner, before it returns) is not lost to the default action.
let running: Running | null = null;
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  // No server yet, or a second Ctrl-C: leave now, as the default action would.
  if (!running || ++signals > 1) process.exit(128 + (signal === "SIGINT" ? 2 : 15));
  void running.stop(signal);
};
process.on("SIGTERM", () => onSignal("SIGTERM"));
process.on("SIGINT", () => onSignal("SIGINT"));

const result = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: () => Bun.stdin.stream(),
  stderrIsTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  program,
  bunVersion: Bun.version,
  uid: process.getuid?.(),
});

if (typeof result === "number") process.exit(result);
running = result;
process.exit(await result.done);
