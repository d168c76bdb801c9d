import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app";
import { call, callError, httpClient } from "../../helpers/mcp";
import { memberWithKey } from "../../helpers/team";

// The client-list tools of MCP (issue 45): the API's routes behind them, the same role checks, one account's lists.

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

test("block_client, favour_client, client_lists and unlist_client act on the account's lists as the API does", async () => {
  t = await createTestApp();
  const a = await t.account();
  const b = await t.account({ name: "other" });
  const client = await httpClient(t, a.apiKey);
  const blocked = await call(client, "block_client", { companyId: "co-1", reason: "Unpaid milestones" });
  expect(blocked.client).toMatchObject({ companyId: "co-1", list: "blocked", reason: "Unpaid milestones" });
  expect((await call(client, "favour_client", { companyId: "co-2" })).client).toMatchObject({ list: "favoured", reason: null });
  expect((await call(client, "client_lists", { list: "blocked" })).clients.map((c: { companyId: string }) => c.companyId)).toEqual(["co-1"]);
  expect((await call(client, "client_lists")).clients).toHaveLength(2);
  // Favouring a blocked client moves it.
  expect((await call(client, "favour_client", { companyId: "co-1" })).client.list).toBe("favoured");

  expect(await callError(client, "block_client", { companyId: "co-3", reason: "x".repeat(501) })).toContain("reason must be");
  expect(await callError(client, "block_client", { reason: "no id" })).toContain("companyId");

  const theirs = await httpClient(t, b.apiKey);
  expect((await call(theirs, "client_lists")).clients).toEqual([]);
  expect(await callError(theirs, "unlist_client", { companyId: "co-1" })).toContain("404");
  await theirs.close();

  expect(await call(client, "unlist_client", { companyId: "co-1" })).toEqual({ deleted: true, companyId: "co-1" });
  expect(await callError(client, "unlist_client", { companyId: "co-1" })).toContain("neither");
  expect((await t.request("GET", "/api/v1/client-lists", { key: a.apiKey })).body.clients.map((c: { companyId: string }) => c.companyId)).toEqual(["co-2"]);
  await client.close();
});

test("a viewer may read the lists but not change them", async () => {
  t = await createTestApp();
  const acct = await t.account({ kind: "agency" });
  const viewer = await memberWithKey(t, acct.accountId, "Vi Ewer", "vi@example.com", "viewer");
  const client = await httpClient(t, viewer.key);
  expect((await call(client, "client_lists")).clients).toEqual([]);
  expect(await callError(client, "block_client", { companyId: "co-1" })).toContain('"clients"');
  expect(await callError(client, "unlist_client", { companyId: "co-1" })).toContain('"clients"');
  await client.close();
});
