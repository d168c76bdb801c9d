import { expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

test("a test run writes under a directory of its own, removed at its end, and removes what killed runs left", async () => {
  const base = mkdtempSync(join(tmpdir(), "jp-temp-root-"));
  try {
    // What a killed run left (its process is gone), and what a run going on now has (this process).
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const left = join(base, `jobpilot-test-${gone.pid}-AbCdEf`);
    const running = join(base, `jobpilot-test-${process.pid}-GhIjKl`);
    const unrelated = join(base, "jobpilot-test-data");
    for (const dir of [left, running, unrelated]) mkdirSync(dir);

    const run = Bun.spawn([process.execPath, "test", "./tests/fixtures/temp-root/probe.ts"], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: base },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect(code, out + err).toBe(0);
    const file = /PROBE_FILE=(\S+)/.exec(out + err)?.[1];
    expect(file, out + err).toStartWith(join(base, `jobpilot-test-${run.pid}-`));
    // The run's directory went with it; the stale one is gone, the others stay.
    expect(existsSync(file!)).toBe(false);
    expect(existsSync(join(file!, "../.."))).toBe(false);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
