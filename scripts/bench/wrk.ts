/** Drives a URL with wrk (when it is on PATH) and reads its report into the same shape as load.ts's drive(). */
import type { LoadResult } from "./load";

export function wrkPath(): string | null {
  return Bun.which("wrk");
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[unit]!;

export async function driveWrk(
  wrk: string,
  url: string,
  opts: { headers?: Record<string, string>; connections: number; seconds: number; threads: number },
): Promise<LoadResult> {
  const args = [wrk, `-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  const proc = Bun.spawn([...args, url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`wrk failed (${code}): ${err}${out}`);
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? Number.NaN);
  const latency = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(out);
    return m ? toMs(m[1]!, m[2]!) : Number.NaN;
  };
  const requests = num(/(\d+) requests in/);
  const seconds = (() => {
    const m = /requests in ([\d.]+)(us|ms|s|m),/.exec(out);
    return m ? toMs(m[1]!, m[2]!) / 1000 : opts.seconds;
  })();
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  // wrk does not break statuses down: 2xx/3xx are counted as 200, the rest as 0 ("not 2xx or 3xx").
  const statuses: Record<number, number> = { 200: requests - non2xx };
  if (non2xx) statuses[0] = non2xx;
  return { requests, errors, statuses, seconds, rps: num(/Requests\/sec:\s+([\d.]+)/), p50Ms: latency("50"), p99Ms: latency("99") };
}
