import { ACCOUNT_KINDS } from "../db/enums";
import { isOneOf } from "../lib/one-of";
import { MARKETPLACE_DRIVERS } from "../marketplace/driver";
import { driverNameFor } from "../modules/accounts/drivers";
import * as accounts from "../modules/accounts/service";
import { BUCKETS } from "../http/rate-limit-table";
import { intFlag, requireString, UsageError, type Command } from "./command";
import { printJson, table, withDeps, formatTs } from "./db";

export const accountCreate: Command = {
  name: "account create",
  summary: "Create an account and its first API key. The key is printed once; store it.",
  usage: "jobpilot account create --name NAME [--kind solo|agency] [--credits N] [--json]",
  options: {
    name: { type: "string", value: "NAME", description: "Account name" },
    kind: { type: "string", value: "KIND", description: "solo (default) or agency" },
    credits: { type: "string", value: "N", description: "Initial auto-apply credits (default 0)" },
    json: { type: "boolean", description: 'Print exactly {"accountId": "...", "apiKey": "..."}' },
  },
  async run(ctx) {
    const name = requireString(ctx, "name");
    const kind = (ctx.values.kind as string | undefined) ?? "solo";
    if (!isOneOf(ACCOUNT_KINDS, kind)) throw new UsageError(`--kind must be ${ACCOUNT_KINDS.join(" or ")}, got '${kind}'`);
    const credits = intFlag(ctx, "credits") ?? 0;
    return withDeps(ctx, async (deps) => {
      const created = await accounts.createAccount(deps, { name, kind, credits });
      if (ctx.values.json) printJson(ctx, { accountId: created.account.id, apiKey: created.apiKey });
      else {
        ctx.io.stdout(
          `Created ${kind} account "${created.account.name}" (${created.account.id}) with ${created.account.credits} credits.\n` +
            `API key (shown once, store it now): ${created.apiKey}\n`,
        );
      }
      return 0;
    });
  },
};

export const accountList: Command = {
  name: "account list",
  summary: "List accounts with their credits and active key counts.",
  usage: "jobpilot account list [--json]",
  options: { json: { type: "boolean", description: "Print a JSON array" } },
  run(ctx) {
    return withDeps(ctx, async (deps) => {
      const list = await accounts.listAccounts(deps);
      if (ctx.values.json) printJson(ctx, list);
      else if (list.length === 0) ctx.io.stdout("No accounts yet. Create one with: jobpilot account create --name NAME\n");
      else {
        ctx.io.stdout(
          table([
            ["ID", "NAME", "KIND", "CREDITS", "KEYS", "LIMITS", "CREATED"],
            ...list.map((a) => [
              a.id,
              a.name,
              a.kind,
              String(a.credits),
              String(a.activeKeys),
              a.rateLimitMultiplier === 1 && Object.keys(a.rateLimitOverrides).length === 0
                ? "default"
                : `x${a.rateLimitMultiplier}${Object.keys(a.rateLimitOverrides).length ? "+overrides" : ""}`,
              formatTs(a.createdAtTs),
            ]),
          ]),
        );
      }
      return 0;
    });
  },
};

/** A ceiling flag: a whole number, `default` (null: the server's), or not given (undefined). */
function ceilingFlag(ctx: Parameters<Command["run"]>[0], name: string): number | null | undefined {
  const raw = ctx.values[name] as string | undefined;
  if (raw === undefined) return undefined;
  if (raw === "default") return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  throw new UsageError(`--${name} must be a whole number or default, got '${raw}'`);
}

export const accountLimits: Command = {
  name: "account limits",
  summary:
    "Raise (or lower) an account's limits: rate limits (a multiplier over the default table, exact per-window overrides) and ceilings (feeds, API keys, prompt length).",
  usage:
    "jobpilot account limits --account ID [--multiplier X] [--set BUCKET.WINDOW=N ...] [--clear] [--ai-scoring N|unlimited] [--feeds N|default] [--api-keys N|default] [--prompt-chars N|default] [--json]",
  details: `Buckets: ${BUCKETS.join(", ")}. Windows: minute, day. Example: --set apply.day=5000 --multiplier 2. Ceilings default to JOBPILOT_MAX_FEEDS_PER_ACCOUNT, JOBPILOT_MAX_API_KEYS_PER_ACCOUNT and JOBPILOT_MAX_PROMPT_CHARS; a lower ceiling removes nothing, the account only cannot add more.`,
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    multiplier: { type: "string", value: "X", description: "Multiply every limit by X (e.g. 2 or 0.5)" },
    set: { type: "string", value: "B.W=N", multiple: true, description: "Exact limit for one bucket window, e.g. apply.minute=120" },
    clear: { type: "boolean", description: "Back to the default table (before --multiplier/--set)" },
    "ai-scoring": { type: "string", value: "N", description: "AI scoring calls allowed per calendar month, or unlimited (default)" },
    feeds: { type: "string", value: "N", description: "Most feeds the account may have, or default (the server's)" },
    "api-keys": { type: "string", value: "N", description: "Most active API keys the account may have, or default" },
    "prompt-chars": { type: "string", value: "N", description: "Longest feed prompt in characters (up to 100000), or default" },
    json: { type: "boolean", description: "Print the account as JSON" },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    const raw = ctx.values.multiplier as string | undefined;
    const multiplier = raw === undefined ? undefined : Number(raw);
    if (raw !== undefined && !Number.isFinite(multiplier)) throw new UsageError(`--multiplier must be a number, got '${raw}'`);
    const overrides: Record<string, number> = {};
    for (const item of (ctx.values.set as string[] | undefined) ?? []) {
      const m = /^([\w]+\.[\w]+)=(\d+)$/.exec(item);
      if (!m) throw new UsageError(`--set takes BUCKET.WINDOW=N, got '${item}'`);
      overrides[m[1]!] = Number(m[2]);
    }
    const aiRaw = ctx.values["ai-scoring"] as string | undefined;
    let aiScoring: number | null | undefined;
    if (aiRaw !== undefined) {
      if (aiRaw === "unlimited") aiScoring = null;
      else if (/^\d+$/.test(aiRaw)) aiScoring = Number(aiRaw);
      else throw new UsageError(`--ai-scoring must be a whole number or unlimited, got '${aiRaw}'`);
    }
    const ceilings = { feeds: ceilingFlag(ctx, "feeds"), apiKeys: ceilingFlag(ctx, "api-keys"), promptChars: ceilingFlag(ctx, "prompt-chars") };
    const setsCeiling = Object.values(ceilings).some((v) => v !== undefined);
    if (multiplier === undefined && Object.keys(overrides).length === 0 && !ctx.values.clear && aiRaw === undefined && !setsCeiling) {
      throw new UsageError("give --multiplier, --set, --clear or --ai-scoring (or a ceiling: --feeds, --api-keys, --prompt-chars)");
    }
    return withDeps(ctx, async (deps) => {
      if (ctx.values.clear) await accounts.setRateLimits(deps, accountId, { clear: true });
      if (aiScoring !== undefined) await accounts.setAiScoringAllowance(deps, accountId, aiScoring);
      if (setsCeiling) await accounts.setCeilings(deps, accountId, ceilings);
      const account = await accounts.setRateLimits(deps, accountId, { multiplier, overrides });
      if (ctx.values.json) printJson(ctx, account);
      else {
        const inForce = await accounts.ceilingsOf(deps, accountId);
        const mark = (own: number | null) => (own === null ? " (server default)" : "");
        ctx.io.stdout(
          `Limits of ${account.id}: multiplier ${account.rateLimitMultiplier}, overrides ${JSON.stringify(account.rateLimitOverrides)}, AI scoring ${account.aiScoringAllowance ?? "unlimited"} per month\n` +
            `Ceilings: feeds ${inForce.feeds}${mark(account.maxFeeds)}, API keys ${inForce.apiKeys}${mark(account.maxApiKeys)}, prompts ${inForce.promptChars} characters${mark(account.maxPromptChars)}\n`,
        );
      }
      return 0;
    });
  },
};

export const creditsGrant: Command = {
  name: "credits grant",
  summary: "Add auto-apply credits to an account (a negative amount corrects a balance; it never goes below 0).",
  usage: "jobpilot credits grant --account ID --amount N [--note TEXT] [--json]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    amount: { type: "string", value: "N", description: "Whole number of credits, may be negative" },
    note: { type: "string", value: "TEXT", description: "Why (kept in the credit ledger)" },
    json: { type: "boolean", description: 'Print {"accountId", "balance"}' },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    const amount = intFlag(ctx, "amount", { allowNegative: true });
    if (amount === undefined) throw new UsageError("--amount is required");
    return withDeps(ctx, async (deps) => {
      const { balance } = await accounts.grantCredits(deps, accountId, amount, ctx.values.note as string | undefined);
      if (ctx.values.json) printJson(ctx, { accountId, balance });
      else ctx.io.stdout(`${amount > 0 ? "Granted" : "Removed"} ${Math.abs(amount)} credits; balance is now ${balance}.\n`);
      return 0;
    });
  },
};

export const accountDriver: Command = {
  name: "account driver",
  summary:
    "Choose how an account's proposals reach the marketplace: sandbox (simulated), bridge (your own submitter), companion (the browser companion) or default.",
  usage: "jobpilot account driver --account ID --driver sandbox|bridge|companion|default [--json]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    driver: { type: "string", value: "NAME", description: "sandbox, bridge, companion, or default (JOBPILOT_MARKETPLACE_DRIVER, else companion when paired)" },
    json: { type: "boolean", description: "Print the account as JSON" },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    const driver = requireString(ctx, "driver");
    if (driver !== "default" && !isOneOf(MARKETPLACE_DRIVERS, driver)) {
      throw new UsageError(`--driver must be ${MARKETPLACE_DRIVERS.join(", ")} or default, got '${driver}'`);
    }
    return withDeps(ctx, async (deps) => {
      const account = await accounts.setMarketplaceDriver(deps, accountId, driver === "default" ? null : driver);
      if (ctx.values.json) printJson(ctx, account);
      else ctx.io.stdout(`Account ${account.id} applies through ${account.marketplaceDriver ?? `the default (${await driverNameFor(deps, account.id)})`}.\n`);
      return 0;
    });
  },
};
