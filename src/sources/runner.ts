import type { Deps } from "../deps";
import { ingestDocuments } from "../modules/jobs/ingest";
import { Loop } from "../worker/loop";
import { createSandboxSource } from "./sandbox/index";
import type { JobSource } from "./source";

/** The sources named in JOBPILOT_SOURCES. Unknown names were refused by the config schema's pattern only loosely, so check here. */
export function configuredSources(deps: Pick<Deps, "config">): JobSource[] {
  const names = deps.config.sources === "none" ? [] : deps.config.sources.split(",");
  return names.map((name) => {
    if (name === "sandbox") return createSandboxSource({ seed: deps.config.sandboxSeed, jobsPerMinute: deps.config.sandboxJobsPerMinute });
    throw new Error(`Invalid JOBPILOT_SOURCES: unknown source "${name}" (available: sandbox, none)`);
  });
}

/** One loop per source: poll, ingest, log; a failing source backs off without touching the others. */
export function sourceLoops(deps: Deps, sources: JobSource[]): Loop[] {
  return sources.map(
    (source) =>
      new Loop({
        name: `source:${source.name}`,
        intervalMs: source.intervalMs,
        maxBackoffMs: 5 * 60_000,
        log: deps.log,
        run: async () => {
          const docs = await source.poll(deps.clock.now());
          if (docs.length === 0) return;
          const result = ingestDocuments(deps, docs, { source: source.name });
          deps.log.debug("source polled", { source: source.name, ...result, errors: result.errors.slice(0, 5) });
          if (result.rejected > 0) deps.log.warn("source produced invalid documents", { source: source.name, errors: result.errors.slice(0, 5) });
        },
      }),
  );
}
