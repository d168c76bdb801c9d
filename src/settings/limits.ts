/**
 * Per-account ceilings: the defaults `jobpilot account limits` overrides per account.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

/** The longest feed prompt any account may be allowed (the request schema's own bound). */
export const PROMPT_CHARS_HARD_MAX = 100_000;

export const LIMIT_SETTINGS = {
  maxFeedsPerAccount: {
    env: "JOBPILOT_MAX_FEEDS_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 200,
    doc: "Most feeds one account may have; `jobpilot account limits --feeds` sets it per account.",
  },
  maxChannelLinksPerAccount: {
    env: "JOBPILOT_MAX_CHANNEL_LINKS_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 1_000,
    doc: "Most feed–channel links (a feed's channelIds, summed over the account's feeds) one account may have: each link is one more alert per matched job, so this bounds an account's fan-out (see Fair delivery between accounts in docs/alerts.md).",
  },
  maxApiKeysPerAccount: {
    env: "JOBPILOT_MAX_API_KEYS_PER_ACCOUNT",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 50,
    doc: "Most active (unrevoked) API keys one account may have; `jobpilot account limits --api-keys` sets it per account.",
  },
  maxPromptChars: {
    env: "JOBPILOT_MAX_PROMPT_CHARS",
    flag: undefined,
    schema: T.Integer({ minimum: 0, maximum: PROMPT_CHARS_HARD_MAX }),
    default: 20_000,
    doc: "Longest `profilePrompt` and `proposalGenerationPrompt` of a feed, in characters; `jobpilot account limits --prompt-chars` sets it per account, up to 100,000.",
  },
} as const satisfies Record<string, Setting>;
