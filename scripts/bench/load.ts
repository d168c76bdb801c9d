/** A small closed-loop load generator for loopback benchmarks: N workers, each one request at a time, for a fixed time. */
export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export async function drive(url: string, opts: { headers?: Record<string, string>; connections: number; seconds: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const started = performance.now();
  const until = started + opts.seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { headers: opts.headers });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { requests: latencies.length, errors, statuses, seconds, rps: latencies.length / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99) };
}
