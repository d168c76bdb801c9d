import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app";
import { browser } from "../../helpers/dashboard";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const MARKDOWN =
  "# Case studies\n## Trading analytics dashboard\n- Built: A React dashboard with live charts\n- Skills: React, TypeScript\n- Link: https://example.com/t\n# Years of experience\n- React: 6\n";

test("the Freelancers page edits a profile's portfolio as Markdown; a bad link is refused next to the field and changes nothing", async () => {
  t = await createTestApp();
  const a = await t.account();
  const b = browser(() => t!);
  const { token, csrf } = await b.signIn(a.apiKey);
  const profileId = (await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey })).body.freelancers[0].profiles[0].profileId as string;
  const freelancerId = (await t.request("GET", "/api/auto-apply-v2/freelancers", { key: a.apiKey })).body.freelancers[0].id as string;
  let page = await b.get("/dashboard/freelancers", token);
  expect(page.text).toContain("0 case studies");
  const action = `/dashboard/freelancers/${encodeURIComponent(freelancerId)}/profiles/${encodeURIComponent(profileId)}/portfolio`;
  const saved = await b.post(action, token, { csrf, text: MARKDOWN });
  expect(saved.status).toBe(303);
  page = await b.get("/dashboard/freelancers?saved=portfolio", token);
  expect(page.text).toContain("Portfolio saved.");
  expect(page.text).toContain("1 case study");
  expect(page.text).toContain("## Trading analytics dashboard");
  const api = await t.request("GET", `/api/v1/profiles/${profileId}/portfolio`, { key: a.apiKey });
  expect(api.body.portfolio.skillYears).toEqual([{ skill: "React", years: 6 }]);

  const bad = await b.post(action, token, { csrf, text: "## Shop\n- Link: ftp://nope" });
  expect(bad.status).toBe(400);
  expect(bad.text).toMatch(/id="pf-[^"]+-mdError"[^>]*>[^<]*Portfolio[^<]*link of case study 1 must be a web address/);
  expect(bad.text).toContain("ftp://nope"); // what was typed is kept
  expect(bad.text).not.toContain("/api/v1");
  const after = await t.request("GET", `/api/v1/profiles/${profileId}/portfolio`, { key: a.apiKey });
  expect(after.body.portfolio).toEqual(api.body.portfolio);
});
