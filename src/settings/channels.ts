/**
 * Notification channels: where the platforms' APIs are. Production never sets these; they exist so tests and
 * benchmarks can point every channel at local fakes (tests/helpers/channel-fakes.ts) with no network.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

/** An http(s) origin with no path, or empty for "none". */
const ORIGIN = "^(https?://[^/?#\\s]+)?$";

export const CHANNEL_SETTINGS = {
  publicUrl: {
    env: "JOBPILOT_PUBLIC_URL",
    flag: undefined,
    schema: T.String({ pattern: "^(https?://[^?#\\s]+)?$" }),
    default: "",
    doc: "Where people reach this server (e.g. `https://jobs.example.com`): channel alerts link to the job's dashboard page there, and the OpenAPI document names it in `servers`. Empty: the address `serve` listens on, as its banner shows it.",
  },
  telegramApiUrl: {
    env: "JOBPILOT_TELEGRAM_API_URL",
    flag: undefined,
    schema: T.String({ pattern: "^https?://[^?#\\s]+[^/?#\\s]$" }),
    default: "https://api.telegram.org",
    doc: "Test-only: base URL of the Telegram Bot API, so tests reach a local fake; channels call `<url>/bot<token>/<method>`. Never set it in production.",
    isTestOnly: true,
  },
  slackWebhookOrigin: {
    env: "JOBPILOT_SLACK_WEBHOOK_ORIGIN",
    flag: undefined,
    schema: T.String({ pattern: ORIGIN }),
    default: "",
    doc: "Test-only: an origin (e.g. `http://127.0.0.1:8081`) whose URLs are accepted as Slack webhook URLs besides `https://hooks.slack.com`.",
    isTestOnly: true,
  },
  discordWebhookOrigin: {
    env: "JOBPILOT_DISCORD_WEBHOOK_ORIGIN",
    flag: undefined,
    schema: T.String({ pattern: ORIGIN }),
    default: "",
    doc: "Test-only: an origin whose `/api/webhooks/<id>/<token>` URLs are accepted as Discord webhook URLs besides `discord.com`.",
    isTestOnly: true,
  },
} as const satisfies Record<string, Setting>;
