import { afterEach } from "bun:test";

/**
 * Undo steps a test registers as it goes (stop a worker, close a fake server, close the app), run after
 * each test in reverse order of registration, so what was started last stops first.
 */
export function useCleanups(): (undo: () => unknown) => void {
  const pending: (() => unknown)[] = [];
  afterEach(async () => {
    while (pending.length > 0) await pending.pop()!();
  });
  return (undo) => void pending.push(undo);
}
