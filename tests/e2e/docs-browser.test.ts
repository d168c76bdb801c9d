import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium, noBrowser } from "../helpers/browser";
import { startServer, type ServerProcess } from "../helpers/process";

// A self-hosted service's API reference must work on a machine with no internet access, and must not
// tell anyone else that it was opened: every request the page makes goes to jobpilot itself.
describe("/docs in a browser (end to end)", () => {
  // Skipped only off CI on a machine without /usr/bin/chromium (see noBrowser); .ci/run installs it.
  // Skipped only where no Chromium is installed (noBrowser); .ci/run installs Debian's, so CI runs it.
  test.skipIf(noBrowser)(
    "the reference renders with every outside request blocked, none is attempted, and no hosted-service control shows",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "jp-docs-"));
      let server: ServerProcess | undefined;
      let browser: Browser | undefined;
      try {
        server = await startServer([process.execPath, "run", "src/main.ts", "serve"], {
          JOBPILOT_DB: join(dir, "docs.db"),
          JOBPILOT_SOURCES: "none",
          LOG_LEVEL: "warn",
        });
        const base = new URL(server.url);
        expect(base.hostname).toBe("127.0.0.1");

        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        context.setDefaultTimeout(15_000);
        const outside: string[] = [];
        await context.route("**/*", (route) => {
          const url = new URL(route.request().url());
          if (url.host === base.host) return route.continue();
          outside.push(route.request().url());
          return route.abort("internetdisconnected");
        });
        await context.routeWebSocket(/.*/, (ws) => {
          outside.push(ws.url());
          return ws.close();
        });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (err) => errors.push(err.message));

        await page.goto(`${server.url}/docs`);
        // An operation's summary is on the page only once the reference has fetched and rendered the document.
        await page.getByText("Liveness and database status").first().waitFor({ state: "visible" });
        await page.waitForLoadState("networkidle");
        // Fonts and lazy chunks load after the first paint: give them time to be asked for.
        await Bun.sleep(1_000);

        expect(outside).toEqual([]);
        expect(errors).toEqual([]);
        // Scalar's hosted-service controls are off: its AI agent, the link to its web client, the toolbar offering its hosting.
        for (const control of ["Ask AI", "Open API Client", "Developer Tools", "Deploy", "Share"]) {
          expect(await page.getByText(control, { exact: true }).count(), control).toBe(0);
        }
        // The API key field is empty and says what to type: no made-up key (Scalar's own placeholder) that
        // reads as one already filled in.
        const fields = await page.$$eval("input[placeholder]", (inputs) =>
          // What the field holds is its value property (typed in), not an attribute.
          inputs.map((input) => ({ placeholder: input.getAttribute("placeholder"), value: (input as unknown as { value: string }).value })),
        );
        expect(fields).toContainEqual({ placeholder: "Your API key", value: "" });
        expect(fields.filter((field) => field.value !== "")).toEqual([]);
        expect(JSON.stringify(fields)).not.toContain("QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT");

        // Another site cannot show the reference inside a page of its own (X-Frame-Options, frame-ancestors):
        // its "Test request" sends what is typed into it to this server.
        const framer = Bun.serve({
          hostname: "127.0.0.1",
          port: 0,
          fetch: () =>
            new Response(`<!doctype html><iframe src="${server!.url}/docs" width="800" height="600"></iframe>`, { headers: { "content-type": "text/html" } }),
        });
        try {
          const framing = await (await browser.newContext()).newPage();
          await framing.goto(framer.url.href, { waitUntil: "load" });
          const frame = framing.frames().find((f) => f !== framing.mainFrame());
          expect(frame, "the framing page has its iframe").toBeDefined();
          // Long enough for the reference to render, were it let in (it took well under this above).
          await Bun.sleep(2_000);
          expect(await frame!.getByText("Liveness and database status").count()).toBe(0);
          expect(frame!.url()).not.toContain("/docs");
        } finally {
          framer.stop(true);
        }
      } finally {
        await browser?.close().catch(() => {});
        if (server) expect(await server.stop()).toBe(0);
      }
    },
    60_000,
  );
});
