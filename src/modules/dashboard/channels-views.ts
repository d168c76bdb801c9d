import type { Channel } from "../channels/http-model";
import { CHANNEL_KINDS } from "../channels/kinds/index";
import { CHANNEL_TYPES, type ChannelType, listInWords, timeZoneNames } from "../channels/model";
import type { Feed } from "../feeds/model";
import { html, type Html } from "./html";
import type { DashboardSession } from "./model";
import { csrfField, layout, when } from "./views";
import { describedBy, errorSummary, fieldError, type FormErrors, type FormField, formErrors } from "./form-errors";

/**
 * The notification channel pages of the dashboard: list, add (one form per
 * kind, picked by a link, so no script is needed to show the right fields),
 * detail with the test button and the channel's recent deliveries, edit and
 * delete. Forms keep what the user typed (ChannelFormValues) so a refused form
 * comes back as it was; channels.ts turns it into the API's JSON body.
 */

/** A channel form as posted: every field a string; a checkbox is present ("on") only when ticked. */
export type ChannelFormValues = Record<string, string | undefined>;

const CHANNELS = "/dashboard/channels";
/** The channel form's script: fills the quiet hours' time zone with the browser's (time-zone.browser.js). */
export const TIME_ZONE_SCRIPT = `${CHANNELS}/time-zone.js`;
const base = (channelId: string) => `${CHANNELS}/${encodeURIComponent(channelId)}`;

/** Each kind's words and form fields (the API's config fields, same names): its file under channels/kinds/. */
export const formOf = (type: ChannelType) => CHANNEL_KINDS[type].form;

export const DIGEST_CHOICES = ["15m", "30m", "1h", "2h", "3h", "6h", "12h", "24h"];

/** The labels of the fields every kind's form has, by control id; each kind's own settings are in its kind's `form`. */
const LABELS = {
  name: "Name",
  mode: "Mode",
  digestEvery: "Digest every",
  quietHours: "Quiet hours",
  quietFrom: "Quiet from",
  quietTo: "Quiet until",
  quietTimeZone: "Time zone",
} as const;

/**
 * A kind's form fields for form-errors.ts: the API's body path of each control (config.<name> for the
 * kind's settings, quietHours.<part> for the quiet hours) and its label.
 */
export function channelFormFields(type: ChannelType): FormField[] {
  return [
    { path: "name", id: "name", label: LABELS.name },
    { path: "mode", id: "mode", label: LABELS.mode },
    { path: "digestEvery", id: "digestEvery", label: LABELS.digestEvery },
    { path: "quietHours", id: "quietHours", label: LABELS.quietHours },
    { path: "quietHours.from", id: "quietFrom", label: LABELS.quietFrom },
    { path: "quietHours.to", id: "quietTo", label: LABELS.quietTo },
    { path: "quietHours.timeZone", id: "quietTimeZone", label: LABELS.quietTimeZone },
    ...formOf(type).fields.map((f) => ({ path: `config.${f.name}`, id: `config_${f.name}`, label: f.label })),
  ];
}

/** The API's refusal of a channel form, sorted onto its fields in the labels' words. */
export function channelFormErrors(type: ChannelType, details: string[]): FormErrors {
  return formErrors(details, channelFormFields(type));
}

/** The form values that show a saved channel (the edit page's starting point): secrets as shown, masked. */
export function channelToForm(channel: Channel): ChannelFormValues {
  const values: ChannelFormValues = { name: channel.name, mode: channel.mode, digestEvery: channel.digestEvery ?? "1h" };
  for (const f of formOf(channel.type).fields) {
    const value = channel.config[f.name];
    if (f.isFlag) values[`config_${f.name}`] = value === true ? "on" : undefined;
    else values[`config_${f.name}`] = typeof value === "string" ? value : "";
  }
  if (channel.quietHours) {
    values.quietHours = "on";
    values.quietFrom = channel.quietHours.from;
    values.quietTo = channel.quietHours.to;
    values.quietTimeZone = channel.quietHours.timeZone;
  }
  return values;
}

/** How a channel sends, in words: "at once", "a digest every 1h", and its quiet hours. */
export function deliveryText(channel: Pick<Channel, "mode" | "digestEvery" | "quietHours">): string {
  const how = channel.mode === "digest" ? `a digest every ${channel.digestEvery ?? "1h"}` : "each alert at once";
  const q = channel.quietHours;
  return q ? `${how}; quiet ${q.from}–${q.to} (${q.timeZone})` : how;
}

/** The form's values and, when it was refused, its messages by field. */
interface Shown {
  v: ChannelFormValues;
  errors?: FormErrors;
}

function input(
  f: Shown,
  name: string,
  label: string,
  help: string,
  opts: { type?: string; required?: boolean; placeholder?: string; list?: string } = {},
): Html {
  return html`<label for="${name}">${label}</label>
${fieldError(f.errors, name)}
<input type="${opts.type ?? "text"}" id="${name}" name="${name}" value="${f.v[name] ?? ""}" autocomplete="off"${opts.required ? html` required` : ""}${opts.placeholder ? html` placeholder="${opts.placeholder}"` : ""}${opts.list ? html` list="${opts.list}"` : ""}${describedBy(f.errors, name)}>
<p id="${name}Help" class="muted">${help}</p>`;
}

function checkbox(f: Shown, name: string, label: string, help: string): Html {
  return html`${fieldError(f.errors, name)}
<label for="${name}"><input type="checkbox" id="${name}" name="${name}" value="on"${f.v[name] ? html` checked` : ""}${describedBy(f.errors, name)}> ${label}</label>
<p id="${name}Help" class="muted">${help}</p>`;
}

function deliveryFields(f: Shown): Html {
  const { v } = f;
  const mode = v.mode === "digest" ? "digest" : "instant";
  const every = v.digestEvery || "1h";
  const choices = DIGEST_CHOICES.includes(every) ? DIGEST_CHOICES : [every, ...DIGEST_CHOICES];
  return html`<fieldset>
<legend>When alerts go</legend>
<label for="mode">${LABELS.mode}</label>
${fieldError(f.errors, "mode")}
<select id="mode" name="mode"${describedBy(f.errors, "mode")}>
<option value="instant"${mode === "instant" ? html` selected` : ""}>Instant: one message per job</option>
<option value="digest"${mode === "digest" ? html` selected` : ""}>Digest: one message per period</option>
</select>
<p id="modeHelp" class="muted">A digest lists the period's jobs, best match first (the top 10, then “and K more” with a link here). Periods end on the clock: every 15 minutes at :00, :15, :30, :45; hourly on the hour (UTC).</p>
<label for="digestEvery">${LABELS.digestEvery}</label>
${fieldError(f.errors, "digestEvery")}
<select id="digestEvery" name="digestEvery"${describedBy(f.errors, "digestEvery")}>${choices.map((c) => html`<option value="${c}"${c === every ? html` selected` : ""}>${c}</option>`)}</select>
<p id="digestEveryHelp" class="muted">Used in digest mode.</p>
${checkbox(f, "quietHours", LABELS.quietHours, "Alerts inside them are held and sent as one digest when they end (a digest due inside them waits too).")}
${input(f, "quietFrom", LABELS.quietFrom, "HH:MM, 24 h, e.g. 22:00.", { type: "time" })}
${input(f, "quietTo", LABELS.quietTo, "HH:MM, e.g. 07:00; earlier than “from” means the next morning.", { type: "time" })}
${input(f, "quietTimeZone", LABELS.quietTimeZone, "An IANA name such as Europe/Berlin, America/New_York or UTC; daylight saving time is followed. A new channel starts with your browser's.", { list: "timeZones", placeholder: "Europe/Berlin" })}
<datalist id="timeZones">${timeZoneNames().map((z) => html`<option value="${z}"></option>`)}</datalist>
</fieldset>`;
}

export function channelFormPage(
  session: DashboardSession,
  opts: { type: ChannelType; values: ChannelFormValues; errors?: FormErrors; channel?: Channel },
): Html {
  const kind = formOf(opts.type);
  const editing = opts.channel;
  const action = editing ? base(editing.id) : CHANNELS;
  const shown: Shown = { v: opts.values, errors: opts.errors };
  return layout(
    editing ? `Edit ${editing.name}` : `New ${kind.label} channel`,
    html`${errorSummary(opts.errors, "The channel")}
<p>${kind.intro}</p>
<form method="post" action="${action}">
${csrfField(session)}
${!editing && html`<input type="hidden" name="type" value="${opts.type}">`}
${input(shown, "name", LABELS.name, "Your name for it, e.g. Phone or #leads.", { required: true })}
<fieldset>
<legend>${kind.label} settings</legend>
${kind.fields.map((f) =>
  f.isFlag
    ? checkbox(shown, `config_${f.name}`, f.label, f.help)
    : input(shown, `config_${f.name}`, f.label, editing && f.isSecret ? `${f.help} Shown masked: leave it as it is to keep the saved value.` : f.help, {
        required: f.isRequired,
        placeholder: f.placeholder,
      }),
)}
</fieldset>
${deliveryFields(shown)}
<button type="submit">${editing ? "Save changes" : "Add channel"}</button>
</form>
<p><a href="${editing ? base(editing.id) : CHANNELS}">Cancel</a></p>`,
    session,
    "channels",
    { scripts: [TIME_ZONE_SCRIPT] },
  );
}

/** "Telegram, Slack, Discord, ntfy or e-mail": every kind, in the dashboard's words. */
export const KINDS_IN_TEXT = listInWords(CHANNEL_TYPES.map((type) => formOf(type).inText));

export function channelListPage(session: DashboardSession, channels: Channel[]): Html {
  const add = html`<h2>Add a channel</h2>
<ul>${CHANNEL_TYPES.map((type) => html`<li><a href="${CHANNELS}/new?type=${type}">Add a ${formOf(type).label} channel</a></li>`)}</ul>`;
  const list =
    channels.length === 0
      ? html`<p class="empty">No channels yet. Add one below, then tick it on a feed's form to get that feed's alerts there.</p>`
      : html`<div class="table-wrap"><table class="cards">
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Sends</th><th scope="col">Last delivery</th><th scope="col">Last error</th></tr></thead>
<tbody>${channels.map(
          (c) => html`<tr>
<td data-label="Name" class="primary"><a href="${base(c.id)}">${c.name}</a></td>
<td data-label="Kind">${formOf(c.type).label}</td>
<td data-label="Sends">${deliveryText(c)}</td>
<td data-label="Last delivery">${when(c.lastDeliveryAt)}</td>
<td data-label="Last error">${c.lastError ? html`<span class="error-text">${c.lastError}</span>` : "—"}</td>
</tr>`,
        )}</tbody>
</table></div>`;
  return layout(
    "Channels",
    html`<p>Where feeds send their alerts besides a webhook: ${KINDS_IN_TEXT}.</p>
${list}
${add}`,
    session,
    "channels",
  );
}

/** A channel's event as the detail page lists it. */
export interface ChannelDeliveryItem {
  eventId: string;
  feedId: string;
  feedTitle: string;
  type: string;
  status: string;
  jobId: string | null;
  createdAt: number;
  deliveredAt: number | null;
  nextAttemptAt: number | null;
  attempts: number;
  lastError: string | null;
  digestSize: number | null;
}

export interface TestOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** What came of "Send test", said the way the channel's kind works (a chat, a topic, an SMTP server). */
function testNotice(type: ChannelType, outcome: TestOutcome | { refused: string } | undefined): Html | false {
  if (!outcome) return false;
  const { taker } = formOf(type).test;
  if ("refused" in outcome) return html`<p class="error" role="alert">Not sent: ${outcome.refused}</p>`;
  if (outcome.ok)
    return html`<p class="notice" role="status">Test alert sent: ${taker} accepted it${outcome.statusCode !== null && html` (${outcome.statusCode})`} in ${outcome.durationMs} ms.</p>`;
  return html`<p class="error" role="alert">The test alert was not accepted: ${outcome.error ?? "no reason given"}</p>`;
}

/** A binding code just made: shown on this response only (only its hash is stored). */
export interface ShownBindingCode {
  code: string;
  command: string;
  expiresAt: number;
}

/**
 * Binding a Telegram chat lets it act on alerts (the buttons and commands of modules/telegram): a one-time
 * code made here, sent to the bot as `/start <code>` from that chat. The bound chats are listed with an
 * Unbind button each.
 */
function telegramBindingBlock(session: DashboardSession, self: string, chats: BoundChatView[], code: ShownBindingCode | undefined): Html {
  return html`<section aria-labelledby="bind">
<h2 id="bind">Bind a chat</h2>
<p>A bound chat can act on alerts: <em>Draft proposal</em>, <em>Apply</em>, <em>Not interested</em>, and the commands /feeds, /mute, /unmute, /status. Alerts reach the chat either way; any other chat that presses a button is refused.</p>
${
  code
    ? html`<div class="notice" role="status">
<p>Send this to the bot from the chat to bind (a private chat with the bot, or the group the alerts go to). It works once, until ${when(code.expiresAt)} (15 minutes), and replaces any earlier code of this channel:</p>
<code class="secret" id="binding-command">${code.command}</code> <button type="button" data-copy="binding-command" hidden>Copy</button>
</div>`
    : ""
}
<form method="post" action="${self}/binding-code">${csrfField(session)}<button type="submit">${code ? "Make a new binding code" : "Make a binding code"}</button></form>
${
  chats.length === 0
    ? html`<p class="empty">No chat is bound yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Chat</th><th scope="col">Id</th><th scope="col">Bound</th><th scope="col">Actions</th></tr></thead>
<tbody>${chats.map(
        (c) => html`<tr><td>${c.title ?? "—"}</td><td><code>${c.chatId}</code></td><td>${when(c.boundAt)}</td>
<td><form method="post" action="${self}/chats/${encodeURIComponent(c.chatId)}/unbind">${csrfField(session)}<button type="submit" aria-label="Unbind ${c.title ?? c.chatId}">Unbind</button></form></td></tr>`,
      )}</tbody>
</table></div>`
}
</section>`;
}

/** A chat bound through a Telegram channel, as the channel page lists it. */
export interface BoundChatView {
  chatId: string;
  title: string | null;
  boundAt: number;
}

export function channelDetailPage(
  session: DashboardSession,
  data: {
    channel: Channel;
    feeds: Feed[];
    deliveries: ChannelDeliveryItem[];
    /** Telegram channels: the chats bound through it. */
    chats: BoundChatView[];
    test?: TestOutcome | { refused: string };
    bindingCode?: ShownBindingCode;
  },
): Html {
  const { channel: c } = data;
  const self = base(c.id);
  const kind = formOf(c.type);
  const configRows = kind.fields.map(
    (f) =>
      html`<dt>${f.label}</dt><dd>${
        f.isFlag ? (c.config[f.name] === true ? "yes" : "no") : c.config[f.name] ? html`<code>${c.config[f.name]}</code>` : html`<span class="muted">—</span>`
      }</dd>`,
  );
  const using = data.feeds.filter((f) => (f.channelIds ?? []).includes(c.id));
  const deliveries =
    data.deliveries.length === 0
      ? html`<p class="empty">Nothing sent to this channel through its feeds yet.</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Created</th><th scope="col">Feed</th><th scope="col">What</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Error</th></tr></thead>
<tbody>${data.deliveries.map(
          (d) => html`<tr>
<td>${when(d.createdAt)}</td>
<td><a href="/dashboard/feeds/${encodeURIComponent(d.feedId)}/deliveries#${d.eventId}">${d.feedTitle}</a></td>
<td>${d.type === "channel.digest" ? `digest of ${d.digestSize ?? 0}` : d.jobId ? html`<a href="/dashboard/jobs/${encodeURIComponent(d.jobId)}">job</a>` : d.type}</td>
<td><span class="badge status-${d.status}">${d.status}</span>${d.status === "held" && html` <span class="muted">until ${when(d.nextAttemptAt)}</span>`}</td>
<td>${d.attempts}</td>
<td>${d.lastError ? html`<span class="error-text">${d.lastError}</span>` : "—"}</td>
</tr>`,
        )}</tbody>
</table></div>`;
  return layout(
    c.name,
    html`${testNotice(c.type, data.test)}
<p><a href="${CHANNELS}">All channels</a> · <a href="${self}/edit">Edit</a> · <a href="${self}/delete">Delete</a></p>
<form method="post" action="${self}/test">${csrfField(session)}<button type="submit">Send test</button></form>
<p class="muted">Sends ${kind.test.what} now, whatever the mode and quiet hours. It carries a sample job: do not apply to it.</p>
<h2>Settings</h2>
<dl class="settings">
<dt>Kind</dt><dd>${kind.label}</dd>
${configRows}
<dt>Sends</dt><dd>${deliveryText(c)}</dd>
<dt>Created</dt><dd>${when(c.createdAt)}</dd>
<dt>Last delivery</dt><dd>${when(c.lastDeliveryAt)}</dd>
<dt>Last error</dt><dd>${c.lastError ? html`<span class="error-text">${c.lastError}</span>` : "—"}</dd>
</dl>
${c.type === "telegram" && telegramBindingBlock(session, self, data.chats, data.bindingCode)}
<h2>Feeds</h2>
${
  using.length === 0
    ? html`<p class="empty">No feed uses this channel: tick it on a feed's form.</p>`
    : html`<ul>${using.map((f) => html`<li><a href="/dashboard/feeds/${encodeURIComponent(f.id)}">${f.title}</a></li>`)}</ul>`
}
<h2>Last deliveries</h2>
${deliveries}`,
    session,
    "channels",
  );
}

export function deleteChannelPage(session: DashboardSession, channel: Channel): Html {
  return layout(
    `Delete ${channel.name}?`,
    html`<p>This deletes the channel <strong>${channel.name}</strong> and takes it off every feed; alerts not yet sent to it are dropped. It cannot be undone.</p>
<form method="post" action="${base(channel.id)}/delete">${csrfField(session)}<button type="submit" class="danger">Delete channel</button></form>
<p><a href="${base(channel.id)}">Cancel</a></p>`,
    session,
    "channels",
  );
}
