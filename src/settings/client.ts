/**
 * What a command that talks to a running server (over its HTTP API, as a client) needs: where the server is
 * and the key to call it with. `jobpilot mcp` reads them; the server itself never does.
 * Part of the one list of settings in src/config.ts.
 */
import { Type as T } from "@sinclair/typebox";
import type { Setting } from "./setting";

export const CLIENT_SETTINGS = {
  serverUrl: {
    env: "JOBPILOT_URL",
    flag: "url",
    schema: T.Optional(T.String({ pattern: "^https?://[^\\s]+$" })),
    default: undefined,
    doc: "Client side, read by `jobpilot mcp` only: the base URL of a running server it calls over the HTTP API (e.g. `http://127.0.0.1:3000`, or `https://jobs.example.com` behind a proxy). The server never reads it.",
  },
  serverApiKey: {
    env: "JOBPILOT_API_KEY",
    flag: undefined,
    schema: T.Optional(T.String({ minLength: 1 })),
    default: undefined,
    doc: "Client side, read by `jobpilot mcp` only: the API key it calls with, i.e. the account it acts for (with `--db`, a key in that database). No flag: a command line is visible to every user of the machine.",
  },
} as const satisfies Record<string, Setting>;
