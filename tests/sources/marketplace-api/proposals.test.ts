import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { SourceError } from "../../../src/sources/source";
import { createMarketplaceClient } from "../../../src/sources/marketplace-api/client";
import { readEngagement, readEngagementByJob } from "../../../src/sources/marketplace-api/proposals";
import { saveTokens } from "../../../src/sources/marketplace-api/token-store";
import { memoryVault } from "../../fixtures/marketplace-api/memory-vault";
import { startFakeMarketplaceApi, type ApiRequest, type Reply } from "../../fixtures/marketplace-api/fake-api";
import scopeError from "../../fixtures/marketplace-api/graphql-missing-scope.json";

const KEY = "proposals-test-secret-key-0123456789";
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const vault = memoryVault();
const api = startFakeMarketplaceApi();
afterAll(async () => {
  await api.close();
});
beforeEach(async () => {
  await saveTokens(vault, KEY, { accessToken: "access", refreshToken: "refresh", expiresAt: NOW + 86_400_000 }, NOW);
  api.apiRequests.splice(0);
});

const client = () =>
  createMarketplaceClient({
    apiUrl: api.apiUrl,
    tokenUrl: api.tokenUrl,
    clientId: "c",
    clientSecret: "s",
    tokenVault: vault,
    secretKey: KEY,
    now: () => NOW,
    minIntervalMs: 0,
  });

/** A vendorProposals node as documented (§2.3). */
const proposal = (id: string, viewed: boolean, status: string) => ({
  id,
  viewedByClient: viewed,
  status: { status },
  marketplaceJobPosting: { id: `job-${id}` },
});

function serve(byStatus: Record<string, Record<string, { nodes: unknown[]; next: string | null }>>, rooms: Record<string, Reply>) {
  api.onApi((req: ApiRequest) => {
    const v = req.body.variables;
    if (req.body.query.includes("vendorProposals")) {
      const pageOf = byStatus[v.filter.status_eq]?.[v.pagination.after ?? ""] ?? { nodes: [], next: null };
      return {
        json: {
          data: {
            vendorProposals: {
              totalCount: pageOf.nodes.length,
              edges: pageOf.nodes.map((node) => ({ cursor: "x", node })),
              pageInfo: { endCursor: pageOf.next, hasNextPage: pageOf.next !== null },
            },
          },
        },
      };
    }
    return rooms[v.vendorProposalId] ?? { json: { data: { proposalRoom: null } } };
  });
}

describe("readEngagement", () => {
  test("viewed from viewedByClient, replied when a proposal room exists", async () => {
    serve(
      {
        Pending: {
          "": { nodes: [proposal("p1", true, "Pending"), proposal("other", true, "Pending")], next: "c1" },
          c1: { nodes: [proposal("p2", false, "Pending")], next: null },
        },
        Activated: { "": { nodes: [proposal("p3", true, "Activated")], next: null } },
      },
      {
        p3: { json: { data: { proposalRoom: { id: "room-9", roomName: "Interview", createdAtDateTime: "2026-01-14T10:00:00Z" } } } },
        p2: { json: { data: { proposalRoom: null }, errors: [{ message: "Room not found" }] } },
      },
    );
    const result = await readEngagement(client(), ["p1", "p2", "p3", "missing"]);
    expect(Object.fromEntries(result)).toEqual({
      p1: { proposalId: "p1", viewed: true, replied: false, status: "Pending", jobPostingId: "job-p1" },
      p2: { proposalId: "p2", viewed: false, replied: false, status: "Pending", jobPostingId: "job-p2" },
      p3: { proposalId: "p3", viewed: true, replied: true, status: "Activated", jobPostingId: "job-p3" },
    });
    const calls = api.apiRequests.filter((r) => r.body.query.includes("vendorProposals")).map((r) => r.body.variables);
    expect(calls[0]).toEqual({
      filter: { status_eq: "Pending" },
      sortAttribute: { field: "CREATEDDATETIME", sortOrder: "DESC" },
      pagination: { first: 50 },
    });
    expect(calls[1]!.pagination).toEqual({ first: 50, after: "c1" });
  });

  test("stops listing once every id is found", async () => {
    serve({ Pending: { "": { nodes: [proposal("p1", false, "Pending")], next: null } } }, {});
    await readEngagement(client(), ["p1"]);
    const listCalls = api.apiRequests.filter((r) => r.body.query.includes("vendorProposals"));
    expect(listCalls).toHaveLength(1);
  });

  test("no ids → no requests", async () => {
    expect((await readEngagement(client(), [])).size).toBe(0);
    expect(api.apiRequests).toHaveLength(0);
  });

  test("a key without the proposals scope is a SourceError, not 'nothing viewed'", async () => {
    api.onApi(() => ({ json: scopeError }));
    await expect(readEngagement(client(), ["p1"])).rejects.toBeInstanceOf(SourceError);
  });

  test("by job: proposals are matched to archived jobs through their posting id (~02 + id), other jobs are left out", async () => {
    const node = (id: string, jobId: string, viewed: boolean) => ({
      id,
      viewedByClient: viewed,
      status: { status: "Pending" },
      marketplaceJobPosting: { id: jobId },
    });
    serve(
      {
        Pending: {
          "": {
            nodes: [node("p7", "1885440178875069989", true), node("p8", "1885440178875069990", false), node("p9", "1999999999999999999", true)],
            next: null,
          },
        },
      },
      { p7: { json: { data: { proposalRoom: { id: "room-1" } } } }, p8: { json: { data: { proposalRoom: null } } } },
    );
    const result = await readEngagementByJob(client(), ["~021885440178875069989", "~021885440178875069990", "~020000000000000000001"]);
    expect(Object.fromEntries(result)).toEqual({
      "~021885440178875069989": { proposalId: "p7", viewed: true, replied: true, status: "Pending", jobPostingId: "1885440178875069989" },
      "~021885440178875069990": { proposalId: "p8", viewed: false, replied: false, status: "Pending", jobPostingId: "1885440178875069990" },
    });
    // The room of a proposal for a job we did not ask about is never read.
    expect(api.apiRequests.some((r) => r.body.variables?.vendorProposalId === "p9")).toBe(false);
  });
});
