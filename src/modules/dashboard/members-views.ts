import type { MemberView } from "../members/service";
import { can, PERMISSIONS, type Permission, ROLE_ORDER } from "../members/permissions";
import { describedBy, errorSummary, fieldError, type FormErrors, formErrors } from "./form-errors";
import { html, type Html, raw } from "./html";
import type { DashboardSession } from "./model";
import { formatTime } from "./overview";
import { csrfField, grantableRoles, layout } from "./views";

const TEAM = "/dashboard/team";

/** The invitation form's fields, so a refusal ("email: must be an e-mail address…") is shown by the field it names. */
const INVITE_FIELDS = [
  { path: "email", id: "email", label: "E-mail" },
  { path: "name", id: "name", label: "Name" },
  { path: "role", id: "role", label: "Role" },
];

export interface TeamPageData {
  members: MemberView[];
  nowTs: number;
  locale: string;
  /** Just invited: the link to pass on (null when it was e-mailed), shown on this response only. */
  invited?: { member: MemberView; inviteUrl: string | null; expiresAt: number; emailed: boolean };
  /** The invitation form's refusal and what was typed, to show it again. */
  inviteError?: { message: string; values: Record<string, string | undefined> };
  /** A refusal of a row's role change or of the team setting (the last owner, a role above one's own). */
  refusal?: string;
  notice?: string;
}

/** The roles and what each may do: the table docs/members.md shows, from the same PERMISSIONS. */
function rolesTable(): Html {
  const perms = Object.keys(PERMISSIONS) as Permission[];
  return html`<details><summary>What each role may do</summary>
<div class="table-wrap"><table class="cards">
<thead><tr><th scope="col">Permission</th>${ROLE_ORDER.map((r) => html`<th scope="col">${r}</th>`)}</tr></thead>
<tbody>${perms.map(
    (p) =>
      html`<tr><td data-label="Permission" class="primary">${PERMISSIONS[p].what}</td>${ROLE_ORDER.map(
        (r) =>
          html`<td data-label="${r}">${can(r, p) ? "yes" : p === "send" && r === "bidder" ? "if bidders may send" : html`<span class="muted">no</span>`}</td>`,
      )}</tr>`,
  )}</tbody>
</table></div>
</details>`;
}

function memberRow(session: DashboardSession, m: MemberView, data: TeamPageData): Html {
  const manage = can(session.role, "members");
  const you = m.id === session.memberId;
  const status = m.hasPassword ? "Active" : "Invited: has not set a password yet";
  const roleCell = manage
    ? html`<form method="post" action="${TEAM}/${m.id}/role" class="inline">${csrfField(session)}
<label for="role-${m.id}" class="visually-hidden">Role of ${m.name}</label>
<select id="role-${m.id}" name="role">${grantableRoles(session.role).map((r) => html`<option value="${r}"${r === m.role ? raw(" selected") : ""}>${r}</option>`)}</select>
<button type="submit" class="secondary" aria-label="Save the role of ${m.name}">Save</button></form>`
    : m.role;
  const removeCell = manage
    ? html`<form method="get" action="${TEAM}/${m.id}/remove"><button type="submit" class="danger" aria-label="Remove ${m.name}">Remove</button></form>`
    : "";
  return html`<tr>
<td data-label="Name" class="primary">${m.name}${you ? html` <span class="badge">you</span>` : ""}</td>
<td data-label="E-mail">${m.email}</td>
<td data-label="Role">${roleCell}</td>
<td data-label="Status">${status}</td>
<td data-label="Since">${formatTime(m.createdAt, data.nowTs, data.locale)}</td>
${manage ? html`<td data-label="Remove" class="unlabelled">${removeCell}</td>` : ""}
</tr>`;
}

function invitedNotice(invited: NonNullable<TeamPageData["invited"]>, data: TeamPageData): Html {
  const until = formatTime(invited.expiresAt, data.nowTs, data.locale);
  return invited.emailed
    ? html`<div class="notice" role="status"><p>Invited <strong>${invited.member.name}</strong> as ${invited.member.role}: the link to set a password was e-mailed to ${invited.member.email}. It works once, until ${until}.</p></div>`
    : html`<div class="notice" role="status">
<p>Invited <strong>${invited.member.name}</strong> as ${invited.member.role}. Send them this link: it sets their password, works once, until ${until}, and is not shown again. (Add an e-mail channel and invitations are mailed for you.)</p>
<code class="secret" id="invite-link">${invited.inviteUrl}</code> <button type="button" data-copy="invite-link" hidden>Copy</button>
</div>`;
}

function inviteForm(session: DashboardSession, errors: FormErrors | undefined, values: Record<string, string | undefined>): Html {
  const role = values.role ?? "bidder";
  return html`<h2 id="invite">Invite someone</h2>
${errorSummary(errors, "The invitation")}
<form method="post" action="${TEAM}">
${csrfField(session)}
<label for="email">E-mail</label>
${fieldError(errors, "email")}
<input type="email" id="email" name="email" maxlength="254" required autocomplete="off" value="${values.email ?? ""}"${describedBy(errors, "email")}>
<p id="emailHelp" class="muted">Their sign-in name.</p>
<label for="name">Name</label>
${fieldError(errors, "name")}
<input type="text" id="name" name="name" maxlength="100" value="${values.name ?? ""}"${describedBy(errors, "name")}>
<p id="nameHelp" class="muted">How the dashboard and the audit log name them. Optional: the part of the address before @.</p>
<label for="role">Role</label>
${fieldError(errors, "role")}
<select id="role" name="role"${describedBy(errors, "role")}>${grantableRoles(session.role).map((r) => html`<option value="${r}"${r === role ? raw(" selected") : ""}>${r}</option>`)}</select>
<p id="roleHelp" class="muted">Bidders draft and ask for approval; admins approve, send and run feeds, channels and freelancers; viewers only look.</p>
<button type="submit">Invite</button>
</form>`;
}

function teamSetting(session: DashboardSession): Html {
  return html`<h2 id="settings">Sending</h2>
<form method="post" action="${TEAM}/settings">
${csrfField(session)}
<label><input type="checkbox" id="biddersMaySend" name="biddersMaySend" value="on" aria-describedby="biddersMaySendHelp"${session.biddersMaySend ? raw(" checked") : ""}> Bidders may send proposals themselves</label>
<p id="biddersMaySendHelp" class="muted">Off: a bidder's draft waits on the Review page until an owner or admin approves it.</p>
<button type="submit">Save</button>
</form>`;
}

/**
 * The Team page: who belongs to the account, with what role. Owners invite, change roles, remove and set whether
 * bidders may send; admins (who manage keys) see the list. Every change goes through the members service.
 */
export function teamPage(session: DashboardSession, data: TeamPageData): Html {
  const manage = can(session.role, "members");
  const errors = data.inviteError ? formErrors([data.inviteError.message], INVITE_FIELDS) : undefined;
  return layout(
    "Team",
    html`${data.notice && html`<div class="notice" role="status"><p>${data.notice}</p></div>`}
${data.refusal && html`<p class="error" role="alert">${data.refusal}</p>`}
${data.invited && invitedNotice(data.invited, data)}
<p class="muted">Everyone signs in with their own e-mail and password; the <a href="/dashboard/audit">audit log</a> names who did what. ${
      manage ? "Only owners change the team." : "Only owners change the team; ask one to invite someone or change a role."
    }</p>
<div class="table-wrap">
<table class="cards">
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Since</th>${
      manage ? html`<th scope="col"><span class="visually-hidden">Remove</span></th>` : ""
    }</tr></thead>
<tbody>${data.members.map((m) => memberRow(session, m, data))}</tbody>
</table>
</div>
${rolesTable()}
${manage ? inviteForm(session, errors, data.inviteError?.values ?? {}) : ""}
${manage ? teamSetting(session) : ""}`,
    session,
    "team",
  );
}

/** The step before a member is removed: what stops working for them. */
export function removeMemberConfirmPage(session: DashboardSession, m: MemberView): Html {
  const you = m.id === session.memberId;
  return layout(
    `Remove ${m.name}?`,
    html`${you ? html`<p class="error" role="alert"><strong>This is you.</strong> You are signed out at once and cannot sign in to this account again.</p>` : ""}
<p><strong>${m.name}</strong> (${m.email}, ${m.role}) can no longer sign in; their dashboard sessions end and every API key they made is revoked, at once. What they drafted, approved and sent stays, with their name.</p>
<form method="post" action="${TEAM}/${m.id}/remove">${csrfField(session)}<button type="submit" class="danger">Remove ${m.name}</button></form>
<p><a href="${TEAM}">Cancel</a></p>`,
    session,
    "team",
  );
}
