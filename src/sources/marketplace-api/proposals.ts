/**
 * Proposal engagement from the official API (docs/reference/marketplace-data.md §2.3): there
 * is no submit mutation, but the reads tell whether the client opened a
 * proposal (`vendorProposals … viewedByClient`) and whether a conversation
 * started (`proposalRoom(vendorProposalId)` exists → replied). The API has no
 * view timestamp, so the caller records when it first saw `viewed: true`, and
 * keeps both flags sticky.
 */
import type { MarketplaceClient } from "./client";
import { ciphertextOf } from "./normalize";

export interface ProposalEngagement {
  /** The marketplace's proposal id. */
  proposalId: string;
  viewed: boolean;
  replied: boolean;
  /** The marketplace's proposal status (Pending, Activated, Hired, Declined…), for outcome tracking. */
  status: string | null;
  /** The job posting's id, to match proposals to applications. */
  jobPostingId: string | null;
}

/** `vendorProposals` takes exactly one status per call, so each is listed in turn. */
const PROPOSAL_STATUSES = ["Pending", "Accepted", "Activated", "Offered", "Hired", "Declined", "Archived", "Withdrawn"] as const;

const VENDOR_PROPOSALS_QUERY = `
query vendorProposals($filter: VendorProposalFilter!, $sortAttribute: VendorProposalSortAttribute!, $pagination: Pagination!) {
  vendorProposals(filter: $filter, sortAttribute: $sortAttribute, pagination: $pagination) {
    totalCount
    edges { node { id viewedByClient status { status } marketplaceJobPosting { id } } }
    pageInfo { endCursor hasNextPage }
  }
}`;

const PROPOSAL_ROOM_QUERY = `
query proposalRoom($vendorProposalId: ID!) {
  proposalRoom(vendorProposalId: $vendorProposalId) { id roomName createdAtDateTime }
}`;

export interface ReadEngagementOptions {
  statuses?: readonly string[];
  pageSize?: number;
  /** Per status; newest first, so old proposals past this are not looked at. */
  maxPagesPerStatus?: number;
}

interface VendorProposalsData {
  vendorProposals?: {
    edges?:
      | { node?: { id?: unknown; viewedByClient?: unknown; status?: { status?: unknown } | null; marketplaceJobPosting?: { id?: unknown } | null } | null }[]
      | null;
    pageInfo?: { endCursor?: string | null; hasNextPage?: boolean | null } | null;
  } | null;
}

/**
 * Engagement for each of `proposalIds` the API lists; ids it does not list
 * (too old, or not this account's) are left out of the map rather than
 * reported as "not viewed".
 */
export async function readEngagement(
  client: MarketplaceClient,
  proposalIds: readonly string[],
  opts: ReadEngagementOptions = {},
): Promise<Map<string, ProposalEngagement>> {
  const wanted = new Set(proposalIds);
  return scanProposals(client, wanted, (proposalId) => (wanted.has(proposalId) ? proposalId : null), opts);
}

/**
 * Engagement keyed by job ciphertext, for proposals jobpilot submitted without
 * learning the marketplace's proposal id: each listed proposal's job posting
 * id is turned into the ciphertext our archive uses (`~02` + id).
 */
export async function readEngagementByJob(
  client: MarketplaceClient,
  jobCiphertexts: readonly string[],
  opts: ReadEngagementOptions = {},
): Promise<Map<string, ProposalEngagement>> {
  const wanted = new Set(jobCiphertexts);
  const byJob = new Map<string, ProposalEngagement>();
  const found = await scanProposals(
    client,
    wanted,
    (_id, jobPostingId) => {
      const ciphertext = jobPostingId === null ? null : ciphertextOf({ id: jobPostingId });
      return ciphertext !== null && wanted.has(ciphertext) ? ciphertext : null;
    },
    opts,
  );
  for (const [key, engagement] of found) byJob.set(key, engagement);
  return byJob;
}

/**
 * Lists the account's proposals status by status, newest first, until every
 * wanted key is found (keyOf maps a proposal to the caller's key, or null to
 * skip it), then asks for each found proposal's conversation room.
 */
async function scanProposals(
  client: MarketplaceClient,
  wanted: ReadonlySet<string>,
  keyOf: (proposalId: string, jobPostingId: string | null) => string | null,
  opts: ReadEngagementOptions,
): Promise<Map<string, ProposalEngagement>> {
  const found = new Map<string, ProposalEngagement>();
  if (wanted.size === 0) return found;
  const pageSize = opts.pageSize ?? 50;
  const maxPages = opts.maxPagesPerStatus ?? 10;

  for (const status of opts.statuses ?? PROPOSAL_STATUSES) {
    let after: string | undefined;
    for (let page = 0; page < maxPages && found.size < wanted.size; page++) {
      const data = await client.query<VendorProposalsData>(VENDOR_PROPOSALS_QUERY, {
        filter: { status_eq: status },
        sortAttribute: { field: "CREATEDDATETIME", sortOrder: "DESC" },
        pagination: after === undefined ? { first: pageSize } : { first: pageSize, after },
      });
      const conn = data.vendorProposals;
      for (const edge of conn?.edges ?? []) {
        const node = edge?.node;
        const id = node?.id === undefined || node.id === null ? undefined : String(node.id);
        if (id === undefined) continue;
        const jobId = node?.marketplaceJobPosting?.id;
        const jobPostingId = jobId === undefined || jobId === null ? null : String(jobId);
        const key = keyOf(id, jobPostingId);
        if (key === null || found.has(key)) continue;
        found.set(key, {
          proposalId: id,
          viewed: node?.viewedByClient === true,
          replied: false,
          status: typeof node?.status?.status === "string" ? node.status.status : status,
          jobPostingId,
        });
      }
      const next = conn?.pageInfo?.endCursor;
      if (conn?.pageInfo?.hasNextPage !== true || typeof next !== "string" || next === "") break;
      after = next;
    }
    if (found.size === wanted.size) break;
  }

  for (const engagement of found.values()) {
    // A missing room comes back as null (or as an error on that field): either way no conversation we can see.
    // Scope refusals still throw from the client, so a key without the scope is reported, not read as "no reply".
    const { data } = await client.request<{ proposalRoom?: { id?: unknown } | null }>(PROPOSAL_ROOM_QUERY, { vendorProposalId: engagement.proposalId });
    const room = data?.proposalRoom;
    engagement.replied = room !== null && room !== undefined && room.id !== null && room.id !== undefined;
  }
  return found;
}
