#!/usr/bin/env bun
/**
 * The process boundary: argv, environment, standard streams, signals and the
 * exit code are touched here and nowhere else.
 */
import { runCli } from "./cli/index";

const result = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
});

if (typeof result === "number") {
  process.exit(result);
} else {
  let signals = 0;
  const onSignal = (signal: string) => {
    // A second Ctrl-C means "now": skip the graceful drain.
    if (++signals > 1) process.exit(130);
    void result.stop(signal);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.exit(await result.done);
}
