import * as accounts from "../modules/accounts/service";
import { requireString, type Command } from "./command";
import { formatTs, printJson, table, withDeps } from "./db";

export const keyCreate: Command = {
  name: "key create",
  summary: "Create an API key for an account. It is printed once and stored only as a hash.",
  usage: "jobpilot key create --account ID [--label TEXT] [--json]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    label: { type: "string", value: "TEXT", description: "What the key is for, e.g. production" },
    json: { type: "boolean", description: 'Print {"keyId", "apiKey"}' },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    return withDeps(ctx, async (deps) => {
      const { key, apiKey } = await accounts.createKey(deps, accountId, ctx.values.label as string | undefined);
      if (ctx.values.json) printJson(ctx, { keyId: key.id, apiKey });
      else ctx.io.stdout(`Created key ${key.id}${key.label ? ` (${key.label})` : ""}.\nAPI key (shown once, store it now): ${apiKey}\n`);
      return 0;
    });
  },
};

export const keyList: Command = {
  name: "key list",
  summary: "List an account's API keys (prefix, label, last use, revocation). Keys themselves are never shown again.",
  usage: "jobpilot key list --account ID [--json]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    json: { type: "boolean", description: "Print a JSON array" },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    return withDeps(ctx, async (deps) => {
      const keys = await accounts.listKeys(deps, accountId);
      if (ctx.values.json) printJson(ctx, keys);
      else {
        ctx.io.stdout(
          table([
            ["ID", "PREFIX", "LABEL", "CREATED", "LAST USED", "REVOKED"],
            ...keys.map((k) => [k.id, k.prefix + "…", k.label ?? "-", formatTs(k.createdAtTs), formatTs(k.lastUsedAtTs), formatTs(k.revokedAtTs)]),
          ]),
        );
      }
      return 0;
    });
  },
};

export const keyRevoke: Command = {
  name: "key revoke",
  summary: "Revoke an API key. Requests with it get 401 from then on, even on a running server.",
  usage: "jobpilot key revoke KEY_ID",
  positionals: [{ name: "KEY_ID", required: true }],
  options: {},
  run(ctx) {
    const keyId = ctx.positionals[0]!;
    return withDeps(ctx, async (deps) => {
      const { key, alreadyRevoked } = await accounts.revokeKey(deps, keyId);
      ctx.io.stdout(alreadyRevoked ? `Key ${key.id} was already revoked.\n` : `Revoked key ${key.id}.\n`);
      return 0;
    });
  },
};
