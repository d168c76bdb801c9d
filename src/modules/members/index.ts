import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { routePolicy, type RoutePolicy } from "../../http/route-policy";
import { errorResponses } from "../../http/schemas";
import { authContext } from "../accounts/auth-context";
import { AccountView, KeyView } from "../accounts/model";
import { dashboardBase, inviteAndSend } from "./invite-mail";
import { CreatedMemberKey, CreateMemberKeyBody, Invited, InviteBody, KeyParams, MemberParams, MemberSchema, Removed, RoleBody, TeamBody } from "./model";
import * as members from "./service";

const tags = ["Members"];
const read: RoutePolicy = { rateLimit: "default", permission: "read" };
/** Inviting, changing and removing members, and the team setting: owners only. */
const manage: RoutePolicy = { rateLimit: "default", permission: "members" };
/** Listing, creating and revoking keys: owners and admins (a key carries at most its creator's role). */
const keys: RoutePolicy = { rateLimit: "default", permission: "keys" };

/** The team of the calling key's account: members, their roles, API keys per member, and the team setting (docs/members.md). */
export function membersRoutes(deps: Deps) {
  return new Elysia()
    .use(authContext)
    .use(routePolicy)
    .get("/api/v1/members", async ({ auth }) => ({ members: await members.listTeam(deps, auth) }), {
      policy: read,
      response: { 200: t.Object({ members: t.Array(MemberSchema) }), ...errorResponses(401, 403, 429, 500) },
      detail: {
        tags,
        operationId: "listMembers",
        summary: "The account's members",
        description: "Everyone of the account who has not been removed, oldest first, with their role and whether they have set a password yet.",
      },
    })
    .post(
      "/api/v1/members",
      async ({ auth, body, request, set }) => {
        const invited = await inviteAndSend(deps, auth, body, dashboardBase(deps.config.publicUrl, request));
        set.status = 201;
        return invited;
      },
      {
        policy: manage,
        body: InviteBody,
        response: { 201: Invited, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "inviteMember",
          summary: "Invite a member",
          description:
            "Adds a member with a one-time link (valid 7 days) that sets their password. When the account has an e-mail channel, the link is e-mailed to them through it (`emailed: true`, `inviteUrl` null); otherwise `inviteUrl` is for you to pass on. Owners only; nobody invites above their own role (403 naming `role`). An address already a member anywhere on this server is a 409.",
        },
      },
    )
    .patch("/api/v1/members/:id", async ({ auth, params, body }) => ({ member: await members.changeRole(deps, auth, params.id, body.role) }), {
      policy: manage,
      params: MemberParams,
      body: RoleBody,
      response: { 200: t.Object({ member: MemberSchema }), ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "changeMemberRole",
        summary: "Change a member's role",
        description:
          "Owners only. Acts at once: the member's sessions and keys work with the new role from their next request (on PostgreSQL within a second on every node), since a key never acts above its member's current role. The account's last owner cannot be demoted (400 naming `role`).",
      },
    })
    .delete("/api/v1/members/:id", ({ auth, params }) => members.removeMember(deps, auth, params.id), {
      policy: manage,
      params: MemberParams,
      response: { 200: Removed, ...errorResponses(400, 401, 403, 404, 429, 500) },
      detail: {
        tags,
        operationId: "removeMember",
        summary: "Remove a member",
        description:
          "Owners only. Their API keys are revoked in the same transaction and their dashboard sessions end at their next request. The account's last owner cannot be removed (400 naming `role`). Another account's member is a 404.",
      },
    })
    .get("/api/v1/keys", async ({ auth }) => ({ keys: await members.listKeys(deps, auth) }), {
      policy: keys,
      response: { 200: t.Object({ keys: t.Array(KeyView) }), ...errorResponses(401, 403, 429, 500) },
      detail: {
        tags,
        operationId: "listMemberKeys",
        summary: "The account's API keys",
        description: "Every key with its label, prefix, last use, the member who made it and its role; never the keys themselves. Owners and admins.",
      },
    })
    .post(
      "/api/v1/keys",
      async ({ auth, body, set }) => {
        const created = await members.createKey(deps, auth, body);
        set.status = 201;
        return created;
      },
      {
        policy: keys,
        body: CreateMemberKeyBody,
        response: { 201: CreatedMemberKey, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500) },
        detail: {
          tags,
          operationId: "createMemberKey",
          summary: "Create an API key (shown once)",
          description:
            "The key acts as the calling member, with their role or a lower one given as `role` (a higher one is a 403 naming `role`), and never above the member's current role. 409 when the account already has as many active keys as it may.",
        },
      },
    )
    .delete("/api/v1/keys/:id", ({ auth, params }) => members.revokeKey(deps, auth, params.id), {
      policy: keys,
      params: KeyParams,
      response: { 200: t.Object({ key: KeyView, alreadyRevoked: t.Boolean() }), ...errorResponses(401, 403, 404, 429, 500) },
      detail: {
        tags,
        operationId: "revokeMemberKey",
        summary: "Revoke an API key",
        description:
          "Refused from the next request on. Owners revoke any key of the account; admins only the keys they made (403 otherwise). Another account's key is a 404; revoking a revoked key answers it again with alreadyRevoked true.",
      },
    })
    .put("/api/v1/account/team", ({ auth, body }) => members.setBiddersMaySend(deps, auth, body.biddersMaySend), {
      policy: manage,
      body: TeamBody,
      response: { 200: AccountView, ...errorResponses(400, 401, 403, 413, 415, 429, 500) },
      detail: {
        tags,
        operationId: "setTeamSettings",
        summary: "The team's settings",
        description: "Owners only. `biddersMaySend`: whether members with the bidder role may send a proposal without an owner's or admin's approval.",
      },
    });
}
