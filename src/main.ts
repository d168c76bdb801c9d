#!/usr/bin/env bun
/**
 * The process boundary: argv, environment, standard streams, signals and the
 * exit code are touched here and nowhere else.
 */
import { dlopen, ptr } from "bun:ffi";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Running } from "./cli/command";
import { engineRestart } from "./lib/engine-tuning";

/**
 * Starts this program again in this process with `add` in its environment: execve of /proc/self/exe (the same
 * executable even if an upgrade replaced the file meanwhile) with the command line and environment this process
 * was given, byte for byte. The PID, the standard streams and the parent stay; nothing is left behind. Returns
 * only if it could not (no glibc to call, /proc unreadable, execve refused): this start then goes on as it is.
 */
function restartInPlace(add: Record<string, string>): void {
  try {
    const nul = Buffer.from([0]);
    // NUL-separated lists, as execve takes them: argv as given, the environment as given plus `add`.
    const argvBytes = readFileSync("/proc/self/cmdline");
    const envBytes = Buffer.concat([
      readFileSync("/proc/self/environ"),
      ...Object.entries(add).flatMap(([name, value]) => [Buffer.from(`${name}=${value}`), nul]),
    ]);
    const pointers = (bytes: Buffer): BigUint64Array => {
      const starts: number[] = [];
      for (let at = 0; at < bytes.length; at = bytes.indexOf(0, at) + 1 || bytes.length) starts.push(at);
      const list = new BigUint64Array(starts.length + 1); // ends with a null pointer
      starts.forEach((at, i) => {
        list[i] = BigInt(ptr(bytes, at));
      });
      return list;
    };
    const path = Buffer.from("/proc/self/exe\0");
    const libc = dlopen("libc.so.6", { execve: { args: ["ptr", "ptr", "ptr"], returns: "i32" } });
    libc.symbols.execve(path, pointers(argvBytes), pointers(envBytes));
    libc.close();
  } catch {
    // Not glibc (e.g. musl) or no /proc: the engine's defaults, as on another OS.
  }
}

// Before anything else is loaded: a restart now costs the runtime's start only (~20–25 ms), not the program's.
const restart = engineRestart({ args: process.argv.slice(2), env: process.env, bunVersion: Bun.version, platform: process.platform });
if (restart) restartInPlace(restart);
const [{ runCli }, { SERVER_HEAD_LIMIT_BYTES }] = await Promise.all([import("./cli/index"), import("./http/request-context")]);

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
  uid: process.getuid?.(),
});

if (typeof result === "number") process.exit(result);
running = result;
process.exit(await result.done);
