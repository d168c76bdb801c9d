/** Waits until `check` holds, looking every 5 ms; throws naming `what` after `timeoutMs` (in-process tests of pollers and bots). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}
