import { t } from "elysia";
import { MEMBER_ROLES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";
import { KeyView } from "../accounts/model";

export const RoleSchema = literalUnion(MEMBER_ROLES, { description: "owner, admin, bidder or viewer (docs/members.md lists what each may do)" });

export const MemberSchema = t.Object(
  {
    id: t.String({ format: "uuid" }),
    accountId: t.String({ format: "uuid" }),
    email: t.String({ description: "Their sign-in name, lower-cased" }),
    name: t.String({ description: "How the dashboard and the audit log name them" }),
    role: RoleSchema,
    hasPassword: t.Boolean({ description: "false until they have used their invitation link" }),
    createdAt: t.Integer({ description: "Unix ms" }),
  },
  { title: "Member" },
);

export const MemberParams = t.Object({ id: t.String({ maxLength: 100, description: "The member's id" }) });
export const KeyParams = t.Object({ id: t.String({ maxLength: 100, description: "The key's id" }) });

export const InviteBody = t.Object({
  email: t.String({ maxLength: 254, description: "The invitee's e-mail address: their sign-in name" }),
  name: t.Optional(t.String({ maxLength: 100, description: "How they are shown (default: the part of the address before @)" })),
  role: literalUnion(MEMBER_ROLES, { description: "Their role: at most the inviter's" }),
});

export const Invited = t.Object({
  member: MemberSchema,
  inviteUrl: t.Nullable(t.String({ description: "The one-time link that sets their password, for you to pass on; null when it was e-mailed to them" })),
  expiresAt: t.Integer({ description: "Unix ms: when the link stops working (7 days)" }),
  emailed: t.Boolean({ description: "true: the account's e-mail channel sent the link to the invitee" }),
});

export const RoleBody = t.Object({ role: literalUnion(MEMBER_ROLES, { description: "The new role: at most the caller's" }) });

export const Removed = t.Object({
  member: MemberSchema,
  revokedKeys: t.Integer({ description: "How many of the member's API keys were revoked with them" }),
});

export const CreateMemberKeyBody = t.Object({
  label: t.Optional(t.String({ maxLength: 200, description: "What the key is for" })),
  role: t.Optional(literalUnion(MEMBER_ROLES, { description: "The key's role: the caller's by default, never above it" })),
});

export const CreatedMemberKey = t.Object({ key: KeyView, apiKey: t.String({ description: "Shown once" }) });

export const TeamBody = t.Object({
  biddersMaySend: t.Boolean({ description: "Whether members with the bidder role may send a proposal without an approval" }),
});
