import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { closeDeps, createDeps } from "../../src/deps";
import { systemClock } from "../../src/lib/clock";
import { memoryLogger } from "../../src/lib/log";
import { createShutdown } from "../../src/shutdown";

describe("graceful shutdown over real HTTP", () => {
  test("a request in flight when shutdown starts still gets its answer; new connections are refused; the database closes", async () => {
    const log = memoryLogger();
    const { deps } = await createDeps({ ...loadConfig({}), dbPath: ":memory:" }, { clock: systemClock, log });
    const app = createApp(deps).get("/slow", async () => {
      await Bun.sleep(300);
      return { done: true };
    });
    app.listen({ hostname: "127.0.0.1", port: 0 });
    const server = app.server!;
    const base = `http://127.0.0.1:${server.port}`;
    // the same steps, in the same order, as `serve`
    const shutdown = createShutdown(
      [
        { name: "stop accepting and finish in-flight requests", run: () => server.stop(false), force: () => server.stop(true) },
        { name: "flush and close the database", run: () => closeDeps(deps) },
      ],
      { timeoutMs: 5000, log },
    );
    const inFlight = fetch(`${base}/slow`);
    await Bun.sleep(50);
    const stopping = shutdown("SIGTERM");
    await Bun.sleep(20);
    const refused = await fetch(`${base}/healthz`).then(
      () => "answered",
      () => "refused",
    );
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await stopping;
    expect(refused).toBe("refused");
    expect(() => deps.db.$client.query("SELECT 1").get()).toThrow();
  });
});
