/**
 * The baseline: bare Bun.serve answering a fixed JSON body of the same size
 * and shape as jobpilot's answer, with no auth, no limits, no database.
 * Started as a child process by scripts/bench/http.ts.
 */
const body = process.env.BENCH_BODY ?? '{"ok":true}';
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } }),
});
console.log(`is listening on http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
