/**
 * Progress of a long command on standard error. On a terminal, one line redrawn in place
 * (`copy  [██████░░░░░░]  52%  12,345/23,456 rows  jobs`) at most ten times a second; otherwise (a pipe, a log
 * file, CI) a plain line every few seconds and one when a step finishes, so logs stay readable.
 */
export interface ProgressOptions {
  write: (text: string) => void;
  tty: boolean;
  /** Seconds between plain lines (not on a terminal). Default 2. */
  plainEverySeconds?: number;
  now?: () => number;
}

export interface ProgressBar {
  /** `done` of `total` units of the step `label`; `detail` names what is being worked on. */
  update(label: string, done: number, total: number, detail?: string): void;
  /** The step `label` is over: its final line, kept on screen. */
  finish(label: string, summary: string): void;
  /** Removes an unfinished bar (before an error message). */
  clear(): void;
}

const WIDTH = 28;

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

export function progressBar(opts: ProgressOptions): ProgressBar {
  const now = opts.now ?? (() => performance.now());
  const plainEvery = (opts.plainEverySeconds ?? 2) * 1000;
  let last = Number.NEGATIVE_INFINITY;
  let drawn = false;
  /** "52%" and "12,345/23,456" and the share done (0…1). */
  const measure = (done: number, total: number) => {
    const share = total > 0 ? Math.min(1, done / total) : 1;
    return { share, pct: `${Math.floor(share * 100)}%`, counts: `${formatCount(done)}/${formatCount(total)}` };
  };
  return {
    update(label, done, total, detail) {
      const t = now();
      if (opts.tty) {
        if (t - last < 100 && done < total) return;
        last = t;
        const m = measure(done, total);
        const filled = Math.round(m.share * WIDTH);
        const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`;
        opts.write(`\r\x1b[2K${label.padEnd(7)}[${bar}] ${m.pct.padStart(4)}  ${m.counts}${detail ? `  ${detail}` : ""}`);
        drawn = true;
        return;
      }
      if (t - last < plainEvery) return;
      last = t;
      const m = measure(done, total);
      opts.write(`${label}: ${m.pct} (${m.counts})${detail ? `  ${detail}` : ""}\n`);
    },
    finish(label, summary) {
      if (opts.tty && drawn) opts.write("\r\x1b[2K");
      drawn = false;
      last = Number.NEGATIVE_INFINITY;
      opts.write(`${label}: ${summary}\n`);
    },
    clear() {
      if (opts.tty && drawn) opts.write("\r\x1b[2K");
      drawn = false;
    },
  };
}
