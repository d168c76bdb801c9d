import { heapSize, memoryUsage } from "bun:jsc";

/**
 * Gives memory back to the system once the process goes quiet after a burst: the engine, the allocator and SQLite
 * all keep what a burst used. A trim pauses the thread, so it runs only when the heap and the CPU were still since
 * the last look and the process grew by GROWTH_BYTES since the last trim (see docs/architecture.md, 'When memory
 * is trimmed'; figures in docs/performance.md, 'Why the code is as it is').
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
