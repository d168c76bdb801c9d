import { afterEach, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { loadConfig, type Config } from "../../src/config";
import { closeDeps, createDeps, type Deps } from "../../src/deps";
import { systemClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import * as accounts from "../../src/modules/accounts/service";

// app.handle bypasses Bun's own router and limits: these run the app on a real socket.
let running: { deps: Deps; stop: () => Promise<void> } | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

function serve(config: Partial<Config> = {}) {
  const { deps } = createDeps({ ...loadConfig({}), dbPath: ":memory:", ...config }, { clock: systemClock, log: memoryLogger() });
  const app = createApp(deps);
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const server = app.server!;
  running = {
    deps,
    stop: async () => {
      await server.stop(true);
      closeDeps(deps);
    },
  };
  return { deps, base: `http://127.0.0.1:${server.port}` };
}

describe("HTTP limits on a listening server", () => {
  test("Bun's router serves HEAD with the GET handler: it is metered in the GET route's bucket", async () => {
    const { deps, base } = serve();
    const { apiKey, account } = accounts.createAccount(deps, { name: "a" });
    accounts.setRateLimits(deps, account.id, { overrides: { "freelancers.minute": 1 } });
    const headers = { "x-api-key": apiKey };
    expect((await fetch(`${base}/api/auto-apply-v2/freelancers`, { headers })).status).toBe(200);
    const head = await fetch(`${base}/api/auto-apply-v2/freelancers`, { method: "HEAD", headers });
    expect(head.status).toBe(429);
    const slashed = await fetch(`${base}/api/auto-apply-v2/freelancers/`, { headers });
    // Bun's router does not serve the slashed path (404); if it ever does, it must be refused with the route.
    const slashedBody = (await slashed.json()) as { error: string };
    expect(slashed.status === 429 || slashedBody.error.startsWith("No route for"), JSON.stringify(slashedBody)).toBe(true);
  });
});
