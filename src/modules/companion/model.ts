import { t } from "elysia";

export const PAIR_PATH = "/api/v1/companion/pair";
/** Where a companion whose key was refused learns why: the key it presents is still its only credential. */
export const PAIR_STATE_PATH = "/api/v1/companion/pair/state";

export const PairBody = t.Object(
  { code: t.String({ minLength: 1, maxLength: 64, description: "The one-time code the dashboard's browser companion page shows." }) },
  { title: "CompanionPairRequest" },
);

export const PairResult = t.Object(
  {
    accountId: t.String(),
    keyId: t.String({ description: 'The new key\'s id (labelled "browser companion"; revoke it on the keys page or with `jobpilot key revoke`).' }),
    apiKey: t.String({ description: "The companion's own API key, shown once." }),
  },
  { title: "CompanionPairResult" },
);

/**
 * What the dashboard gives the person to paste into the extension's options page: the code and this server's
 * public origin in one line (`CODE@ORIGIN`), so one paste pairs (extension/src/pairing.ts reads it back).
 */
export const pairingText = (code: string, serverOrigin: string) => `${code}@${serverOrigin}`;

export const CompanionKeyState = t.Object(
  {
    state: t.Union([t.Literal("active"), t.Literal("replaced"), t.Literal("revoked")], {
      description:
        "active: the key works. replaced: the account paired a browser companion since, which revoked this key. revoked: revoked otherwise (unpaired, or on the keys page).",
    }),
  },
  { title: "CompanionKeyState" },
);
