import type { Db } from "../../db/client";
import { touchKeys } from "./repo";

/**
 * Records when each key was last used without a write per request: the time is
 * kept in memory and written in one transaction by flush() (every second and
 * at shutdown).
 */
export class KeyUsage {
  private pending = new Map<string, number>();

  constructor(private readonly db: Db) {}

  touch(keyId: string, ts: number): void {
    this.pending.set(keyId, ts);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await touchKeys(this.db, batch);
  }
}
