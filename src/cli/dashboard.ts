import { createSignInLink } from "../modules/dashboard/service";
import { SIGN_IN_LINK_MS } from "../modules/dashboard/model";
import { browserBaseUrl, LISTEN_OPTIONS, requireString, UsageError, type Command } from "./command";
import { formatTs, withDeps } from "./db";

export const dashboardLink: Command = {
  name: "dashboard link",
  summary: "Print a one-time link that signs a browser into an account's web dashboard (valid 15 minutes).",
  usage: "jobpilot dashboard link --account ID [--base-url URL | --port N --host ADDR]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    "base-url": {
      type: "string",
      value: "URL",
      description: "Where browsers reach the server, e.g. https://jobs.example.com (default http://HOST:PORT, as `serve` listens)",
    },
    // The same settings `serve` listens with (env PORT and HOST, or these flags), so the link points at the running server.
    ...LISTEN_OPTIONS,
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    const baseUrl = ctx.values["base-url"];
    if (typeof baseUrl !== "string" && ctx.config().port === 0) {
      throw new UsageError(
        "the server's port is 0 (any free port), so only the server knows it: give --port N with the port its banner shows, or --base-url URL",
      );
    }
    return withDeps(ctx, async (deps) => {
      const { token, expiresAtTs } = await createSignInLink(deps, accountId);
      const base = typeof baseUrl === "string" ? baseUrl.replace(/\/+$/, "") : browserBaseUrl(deps.config.host, deps.config.port);
      ctx.io.stdout(`${base}/dashboard/link/${token}\n`);
      ctx.io.stderr(`Valid once, for ${SIGN_IN_LINK_MS / 60_000} minutes (until ${formatTs(expiresAtTs)}).\n`);
      return 0;
    });
  },
};
