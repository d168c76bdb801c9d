/**
 * Where a benchmark keeps its data: a SQLite file in a temporary directory (the default), or, with
 * `--database-url postgres://…`, a fresh database created on that server for the run and dropped after it
 * (the URL's own database is only used to CREATE and DROP it, so point it at any database an account that
 * may CREATE DATABASE can reach, e.g. …/postgres).
 */
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPg, type Db } from "../../src/db/client";
import { startServer, type ServerProcess } from "../../tests/helpers/process";

export interface BenchStore {
  /** The environment that points jobpilot at it (JOBPILOT_DB, or JOBPILOT_DATABASE_URL). */
  env: Record<string, string>;
  /** What the report says the run used. */
  label: string;
  databaseUrl?: string;
  dir: string;
  remove(): Promise<void>;
}

export async function benchStore(name: string, databaseUrl?: string): Promise<BenchStore> {
  const dir = mkdtempSync(join(tmpdir(), `jp-bench-${name}-`));
  if (!databaseUrl) {
    return {
      env: { JOBPILOT_DB: join(dir, `${name}.db`) },
      label: "SQLite (file, synchronous=FULL)",
      dir,
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = `jp_bench_${name}_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (statement: string) => {
    const sql = new SQL({ url: databaseUrl, max: 1 });
    try {
      await sql.unsafe(statement);
    } finally {
      await sql.close();
    }
  };
  await admin(`CREATE DATABASE "${database}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return {
    env: { JOBPILOT_DATABASE_URL: url.toString() },
    label: "PostgreSQL",
    databaseUrl: url.toString(),
    dir,
    remove: async () => {
      await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `nodes` servers on one store (several only make sense on PostgreSQL); the first migrates, the others find it done. */
export async function startNodes(cmd: string[], env: Record<string, string>, nodes: number): Promise<ServerProcess[]> {
  const first = await startServer(cmd, env);
  const rest = await Promise.all(Array.from({ length: nodes - 1 }, () => startServer(cmd, env)));
  return [first, ...rest];
}

/** Options every database benchmark takes. */
export const STORE_OPTIONS = {
  "database-url": { type: "string" },
  nodes: { type: "string" },
} as const;

export const STORE_USAGE = "[--database-url postgres://USER@HOST:PORT/DB] [--nodes N (PostgreSQL only, default 1)]";

export function nodesOption(values: { nodes?: string; "database-url"?: string }): number {
  const nodes = Number(values.nodes ?? 1);
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error("--nodes must be a positive integer");
  if (nodes > 1 && !values["database-url"]) throw new Error("--nodes above 1 needs --database-url: several processes share PostgreSQL, not a SQLite file");
  return nodes;
}

/** The store as config fields, for benchmarks that build the service in their own process. */
export function storeConfig(store: BenchStore): { dbPath: string; databaseUrl?: string } {
  return { dbPath: store.env.JOBPILOT_DB ?? `${store.dir}/unused.db`, ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}) };
}

/**
 * Waits (up to 2 s) until a SQLite file's connection has handed its WAL checkpoints to the background thread
 * (src/db/checkpoint.ts), as `serve`'s has a few milliseconds after it starts. The hand-over is a message from
 * that thread, and a benchmark that ingests in a loop with no I/O to wait on never lets it in: its own commits
 * then checkpointed the whole WAL themselves (~1,500 pages written again and the file fsynced, inside the
 * commit), which no server does. bench:match, same sitting: commit p50 28–35 → 19 ms, 1,084–1,253 →
 * 1,331–1,483 jobs/s.
 */
export async function checkpointThreadReady(db: Db): Promise<void> {
  if (isPg(db)) return;
  const handedOver = () => (db.$client.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint === 0;
  for (let waited = 0; !handedOver() && waited < 2000; waited += 10) await Bun.sleep(10);
}
