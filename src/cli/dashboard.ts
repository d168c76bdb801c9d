import { createSignInLink } from "../modules/dashboard/service";
import { SIGN_IN_LINK_MS } from "../modules/dashboard/model";
import { requireString, type Command } from "./command";
import { formatTs, withDeps } from "./db";

export const dashboardLink: Command = {
  name: "dashboard link",
  summary: "Print a one-time link that signs a browser into an account's web dashboard (valid 15 minutes).",
  usage: "jobpilot dashboard link --account ID [--base-url URL]",
  options: {
    account: { type: "string", value: "ID", description: "Account id" },
    "base-url": { type: "string", value: "URL", description: "Where browsers reach the server, e.g. https://jobs.example.com (default http://HOST:PORT)" },
  },
  run(ctx) {
    const accountId = requireString(ctx, "account");
    return withDeps(ctx, (deps) => {
      const { token, expiresAtTs } = createSignInLink(deps, accountId);
      const base = typeof ctx.values["base-url"] === "string" ? ctx.values["base-url"].replace(/\/+$/, "") : defaultBaseUrl(deps.config.host, deps.config.port);
      ctx.io.stdout(`${base}/dashboard/link/${token}\n`);
      ctx.io.stderr(`Valid once, for ${SIGN_IN_LINK_MS / 60_000} minutes (until ${formatTs(expiresAtTs)}).\n`);
      return 0;
    });
  },
};

/** A wildcard listen address is not somewhere a browser can go; point at this machine instead. */
function defaultBaseUrl(host: string, port: number): string {
  const name = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
