/**
 * The committed migrations of each dialect describe its schema module as it is: drizzle-kit, run on a copy
 * of the migration folder, finds nothing to generate. A schema change without `bun run db:generate` fails here.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "../..");

function pendingMigrations(dialect: "sqlite" | "postgresql", schemaDir: string, outDir: string): string[] {
  const tmp = mkdtempSync(join(tmpdir(), "jp-drift-"));
  try {
    const out = join(tmp, "out");
    cpSync(join(root, outDir), out, { recursive: true });
    const before = new Set(readdirSync(out));
    const config = join(tmp, "drizzle.config.json");
    // drizzle-kit takes `out` relative to the working directory (it prefixes "./"), and exits 0 on errors: read what it says.
    writeFileSync(config, JSON.stringify({ dialect, schema: `./${schemaDir}/*.ts`, out: relative(root, out) }));
    const run = Bun.spawnSync([process.execPath, "x", "drizzle-kit", "generate", "--config", config], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const said = `${run.stdout.toString()}${run.stderr.toString()}`;
    const added = readdirSync(out).filter((f) => !before.has(f));
    if (run.exitCode !== 0 || (added.length === 0 && !said.includes("No schema changes"))) throw new Error(`drizzle-kit failed: ${said}`);
    return added;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe("schema and migrations agree", () => {
  test("SQLite: src/db/schema needs no migration beyond migrations/", () => {
    expect(pendingMigrations("sqlite", "src/db/schema", "migrations")).toEqual([]);
  });

  test("PostgreSQL: src/db/schema-pg needs no migration beyond migrations-pg/", () => {
    expect(pendingMigrations("postgresql", "src/db/schema-pg", "migrations-pg")).toEqual([]);
  });
});
