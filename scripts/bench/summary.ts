/**
 * The figures a benchmark hands to `bun run bench:all`: when BENCH_SUMMARY names a file, each benchmark
 * merges its figures into it under its own name (bench:all reads the file after the child exits).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export async function writeSummary(name: string, figures: Record<string, unknown>): Promise<void> {
  const file = process.env.BENCH_SUMMARY;
  if (!file) return;
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  all[name] = { ...((all[name] as object) ?? {}), ...figures };
  writeFileSync(file, JSON.stringify(all, null, 2));
}
