/**
 * Preloaded by `bun test` (bunfig.toml): the run's temporary files all go under one directory of its own, removed
 * when the run ends. Tests make their directories with os.tmpdir() (databases, backups, browser profiles, compiled
 * executables of ~100 MB each), and each directory is kept while a test may still read it; before this, every run
 * left ~190 MB in /tmp. Setting TMPDIR moves os.tmpdir() for this process and the browsers it starts; the servers
 * and CLI commands the tests start get the paths they use from the tests.
 *
 * A run that is killed cannot remove its directory: the next run removes those whose process is gone (the
 * process id is in the name, so runs at the same time leave each other's alone).
 */
import { afterAll } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const RUN_DIR = /^jobpilot-test-(\d+)-/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const base = tmpdir();
for (const name of readdirSync(base)) {
  const pid = Number(RUN_DIR.exec(name)?.[1]);
  if (pid && pid !== process.pid && !isRunning(pid)) rmSync(join(base, name), { recursive: true, force: true });
}
const root = mkdtempSync(join(base, `jobpilot-test-${process.pid}-`));
process.env.TMPDIR = root;

// In a preload file, afterAll runs once, after the last test file.
afterAll(() => rmSync(root, { recursive: true, force: true }));
