import { heapSize, memoryUsage } from "bun:jsc";

/**
 * Gives memory back to the system once the process goes quiet after a burst of work. The JS engine keeps
 * the blocks of a collected heap, the allocator keeps freed pages, and SQLite keeps its page cache full, so
 * after a burst the resident size stays near its peak until the next one: 5,000 jobs ingested and their
 * webhooks delivered left ~200 MiB resident; a full collection, SQLite's shrink_memory and a second full
 * collection (the allocator returns pages when collecting) brought the same process to ~140 MiB (bench
 * memory). The two collections pause the thread for ~80 ms (30–50 ms each, measured there), so they run
 * only when nothing happens: the JS heap neither grew nor shrank by a MiB since the last look (requests,
 * ingests and deliveries all allocate far more), the process used less than QUIET_CPU_MS of CPU since then,
 * and it grew by at least GROWTH_BYTES since the last trim. Steady traffic never trims; a server that goes
 * idle after a burst trims once.
 *
 * The CPU test is there because the heap alone can look still while work goes on: with the engine's heap growth
 * capped (lib/engine-tuning.ts) collections keep it near one size, and a trim in the middle of a 5,000-job
 * ingest set the floor to that moment's size, so the trim after it never came (RSS 5 s after the ingest
 * 163 instead of ~132 MiB, bench memory). An idle server uses ~12 ms of CPU a second; a busy one, most of it.
 */
export const QUIET_BYTES = 1024 * 1024;
export const QUIET_CPU_MS = 50;
export const GROWTH_BYTES = 16 * 1024 * 1024;

export interface MemoryProbe {
  /** Bytes the JS heap holds (live and not yet collected). */
  heap(): number;
  /** Bytes the process's allocator holds: what the resident size follows. */
  resident(): number;
  /** CPU time the process has used so far (all its threads), in milliseconds. */
  cpuMs(): number;
  /** A full, synchronous collection. */
  collect(): void;
}

const runtime: MemoryProbe = {
  heap: heapSize,
  resident: () => memoryUsage().current,
  cpuMs: () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  },
  collect: () => Bun.gc(true),
};

export class MemoryTrim {
  private lastHeap: number;
  private lastCpuMs: number;
  /** Resident bytes after the last trim (or at the start), lowered when the process shrinks by itself. */
  private floor: number;

  /** `release` frees what the database connection caches (db/client.ts releaseMemory). */
  constructor(
    private readonly release: () => Promise<void>,
    private readonly probe: MemoryProbe = runtime,
  ) {
    this.lastHeap = probe.heap();
    this.lastCpuMs = probe.cpuMs();
    this.floor = probe.resident();
  }

  /** One look, every second or so: trims when the process is quiet and has grown. Resolves to whether it trimmed. */
  async tick(): Promise<boolean> {
    const heap = this.probe.heap();
    const cpuMs = this.probe.cpuMs();
    const quiet = Math.abs(heap - this.lastHeap) < QUIET_BYTES && cpuMs - this.lastCpuMs < QUIET_CPU_MS;
    this.lastHeap = heap;
    this.lastCpuMs = cpuMs;
    if (!quiet) return false;
    const resident = this.probe.resident();
    if (resident < this.floor + GROWTH_BYTES) {
      this.floor = Math.min(this.floor, resident);
      return false;
    }
    this.probe.collect();
    await this.release();
    this.probe.collect();
    this.floor = this.probe.resident();
    this.lastHeap = this.probe.heap();
    // The trim's own CPU is not work: the next look judges only what came after it.
    this.lastCpuMs = this.probe.cpuMs();
    return true;
  }
}
