import { MEMBER_ROLES, type MemberRole } from "../db/enums";
import { AppError } from "../errors";
import * as accounts from "../modules/accounts/service";
import * as members from "../modules/members/service";
import { browserBaseUrl, LISTEN_OPTIONS, requireString, UsageError, type Command, type CommandContext } from "./command";
import { formatTs, withDeps } from "./db";

const LINK_OPTIONS = {
  "base-url": {
    type: "string",
    value: "URL",
    description: "Where browsers reach the server, e.g. https://jobs.example.com (default JOBPILOT_PUBLIC_URL, else http://HOST:PORT as `serve` listens)",
  },
  // The same settings `serve` listens with, so the link points at the running server (as `dashboard link` does).
  ...LISTEN_OPTIONS,
} as const;

function roleFlag(ctx: CommandContext, fallback: MemberRole): MemberRole {
  const v = ctx.values.role;
  if (v === undefined) return fallback;
  if (typeof v !== "string" || !MEMBER_ROLES.includes(v as MemberRole)) throw new UsageError(`--role must be one of ${MEMBER_ROLES.join(", ")}, got '${v}'`);
  return v as MemberRole;
}

/** The link's origin: --base-url, else the public address, else where `serve` listens (refused when that is port 0). */
function linkBase(ctx: CommandContext): string {
  const flag = ctx.values["base-url"];
  if (typeof flag === "string" && flag !== "") return flag.replace(/\/+$/, "");
  const config = ctx.config();
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, "");
  if (config.port === 0) {
    throw new UsageError(
      "the server's port is 0 (any free port), so only the server knows it: give --port N with the port its banner shows, or --base-url URL",
    );
  }
  return browserBaseUrl(config.host, config.port);
}

function printLink(ctx: CommandContext, base: string, token: string, expiresAtTs: number, what: string): void {
  ctx.io.stdout(`${base}/dashboard/set-password?token=${token}\n`);
  ctx.io.stderr(`${what} Valid once, until ${formatTs(expiresAtTs)}.\n`);
}

/** The members service's 400s name a field ("email: …"); on the command line they name the flag and exit 2. */
function asUsage(err: unknown): never {
  if (err instanceof AppError && err.status === 400) {
    const m = /^(email|name|role): (.*)$/.exec(err.message);
    if (m) throw new UsageError(`--${m[1]} ${m[2]}`);
  }
  throw err;
}

function addMember(name: string, summary: string, fallback: MemberRole): Command {
  return {
    name,
    summary,
    usage: `jobpilot ${name} --account ID --email ADDRESS [--name TEXT] [--role ${MEMBER_ROLES.join("|")}] [--base-url URL | --port N --host ADDR]`,
    options: {
      account: { type: "string", value: "ID", description: "Account id" },
      email: { type: "string", value: "ADDRESS", description: "The member's e-mail address (their sign-in name)" },
      name: { type: "string", value: "TEXT", description: "How the dashboard shows them (default: the part before @)" },
      role: { type: "string", value: "ROLE", description: `${MEMBER_ROLES.join(", ")} (default ${fallback})` },
      ...LINK_OPTIONS,
    },
    run(ctx) {
      const accountId = requireString(ctx, "account");
      const email = requireString(ctx, "email");
      const role = roleFlag(ctx, fallback);
      const base = linkBase(ctx);
      return withDeps(ctx, async (deps) => {
        await accounts.getAccount(deps, accountId);
        const created = await members.createMember(deps, { accountId, email, name: ctx.values.name as string | undefined, role, by: null }).catch(asUsage);
        ctx.io.stderr(`Added ${created.member.email} to account ${accountId} as ${created.member.role} (member ${created.member.id}).\n`);
        printLink(ctx, base, created.token, created.expiresAtTs, "Send them this link to set their password.");
        return 0;
      });
    },
  };
}

export const memberCreate = addMember("member create", "Add a member (default role owner) and print the one-time link that sets their password.", "owner");
export const memberInvite = addMember("member invite", "Invite a member (default role bidder) and print the one-time link that sets their password.", "bidder");

export const memberReset = {
  name: "member reset",
  summary: "Print a one-time link (valid an hour) that sets a new password for the member with this e-mail.",
  usage: "jobpilot member reset --email ADDRESS [--base-url URL | --port N --host ADDR]",
  options: {
    email: { type: "string", value: "ADDRESS", description: "The member's e-mail address" },
    ...LINK_OPTIONS,
  },
  run(ctx) {
    const email = requireString(ctx, "email");
    const base = linkBase(ctx);
    return withDeps(ctx, async (deps) => {
      const link = await members.resetLink(deps, email);
      if (!link) throw new UsageError(`--email: no member has the address ${members.normalizeEmail(email)}`);
      printLink(ctx, base, link.token, link.expiresAtTs, `Reset link for ${link.member.email}.`);
      return 0;
    });
  },
} satisfies Command;
