/**
 * Invitations by e-mail: when the account has an e-mail channel, the invitation goes through that channel's SMTP
 * server and sender address, to the invitee (not to the channel's own recipients). Without one, or when sending
 * fails, the link is handed back for the owner to pass on: the answer says which happened.
 */
import type { Db } from "../../db/client";
import type { Clock } from "../../lib/clock";
import { escapeHtml } from "../../lib/html";
import type { EgressPolicy, Resolver } from "../../lib/ssrf";
import type { EmailConfig, EmailMessage } from "../channels/kinds/email";
import { listChannels } from "../channels/repo";
import { sendMessage } from "../channels/send";
import { openChannel } from "../channels/service";
import type { AuthContext } from "../accounts/service";
import { inviteMember, type MemberView } from "./service";

export interface InviteMailDeps {
  db: Db;
  clock: Clock;
  secretKey: string | null;
  egress: EgressPolicy;
  resolve?: Resolver;
  config: { webhookTimeoutMs: number; telegramApiUrl: string };
}

export interface Invitation {
  accountId: string;
  email: string;
  name: string;
  role: string;
  inviterName: string | null;
  url: string;
  expiresAtTs: number;
}

/** The mail itself: who invites, as what, the link, and until when it works. */
export function invitationMessage(inv: Invitation): EmailMessage {
  const who = inv.inviterName ?? "An owner of your team";
  const until = new Date(inv.expiresAtTs).toISOString().slice(0, 16).replace("T", " ");
  const text = [
    `Hello ${inv.name},`,
    `${who} invites you to their jobpilot team as ${inv.role}.`,
    `Choose your password here (the link works once, until ${until} UTC):\n${inv.url}`,
    "If you did not expect this, ignore this mail: nothing happens until the link is used.",
  ].join("\n\n");
  const html = `<!doctype html>\n<html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#222">
<p>Hello ${escapeHtml(inv.name)},</p>
<p>${escapeHtml(who)} invites you to their jobpilot team as <strong>${escapeHtml(inv.role)}</strong>.</p>
<p><a href="${escapeHtml(inv.url)}">Choose your password</a> (the link works once, until ${until} UTC).</p>
<p style="color:#555">If you did not expect this, ignore this mail: nothing happens until the link is used.</p>
</body></html>`;
  return { type: "email", subject: `${who} invites you to jobpilot`, text, html };
}

/**
 * Sends the invitation through the account's first working e-mail channel; true when a server accepted it. Never
 * throws for a channel's failure (the link is then shown instead); the error stays out of the answer, which holds
 * no SMTP detail.
 */
export async function emailInvitation(deps: InviteMailDeps, inv: Invitation): Promise<boolean> {
  const rows = (await listChannels(deps.db, inv.accountId)).filter((c) => c.type === "email");
  for (const row of rows) {
    let config: EmailConfig;
    try {
      config = (await openChannel(deps.secretKey, row)).config as EmailConfig;
    } catch {
      continue;
    }
    const outcome = await sendMessage({ type: "email", config: { ...config, to: inv.email } }, invitationMessage(inv), {
      timeoutMs: deps.config.webhookTimeoutMs,
      settings: { telegramApiUrl: deps.config.telegramApiUrl },
      egress: deps.egress,
      resolve: deps.resolve,
      clock: deps.clock,
    });
    if (outcome.ok) return true;
  }
  return false;
}

/** Where browsers reach the dashboard: JOBPILOT_PUBLIC_URL, else the origin the request came to. */
export function dashboardBase(publicUrl: string | null | undefined, request: Request): string {
  return (publicUrl || new URL(request.url).origin).replace(/\/+$/, "");
}

/**
 * Invites a member (owners) and gets the link to them: e-mailed through the account's e-mail channel when it has
 * one, else returned for the inviter to pass on (and returned anyway when sending failed).
 */
export async function inviteAndSend(
  deps: InviteMailDeps,
  auth: AuthContext,
  input: { email: string; name?: string; role: string },
  baseUrl: string,
): Promise<{ member: MemberView; inviteUrl: string | null; expiresAt: number; emailed: boolean }> {
  const created = await inviteMember(deps, auth, input);
  const url = `${baseUrl}/dashboard/set-password?token=${created.token}`;
  const emailed = await emailInvitation(deps, {
    accountId: auth.accountId,
    email: created.member.email,
    name: created.member.name,
    role: created.member.role,
    inviterName: auth.memberName,
    url,
    expiresAtTs: created.expiresAtTs,
  });
  return { member: created.member, inviteUrl: emailed ? null : url, expiresAt: created.expiresAtTs, emailed };
}
