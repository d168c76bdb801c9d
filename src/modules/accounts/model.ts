import { t } from "elysia";
import { ACCOUNT_KINDS, MEMBER_ROLES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";

export const AccountKind = literalUnion(ACCOUNT_KINDS);
export const MemberRoleSchema = literalUnion(MEMBER_ROLES, { description: "What the key may do (docs/members.md): at most its member's current role" });

export const AccountView = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String(),
    kind: AccountKind,
    credits: t.Integer({ description: "Auto-apply credits available (not held by applications in flight)" }),
    creditsHeld: t.Integer({ description: "Credits held by applications being submitted; charged only on success" }),
    marketplaceDriver: t.Nullable(t.String({ description: "sandbox, bridge or companion; null = the server default" })),
    rateLimitMultiplier: t.Number(),
    rateLimitOverrides: t.Record(t.String(), t.Integer()),
    aiScoringAllowance: t.Nullable(t.Integer({ description: "AI scoring calls per calendar month; null = unlimited" })),
    maxFeeds: t.Nullable(t.Integer({ description: "Most feeds this account may have; null = the server default (JOBPILOT_MAX_FEEDS_PER_ACCOUNT)" })),
    maxApiKeys: t.Nullable(t.Integer({ description: "Most active API keys; null = the server default (JOBPILOT_MAX_API_KEYS_PER_ACCOUNT)" })),
    maxPromptChars: t.Nullable(t.Integer({ description: "Longest feed prompt in characters; null = the server default (JOBPILOT_MAX_PROMPT_CHARS)" })),
    biddersMaySend: t.Boolean({ description: "Whether members with the bidder role may send without an approval (docs/members.md)" }),
    createdAtTs: t.Integer({ description: "Unix ms" }),
  },
  { title: "Account" },
);
export type AccountView = typeof AccountView.static;

export const KeyView = t.Object(
  {
    id: t.String({ format: "uuid" }),
    accountId: t.String({ format: "uuid" }),
    label: t.Nullable(t.String()),
    prefix: t.String({ description: "First characters of the key, to tell keys apart; the key itself is never shown again" }),
    createdAtTs: t.Integer(),
    lastUsedAtTs: t.Nullable(t.Integer()),
    revokedAtTs: t.Nullable(t.Integer()),
    memberId: t.Nullable(t.String({ description: "The member who made the key; null: made by the CLI or /admin (acts as the owner)" })),
    role: MemberRoleSchema,
  },
  { title: "ApiKey" },
);
export type KeyView = typeof KeyView.static;

/** GET /api/v1/account (extension): who the key belongs to. */
export const WhoAmI = t.Object(
  { account: AccountView, key: t.Object({ id: t.String(), label: t.Nullable(t.String()), prefix: t.String() }) },
  { title: "AccountInfo" },
);

export const CreateAccountBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  kind: t.Optional(AccountKind),
  credits: t.Optional(t.Integer({ minimum: 0 })),
});

export const CreatedAccount = t.Object({ account: AccountView, key: KeyView, apiKey: t.String({ description: "Shown once" }) });

export const CreateKeyBody = t.Object({ label: t.Optional(t.String({ maxLength: 200 })) });
export const CreatedKey = t.Object({ key: KeyView, apiKey: t.String({ description: "Shown once" }) });

export const GrantCreditsBody = t.Object({
  amount: t.Integer({ description: "May be negative to correct a balance; never below 0" }),
  note: t.Optional(t.String({ maxLength: 500 })),
});

/**
 * The key id of a dashboard session opened without an API key (a password, a sign-in link): a name for its rate
 * limits, never a key. The audit log records no key for it.
 */
export const SESSION_KEY_ID = "dashboard-link";
