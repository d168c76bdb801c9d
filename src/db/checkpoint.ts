import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Db } from "./client";

/**
 * WAL checkpoints off the server's thread. SQLite's automatic checkpoint runs inside the commit that fills
 * the WAL past 1,000 pages, and that commit's copy and fsync was the p99 of ingest → webhook
 * (docs/performance.md, 'Why the code is as it is'). Here a thread with its own connection runs a PASSIVE checkpoint every interval (it never
 * blocks the writer nor waits for it), and the server's connection stops checkpointing itself
 * (wal_autocheckpoint = 0) only once that thread is up. If the thread dies, automatic checkpoints come back.
 * Durability is unchanged: a commit is durable once in the WAL; checkpointing only moves pages.
 */
export interface BackgroundCheckpoint {
  /** Stops the thread (closing its connection) and hands checkpointing back to the connection. */
  stop(): Promise<void>;
}

const CHECKPOINT = Symbol("jobpilot.checkpoint");
const AUTO_CHECKPOINT_PAGES = 1000; // SQLite's default

/** From source the worker sits beside this file; in the compiled binary it is an extra entrypoint under src/ (scripts/build.ts). */
function workerUrl(): string {
  const beside = new URL("./checkpoint.worker.ts", import.meta.url);
  return beside.protocol === "file:" && existsSync(fileURLToPath(beside)) ? beside.href : "./db/checkpoint.worker.ts";
}

export function startBackgroundCheckpoint(db: Db, path: string, opts: { intervalMs?: number; onDied?: (why: string) => void } = {}): BackgroundCheckpoint {
  const worker = new Worker(workerUrl());
  worker.unref();
  let state: "starting" | "running" | "stopping" | "stopped" = "starting";
  let stopped: () => void = () => {};
  const auto = (pages: number) => {
    try {
      db.$client.run(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // The connection is closed already.
    }
  };
  worker.addEventListener("message", (event: MessageEvent<{ ready?: true; stopped?: true }>) => {
    if (event.data.ready && state === "starting") {
      state = "running";
      auto(0);
    }
    if (event.data.stopped) stopped();
  });
  const died = (why: string) => {
    if (state === "stopping" || state === "stopped") return stopped();
    state = "stopped";
    auto(AUTO_CHECKPOINT_PAGES);
    opts.onDied?.(why);
  };
  worker.addEventListener("error", (event: ErrorEvent) => died(event.message || "uncaught error"));
  worker.addEventListener("close", () => died("exited"));
  worker.postMessage({ start: { path, intervalMs: opts.intervalMs ?? 200 } });
  const handle: BackgroundCheckpoint = {
    stop: () => {
      if (state === "stopped") return Promise.resolve();
      state = "stopping";
      auto(AUTO_CHECKPOINT_PAGES);
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(() => stopped(), 2_000);
        stopped = () => {
          clearTimeout(timeout);
          state = "stopped";
          worker.terminate();
          resolve();
        };
        worker.postMessage({ stop: true });
      });
    },
  };
  (db as unknown as Record<symbol, BackgroundCheckpoint>)[CHECKPOINT] = handle;
  return handle;
}

/** Stops the database's background checkpoint, if it has one (before closing it). */
export function stopBackgroundCheckpoint(db: Db): Promise<void> {
  return (db as unknown as Record<symbol, BackgroundCheckpoint | undefined>)[CHECKPOINT]?.stop() ?? Promise.resolve();
}
