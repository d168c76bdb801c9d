import { afterEach, describe, expect, test } from "bun:test";
import * as accounts from "../../../src/modules/accounts/service";
import * as members from "../../../src/modules/members/service";
import { createTestApp, show, type TestApp } from "../../helpers/app";
import { insertSentApplication } from "../../helpers/applications";
import { makeDoc } from "../../helpers/factories";
import { ingestDocuments } from "../../../src/modules/intake/ingest";

let t: TestApp | undefined;

/** An archived job (applications name one); its ciphertext. */
async function job(title: string): Promise<string> {
  const doc = makeDoc({ title });
  await ingestDocuments(t!.deps, [doc], { source: "test" });
  return (doc.jobTile as { job: { ciphertext: string } }).job.ciphertext;
}
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function agency() {
  t = await createTestApp();
  return t.account({ kind: "agency" });
}

const listed = async (key: string) => (await t!.request("GET", "/api/auto-apply-v2/freelancers", { key })).body.freelancers as { id: string; name: string }[];

describe("managing freelancers through the API (sandbox driver)", () => {
  test("add, edit and remove a freelancer and its profiles; the roster the driver lists follows", async () => {
    const { apiKey } = await agency();
    const created = await t!.request("POST", "/api/v1/freelancers", {
      key: apiKey,
      json: { name: "  Bo Lind ", hourlyRate: 60, country: "de", profiles: [{ name: "Rust developer", skills: ["Rust", " rust ", "Go", ""] }] },
    });
    expect(created.status, show(created)).toBe(201);
    const bo = created.body.freelancer;
    expect(bo).toMatchObject({ name: "Bo Lind", baseHourlyRate: 60, country: "DE", own: false });
    expect(bo.profiles.map((p: { type: string; name: string; skills: string[] }) => [p.type, p.skills])).toEqual([
      ["default", []],
      ["specialization", ["Rust", "Go"]],
    ]);
    expect((await listed(apiKey)).map((f) => f.name)).toContain("Bo Lind");

    const renamed = await t!.request("PATCH", `/api/v1/freelancers/${bo.id}`, { key: apiKey, json: { name: "Bo Lindqvist", hourlyRate: 75 } });
    expect(renamed.status, show(renamed)).toBe(200);
    expect(renamed.body.freelancer).toMatchObject({ id: bo.id, name: "Bo Lindqvist", baseHourlyRate: 75, country: "DE" });

    const added = await t!.request("POST", `/api/v1/freelancers/${bo.id}/profiles`, {
      key: apiKey,
      json: { name: "Data pipeline engineer", skills: ["SQL"], hourlyRate: 80 },
    });
    expect(added.status, show(added)).toBe(201);
    const data = added.body.freelancer.profiles.find((p: { name: string }) => p.name === "Data pipeline engineer");
    expect(data).toMatchObject({ type: "specialization", hourlyRate: 80, skills: ["SQL"] });
    const edited = await t!.request("PATCH", `/api/v1/freelancers/${bo.id}/profiles/${data.profileId}`, { key: apiKey, json: { skills: ["SQL", "dbt"] } });
    expect(edited.status, show(edited)).toBe(200);
    expect(edited.body.freelancer.profiles.find((p: { profileId: string }) => p.profileId === data.profileId).skills).toEqual(["SQL", "dbt"]);

    const removedProfile = await t!.request("DELETE", `/api/v1/freelancers/${bo.id}/profiles/${data.profileId}`, { key: apiKey });
    expect(removedProfile.status, show(removedProfile)).toBe(200);
    expect(removedProfile.body.freelancer.profiles.map((p: { name: string }) => p.name)).not.toContain("Data pipeline engineer");

    const removed = await t!.request("DELETE", `/api/v1/freelancers/${bo.id}`, { key: apiKey });
    expect(removed.status, show(removed)).toBe(200);
    expect((await listed(apiKey)).map((f) => f.id)).not.toContain(bo.id);
  });

  test("bad input is a 400 naming the field, and nothing changes", async () => {
    const { apiKey } = await agency();
    const blank = await t!.request("POST", "/api/v1/freelancers", { key: apiKey, json: { name: "   " } });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toContain("name");
    const country = await t!.request("POST", "/api/v1/freelancers", { key: apiKey, json: { name: "Cy", country: "USA" } });
    expect(country.status).toBe(400);
    expect(country.body.error).toContain("country");
    const first = await t!.request("POST", "/api/v1/freelancers", { key: apiKey, json: { name: "Cy" } });
    expect(first.status, show(first)).toBe(201);
    const again = await t!.request("POST", "/api/v1/freelancers", { key: apiKey, json: { name: "cy" } });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("name: this account already has a freelancer named cy");
    const cy = first.body.freelancer;
    const defaultProfile = cy.profiles.find((p: { type: string }) => p.type === "default");
    const keepDefault = await t!.request("DELETE", `/api/v1/freelancers/${cy.id}/profiles/${defaultProfile.profileId}`, { key: apiKey });
    expect(keepDefault.status).toBe(400);
    expect(keepDefault.body.error).toContain("profileId");
    const own = (await listed(apiKey))[0]!;
    const keepOwn = await t!.request("DELETE", `/api/v1/freelancers/${own.id}`, { key: apiKey });
    expect(keepOwn.status).toBe(400);
    expect(keepOwn.body.error).toContain("freelancerId");
    const stranger = await t!.request("PATCH", "/api/v1/freelancers/~01aaaaaaaaaaaaaaaa", { key: apiKey, json: { name: "X" } });
    expect(stranger.status).toBe(404);
    expect((await listed(apiKey)).map((f) => f.name).sort()).toEqual([own.name, "Cy"].sort());
  });

  test("another account's freelancer is not found", async () => {
    const { apiKey } = await agency();
    const other = await t!.account({ kind: "agency", name: "Other" });
    const theirs = await t!.request("POST", "/api/v1/freelancers", { key: other.apiKey, json: { name: "Theirs" } });
    const res = await t!.request("DELETE", `/api/v1/freelancers/${theirs.body.freelancer.id}`, { key: apiKey });
    expect(res.status).toBe(404);
  });

  test("removing a freelancer with applications in flight or held is a 409 naming the count; sent ones do not block", async () => {
    const { apiKey, accountId } = await agency();
    const bo = (await t!.request("POST", "/api/v1/freelancers", { key: apiKey, json: { name: "Bo" } })).body.freelancer;
    await insertSentApplication(t!, accountId, await job("One"), { freelancerId: bo.id, status: "processing", processedAtTs: null });
    await insertSentApplication(t!, accountId, await job("Two"), { freelancerId: bo.id, status: "processing", processedAtTs: null, heldReason: "draft" });
    await insertSentApplication(t!, accountId, await job("Three"), { freelancerId: bo.id });
    const res = await t!.request("DELETE", `/api/v1/freelancers/${bo.id}`, { key: apiKey });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain("Bo has 2 applications in flight or waiting for approval");
    expect((await listed(apiKey)).map((f) => f.id)).toContain(bo.id);
  });

  test("a role without the freelancers permission is refused (403); a viewer still reads the roster", async () => {
    const { accountId } = await agency();
    const keyOf = async (role: "bidder" | "viewer") => {
      const { member } = await members.createMember(t!.deps, { accountId, email: `${role}@example.com`, role, by: null });
      return (await accounts.createKey(t!.deps, accountId, `${role} key`, { memberId: member.id, role })).apiKey;
    };
    const bidder = await keyOf("bidder");
    const res = await t!.request("POST", "/api/v1/freelancers", { key: bidder, json: { name: "Nope" } });
    expect(res.status).toBe(403);
    expect(res.body.error).toContain('"freelancers"');
    expect((await t!.request("GET", "/api/auto-apply-v2/freelancers", { key: await keyOf("viewer") })).status).toBe(200);
  });

  test("on the companion driver the roster is the marketplace's: every change is a 409 that says so", async () => {
    const { apiKey, accountId } = await agency();
    await accounts.setMarketplaceDriver(t!.deps, accountId, "companion");
    const expected = "freelancers come from the marketplace on the companion driver; change them there";
    for (const [method, path, json] of [
      ["POST", "/api/v1/freelancers", { name: "Bo" }],
      ["PATCH", "/api/v1/freelancers/~01aaaaaaaaaaaaaaaa", { name: "Bo" }],
      ["DELETE", "/api/v1/freelancers/~01aaaaaaaaaaaaaaaa", undefined],
      ["POST", "/api/v1/freelancers/~01aaaaaaaaaaaaaaaa/profiles", { name: "P" }],
    ] as const) {
      const res = await t!.request(method, path, { key: apiKey, json });
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(409);
      expect(res.body.error).toBe(expected);
    }
  });
});
