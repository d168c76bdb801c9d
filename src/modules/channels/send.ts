/**
 * Sends one rendered message to one channel and says what came of it. No
 * retries and no waiting here: the deliverer owns both (the outbox schedule,
 * the platform's retry hint in `retryAfterMs`, the pacer), so one call is one
 * attempt with one deadline. Each kind sends its own way (kinds/): Telegram,
 * Slack and Discord by plain fetch to their fixed hosts; ntfy and e-mail,
 * whose servers are the user's choice, through the webhook SSRF guard
 * (src/lib/ssrf.ts), widened only by the channel's own allowPrivateNetwork
 * (LAN ranges only: channelEgress).
 *
 * Errors are for the delivery log and the channel's lastError, which the user
 * sees: they never contain the bot token, a webhook URL, an ntfy token or the
 * SMTP password, whatever a library or server put in its message.
 */
import { checkUrl, type EgressPolicy, type Resolver } from "../../lib/ssrf";
import { privateNetworkEgress } from "./kinds/http";
import { kindOf } from "./kinds/index";
import type { SendDeps } from "./kinds/kind";
import type { ChannelMessage, ChannelTarget, SendOutcome } from "./model";

export async function sendMessage(channel: ChannelTarget, message: ChannelMessage, deps: SendDeps): Promise<SendOutcome> {
  if (channel.type !== message.type) throw new Error(`a ${message.type} message cannot go to a ${channel.type} channel`);
  return kindOf(channel.type).send(channel.config, message, deps);
}

/** The hint a refusal of a private address gets when the channel's own opt-in would allow it (API words; the dashboard says its label). */
const PRIVATE_NETWORK_HINT = "turn on config.allowPrivateNetwork to allow a server on your own network";

/** Whether the kind's config has the private-network opt-in (the kinds with a user-chosen server). */
function hasPrivateNetworkOptIn(channel: ChannelTarget): boolean {
  return "allowPrivateNetwork" in kindOf(channel.type).configSchema.properties;
}

/** The server-wide policy widened by the channel's allowPrivateNetwork: the LAN ranges join the allowlist, nothing else does. */
export function channelEgress(channel: ChannelTarget, egress: EgressPolicy): EgressPolicy {
  return hasPrivateNetworkOptIn(channel) ? privateNetworkEgress(channel.config, egress) : egress;
}

/**
 * Checks, when a channel is saved, that a user-chosen server is an address jobpilot may reach (the same rule
 * as on every send): ntfy's serverUrl, the SMTP URL's host. Resolves the name, so it is async; the other
 * kinds have nothing to check.
 */
export async function checkChannelDestination(
  channel: ChannelTarget,
  egress: EgressPolicy,
  resolve?: Resolver,
): Promise<{ ok: true } | { ok: false; field: string; message: string }> {
  const destination = kindOf(channel.type).destination?.(channel.config);
  if (destination === undefined) return { ok: true };
  const { field, url } = destination;
  const policy = channelEgress(channel, egress);
  const checked = await checkUrl(url, policy, resolve);
  if (checked.ok) return checked;
  let message = `${field} cannot be used: ${checked.reason}`;
  // Say the per-channel switch only when it would help: a loopback or metadata address stays refused with it.
  if (policy === egress && hasPrivateNetworkOptIn(channel)) {
    const opened = { ...channel, config: { ...channel.config, allowPrivateNetwork: true as const } } as ChannelTarget;
    if ((await checkUrl(url, channelEgress(opened, egress), resolve)).ok) message += `; ${PRIVATE_NETWORK_HINT}`;
  }
  return { ok: false, field, message };
}
