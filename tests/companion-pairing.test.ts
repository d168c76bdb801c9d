import { afterEach, describe, expect, test } from "bun:test";
import { hostPermissionFor, readPairingInput, sandboxMatchFor } from "../extension/src/pairing";
import { COMPANION_KEY_LABEL } from "../src/marketplace/driver";
import { createKey } from "../src/modules/accounts/service";
import { pairingText } from "../src/modules/companion/model";
import { createTestApp, show, type TestApp } from "./helpers/app";
import { browser } from "./helpers/dashboard";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("the pairing line: the dashboard writes it, the options page reads it", () => {
  test("one paste gives the server's origin and the code; the code alone still takes the typed address", () => {
    const line = pairingText("ABCD-EFGH-JKLM", "http://203.0.113.5:3000");
    expect(readPairingInput("", line)).toEqual({ server: "http://203.0.113.5:3000", code: "ABCD-EFGH-JKLM" });
    // The line's address wins over a stale one in the server field; spaces around a paste are dropped.
    expect(readPairingInput("http://127.0.0.1:3000", `  ${line}\n`)).toEqual({ server: "http://203.0.113.5:3000", code: "ABCD-EFGH-JKLM" });
    expect(readPairingInput("https://jobs.example.com/dashboard", "abcd-efgh-jklm")).toEqual({ server: "https://jobs.example.com", code: "abcd-efgh-jklm" });
  });

  test("what is missing or wrong is named on its own field, in the page's words", () => {
    expect(readPairingInput("http://127.0.0.1:3000", "  ")).toMatchObject({ field: "code", error: expect.stringContaining("Paste the pairing line") });
    expect(readPairingInput("", "ABCD-EFGH-JKLM")).toMatchObject({ field: "server", error: expect.stringContaining("server address") });
    expect(readPairingInput("", "ABCD-EFGH-JKLM@203.0.113.5:3000")).toMatchObject({ field: "server", error: expect.stringContaining("not a web address") });
    expect(readPairingInput("ftp://203.0.113.5", "ABCD-EFGH-JKLM")).toMatchObject({ field: "server", error: expect.stringContaining("http://") });
    expect(readPairingInput("", "@http://203.0.113.5:3000")).toMatchObject({ field: "code" });
  });

  test("a server elsewhere needs its host allowed (every port, as the manifest's own patterns); localhost needs nothing", () => {
    expect(hostPermissionFor("http://203.0.113.5:3000")).toBe("http://203.0.113.5/*");
    expect(hostPermissionFor("https://jobs.example.com")).toBe("https://jobs.example.com/*");
    expect(hostPermissionFor("http://127.0.0.2:41000")).toBe("http://127.0.0.2/*");
    expect(hostPermissionFor("http://localhost:3000")).toBeNull();
    expect(hostPermissionFor("http://127.0.0.1:3000")).toBeNull();
    expect(sandboxMatchFor("http://203.0.113.5:3000")).toBe("http://203.0.113.5/sandbox/site/*");
  });
});

describe("the dashboard's browser companion page", () => {
  test("before pairing it says how to install; the pairing line holds this server's address and can be copied", async () => {
    t = await createTestApp();
    const { apiKey } = await t.account();
    const dashboard = browser(() => t!);
    const { token, csrf } = await dashboard.signIn(apiKey);
    const page = await dashboard.get("/dashboard/companion", token);
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain("Install the browser companion");
    expect(page.text).toContain("No browser companion is paired with this account yet.");
    const made = await dashboard.post("/dashboard/companion/pair", token, { csrf });
    expect(made.status, show(made)).toBe(200);
    const line = /data-test="pairing-text">([^<]+)</.exec(made.text)?.[1];
    // The address the browser reached the dashboard at (JOBPILOT_PUBLIC_URL unset), after the code.
    expect(line).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}@http:\/\/localhost$/);
    expect(made.text).toContain('data-copy="pairing-text"');
    expect(readPairingInput("", line!)).toEqual({ server: "http://localhost", code: line!.split("@")[0]! });
  });

  test("after pairing: paired since, not connected yet until its first poll, then connected; Unpair revokes its key", async () => {
    t = await createTestApp({ config: { publicUrl: "https://jobs.example.com" } });
    const { apiKey, accountId } = await t.account();
    const dashboard = browser(() => t!);
    const { token, csrf } = await dashboard.signIn(apiKey);
    const companion = await createKey(t.deps, accountId, COMPANION_KEY_LABEL);
    let page = await dashboard.get("/dashboard/companion", token);
    expect(page.text).not.toContain("Install the browser companion");
    expect(page.text).toContain("Paired since");
    expect(page.text).toContain("Not connected yet.");
    expect(page.text).toContain(">Unpair</button>");
    expect((await dashboard.post("/dashboard/companion/pair", token, { csrf })).text).toMatch(
      /data-test="pairing-text">[A-Z2-9-]{14}@https:\/\/jobs\.example\.com</,
    );

    expect((await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: companion.apiKey })).status).toBe(200);
    page = await dashboard.get("/dashboard/companion", token);
    expect(page.text).toContain("<strong>Connected</strong>");

    // Without the session's CSRF token nothing changes.
    expect((await dashboard.post("/dashboard/companion/unpair", token, {})).status).toBe(403);
    expect((await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: companion.apiKey })).status).toBe(200);
    const unpaired = await dashboard.post("/dashboard/companion/unpair", token, { csrf });
    expect(unpaired.status, show(unpaired)).toBe(303);
    expect((await t.request("GET", "/api/v1/companion/tasks?waitMs=0", { key: companion.apiKey })).status).toBe(401);
    page = await dashboard.get("/dashboard/companion", token);
    expect(page.text).toContain("No browser companion is paired with this account yet.");
    expect((await t.request("GET", "/api/v1/companion", { key: apiKey })).body.driver).toBe("sandbox");
  });
});
