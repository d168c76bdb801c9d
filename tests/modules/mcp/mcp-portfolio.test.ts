import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app";
import { call, callError, httpClient, ingestReactJob } from "../../helpers/mcp";
import { memberWithKey } from "../../helpers/team";

// The portfolio and version tools of MCP (issue 44): the API's routes behind them, the same role checks, and
// another account's profile not found.

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const MARKDOWN = "## Trading analytics dashboard\n- Built: A React dashboard with live charts\n- Skills: React, TypeScript\n- Link: https://example.com/t\n";

async function setup() {
  t = await createTestApp();
  const a = await t.account({ kind: "agency" });
  const b = await t.account({ name: "other" });
  const profileOf = async (key: string) =>
    (await t!.request("GET", "/api/auto-apply-v2/freelancers", { key })).body.freelancers[0].profiles[0].profileId as string;
  return { t, a, b, aProfile: await profileOf(a.apiKey), bProfile: await profileOf(b.apiKey) };
}

test("get_portfolio and set_portfolio (Markdown or JSON) on the account's own profile; not both, not neither", async () => {
  const { a, aProfile } = await setup();
  const client = await httpClient(t!, a.apiKey);
  expect(await call(client, "get_portfolio", { profileId: aProfile })).toMatchObject({
    profileId: aProfile,
    portfolio: { caseStudies: [], pastClients: [], skillYears: [] },
    updatedAt: null,
  });

  const fromMarkdown = await call(client, "set_portfolio", { profileId: aProfile, markdown: MARKDOWN });
  expect(fromMarkdown.portfolio.caseStudies).toEqual([
    {
      title: "Trading analytics dashboard",
      built: "A React dashboard with live charts",
      client: "",
      skills: ["React", "TypeScript"],
      outcome: "",
      link: "https://example.com/t",
    },
  ]);
  const read = await call(client, "get_portfolio", { profileId: aProfile });
  expect(read.portfolio).toEqual(fromMarkdown.portfolio);
  expect(read.markdown).toContain("## Trading analytics dashboard");

  const fromJson = await call(client, "set_portfolio", {
    profileId: aProfile,
    portfolio: { pastClients: ["Lumen Apparel"], skillYears: [{ skill: "React", years: 6 }] },
  });
  expect(fromJson.portfolio).toEqual({ caseStudies: [], pastClients: ["Lumen Apparel"], skillYears: [{ skill: "React", years: 6 }] });
  expect((await t!.request("GET", `/api/v1/profiles/${aProfile}/portfolio`, { key: a.apiKey })).body.portfolio).toEqual(fromJson.portfolio);

  expect(await callError(client, "set_portfolio", { profileId: aProfile })).toContain("Give either portfolio");
  expect(await callError(client, "set_portfolio", { profileId: aProfile, markdown: MARKDOWN, portfolio: {} })).toContain("not both");
  // The API's own validation, as for every tool.
  expect(await callError(client, "set_portfolio", { profileId: aProfile, markdown: "## Shop\n- Link: ftp://nope" })).toContain("HTTP 400");
  expect(await callError(client, "set_portfolio", { profileId: aProfile, portfolio: { caseStudies: [{ title: "" }] } })).toContain("HTTP 400");
  await client.close();
});

test("another account's profile is not found by either tool, and a bidder may read a portfolio but not replace it", async () => {
  const { a, b, aProfile, bProfile } = await setup();
  await t!.request("PUT", `/api/v1/profiles/${bProfile}/portfolio`, { key: b.apiKey, json: { pastClients: ["B's client"] } });
  const client = await httpClient(t!, a.apiKey);
  expect(await callError(client, "get_portfolio", { profileId: bProfile })).toBe("HTTP 404: Profile not found");
  expect(await callError(client, "set_portfolio", { profileId: bProfile, markdown: MARKDOWN })).toBe("HTTP 404: Profile not found");
  expect(await callError(client, "set_portfolio", { profileId: bProfile, portfolio: {} })).toBe("HTTP 404: Profile not found");
  expect((await t!.request("GET", `/api/v1/profiles/${bProfile}/portfolio`, { key: b.apiKey })).body.portfolio.pastClients).toEqual(["B's client"]);
  await client.close();

  const bidder = await memberWithKey(t!, a.accountId, "Ana", "ana@example.com", "bidder");
  const asBidder = await httpClient(t!, bidder.key);
  expect((await call(asBidder, "get_portfolio", { profileId: aProfile })).profileId).toBe(aProfile);
  const refused = await callError(asBidder, "set_portfolio", { profileId: aProfile, markdown: MARKDOWN });
  expect(refused).toStartWith("HTTP 403:");
  expect((await t!.request("GET", `/api/v1/profiles/${aProfile}/portfolio`, { key: a.apiKey })).body.updatedAt).toBeNull();
  await asBidder.close();
});

test("draft_proposal takes an instruction; proposal_versions lists the job's letters with it, only the account's own", async () => {
  const { a, b } = await setup();
  const cipher = await ingestReactJob(t!);
  const client = await httpClient(t!, a.apiKey);
  const first = await call(client, "draft_proposal", { jobId: cipher });
  const second = await call(client, "draft_proposal", { jobId: cipher, instruction: "shorter", reasoningEffort: "high" });
  expect([first.version.number, second.version.number]).toEqual([1, 2]);
  const { versions } = await call(client, "proposal_versions", { ciphertext: cipher });
  expect(versions.map((v: { number: number; instruction: string | null; letter: string }) => [v.number, v.instruction, v.letter])).toEqual([
    [2, "shorter", second.proposal],
    [1, null, first.proposal],
  ]);
  expect(versions[0]).toMatchObject({ id: second.version.id, writer: "local", sentApplicationId: null });
  expect(await callError(client, "draft_proposal", { jobId: cipher, instruction: "z".repeat(501) })).toContain("HTTP 400");
  expect((await call(client, "proposal_versions", { ciphertext: cipher })).versions).toHaveLength(2);
  await client.close();

  const other = await httpClient(t!, b.apiKey);
  expect((await call(other, "proposal_versions", { ciphertext: cipher })).versions).toEqual([]);
  await other.close();
});
