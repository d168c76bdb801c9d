import { ingestDocuments, type IngestResult } from "../modules/intake/ingest";
import { intFlag, UsageError, type Command } from "./command";
import { printJson, withDeps } from "./db";

/** Splits a byte stream into lines without holding the whole input in memory. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) yield buffered;
}

export const ingestCommand: Command = {
  name: "ingest",
  summary: "Ingest archived job documents from an NDJSON file (or - for standard input): archive, match against every feed, queue scoring.",
  usage: "jobpilot ingest FILE|- [--source NAME] [--batch N]",
  details:
    "One JSON document per line (the spec's RawMarketplaceJob shape; see README 'Job documents'). A bad line is rejected with its line number and reason and never stops the rest. Prints the counts as JSON on stdout and progress on stderr.",
  positionals: [{ name: "FILE", required: true }],
  options: {
    source: { type: "string", value: "NAME", description: "Source name recorded on new jobs (default: push)" },
    batch: { type: "string", value: "N", description: "Documents per transaction (default 500)" },
  },
  async run(ctx) {
    const path = ctx.positionals[0]!;
    const batchSize = intFlag(ctx, "batch") ?? 500;
    if (batchSize < 1 || batchSize > 10_000) throw new UsageError("--batch must be between 1 and 10000");
    let stream: ReadableStream<Uint8Array>;
    if (path === "-") {
      if (!ctx.io.stdin) throw new UsageError("standard input is not available");
      stream = ctx.io.stdin();
    } else {
      const file = Bun.file(path);
      if (!(await file.exists())) throw new UsageError(`no such file: ${path}`);
      stream = file.stream();
    }
    const source = (ctx.values.source as string | undefined) ?? "push";
    return withDeps(ctx, async (deps) => {
      const total: IngestResult = { received: 0, inserted: 0, updated: 0, rejected: 0, matched: 0, scoring: 0, errors: [], notes: [] };
      const started = performance.now();
      let lastReport = started;
      let docs: unknown[] = [];
      let lineNumbers: number[] = [];
      const flush = async () => {
        if (docs.length === 0) return;
        const numbers = lineNumbers;
        const r = await ingestDocuments(deps, docs, { source, numbering: (i) => numbers[i]! });
        for (const k of ["received", "inserted", "updated", "rejected", "matched", "scoring"] as const) total[k] += r[k];
        total.errors.push(...r.errors);
        total.notes.push(...r.notes);
        docs = [];
        lineNumbers = [];
        if (performance.now() - lastReport > 2000) {
          lastReport = performance.now();
          ctx.io.stderr(`… ${total.received} documents (${total.inserted} new, ${total.updated} known, ${total.rejected} rejected)\n`);
        }
      };
      let n = 0;
      for await (const line of lines(stream)) {
        n++;
        if (!line.trim()) continue;
        try {
          docs.push(JSON.parse(line));
          lineNumbers.push(n);
        } catch (err) {
          total.received++;
          total.rejected++;
          total.errors.push({ at: n, error: `invalid JSON: ${(err as Error).message}` });
        }
        if (docs.length >= batchSize) await flush();
      }
      await flush();
      total.errors.sort((a, b) => a.at - b.at);
      const secs = (performance.now() - started) / 1000;
      ctx.io.stderr(
        `ingested ${total.received} documents in ${secs.toFixed(1)} s: ${total.inserted} new, ${total.updated} known, ${total.rejected} rejected; ${total.matched} feed matches, ${total.scoring} queued for scoring\n`,
      );
      printJson(ctx, total);
      return 0;
    });
  },
};
