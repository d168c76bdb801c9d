/**
 * The local scorer and writer (used when no model is configured) behind an
 * async interface, run on a pool of worker threads. They are pure CPU work:
 * on the thread that answers HTTP, 500 scorings of long prompts against long
 * descriptions held every request of every account for seconds (issue 13).
 * With threads = 0 they run inline, on the calling thread.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "../lib/log";
import { WorkerPool } from "../lib/worker-pool";
import { scoreLocally, type LocalScore, type ScoringJob } from "./local-scorer";
import { answerQuestionLocally, writeProposalLocally } from "./local-writer";

/** What a thread can be asked to run, by name. Arguments and results cross threads by structured clone, so plain data only. */
const LOCAL_AI = {
  score: (prompt: string, job: ScoringJob): LocalScore => scoreLocally(prompt, job),
  writeProposal: writeProposalLocally,
  answerQuestion: answerQuestionLocally,
};
type Functions = typeof LOCAL_AI;

export type LocalAiCall = { [K in keyof Functions]: { fn: K; args: Parameters<Functions[K]> } }[keyof Functions];

export type LocalAi = { [K in keyof Functions]: (...args: Parameters<Functions[K]>) => Promise<ReturnType<Functions[K]>> } & {
  /** Stops the threads; calls after it reject. Idempotent. */
  close(): void;
};

/** Runs one call on this thread (the worker's side, and the threads = 0 mode). */
export function runLocalAi(call: LocalAiCall): unknown {
  return (LOCAL_AI[call.fn] as (...args: unknown[]) => unknown)(...call.args);
}

/** Leave a core for the server's own thread; a few threads are plenty for template work. */
export function defaultLocalAiThreads(cores: number = navigator.hardwareConcurrency): number {
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * The worker script. From source it sits beside this file. In the compiled
 * binary every module shares the executable's URL, and the worker (an extra
 * entrypoint of scripts/build.ts) is found by its path under the build root, src/.
 */
function workerUrl(): string {
  const beside = new URL("./local-ai.worker.ts", import.meta.url);
  return beside.protocol === "file:" && existsSync(fileURLToPath(beside)) ? beside.href : "./ai/local-ai.worker.ts";
}

export function createLocalAi(opts: { threads: number; log: Logger }): LocalAi {
  let run: (call: LocalAiCall) => Promise<unknown>;
  let close = () => {};
  if (opts.threads === 0) {
    run = async (call) => runLocalAi(call);
  } else {
    const pool = new WorkerPool<LocalAiCall, unknown>({
      size: opts.threads,
      url: workerUrl(),
      onCrash: (err) => opts.log.error("a local AI thread died; its call failed and the thread is replaced", { err }),
    });
    run = (call) => pool.run(call);
    close = () => pool.terminate();
  }
  const call =
    <K extends keyof Functions>(fn: K) =>
    (...args: Parameters<Functions[K]>) =>
      run({ fn, args } as LocalAiCall) as Promise<ReturnType<Functions[K]>>;
  return { score: call("score"), writeProposal: call("writeProposal"), answerQuestion: call("answerQuestion"), close };
}
