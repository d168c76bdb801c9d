/**
 * Compiles the whole service into one standalone executable (default ./jobpilot).
 * Usage: bun run build [--outfile PATH] [--target bun-linux-x64|bun-linux-arm64|...]
 */
import { parseArgs } from "node:util";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SERVER_HEAD_LIMIT_BYTES } from "../src/http/request-context";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { outfile: { type: "string" }, target: { type: "string" }, help: { type: "boolean", short: "h" } },
  strict: true,
});
if (values.help) {
  console.log("Usage: bun run build [--outfile PATH] [--target bun-linux-x64|bun-linux-arm64|bun-darwin-arm64|...]");
  process.exit(0);
}

const root = join(import.meta.dir, "..");
const outfile = values.outfile ?? join(root, "jobpilot");
const started = performance.now();
console.log(`building ${outfile}${values.target ? ` for ${values.target}` : ""} …`);
// The local AI thread's script is a second entrypoint: a Worker can only start a module that is inside the executable.
// With both under src/, the worker sits at ai/local-ai.worker.js under the executable's root (see src/ai/local-ai.ts).
// The background checkpoint thread (src/db/checkpoint.ts) is found the same way, at db/checkpoint.worker.js, and the backup thread (src/db/backup.ts) at db/backup.worker.js.
// The browser companion's zip is built first and embedded as a file (served at /extension.zip; src/modules/companion/extension-zip.ts).
const extension = Bun.spawnSync([process.execPath, "run", join(root, "scripts/build-extension.ts")], { cwd: root, stdout: "inherit", stderr: "inherit" });
if (extension.exitCode !== 0) {
  console.error("building the browser companion failed");
  process.exit(1);
}
// The first entrypoint is the executable's main module; the zip comes last, as an embedded file.
const embeddedZip = join(root, "src/modules/companion/extension.zip");
copyFileSync(join(root, "dist/extension.zip"), embeddedZip);
const entrypoints = [
  join(root, "src/main.ts"),
  join(root, "src/ai/local-ai.worker.ts"),
  join(root, "src/db/checkpoint.worker.ts"),
  join(root, "src/db/backup.worker.ts"),
  // Copied beside its server code for the build only: every entrypoint under src/ keeps src/ the executable's root.
  embeddedZip,
];
// The executable starts with Bun's request-head limit raised, as `bun run start` does (see SERVER_HEAD_LIMIT_BYTES).
// --bytecode ships the code precompiled: the start skips parsing and compiling ~9 MB of JavaScript, which was
// about half of the time from spawn to the first /healthz answer (≈310 → ≈170 ms here; bench:all measures it).
const args = [
  "build",
  "--compile",
  "--minify",
  "--sourcemap",
  "--bytecode",
  "--format=esm",
  `--compile-exec-argv=--max-http-header-size=${SERVER_HEAD_LIMIT_BYTES}`,
  ...entrypoints,
  "--outfile",
  outfile,
];
if (values.target) args.push("--target", values.target);
const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
const code = await proc.exited;
rmSync(embeddedZip, { force: true });
if (code !== 0) {
  console.error(`build failed (exit ${code})`);
  process.exit(code);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
