/**
 * Sending to notification channels, shared by the outbox deliverer and the
 * channel test route: open a channel's sealed settings (cached by envelope),
 * render the payload as its platform's message, and send it once. The pace
 * (Pacer, one per process in deps) is asked by the callers: the deliverer
 * pauses a channel that must wait, the test route waits briefly or refuses.
 */
import type { Deps } from "../../deps";
import type { Clock } from "../../lib/clock";
import type { EgressPolicy, Resolver } from "../../lib/ssrf";
import type { ChannelMessage, ChannelMessages, ChannelTarget, SendOutcome } from "../channels/model";
import { alertKeyboard, heldKeyboard } from "../channels/telegram-actions";
import { type PaceBucket, paceOf, type Pacer } from "../channels/pace";
import { renderAlert, renderAutomationAlert, renderDigest, renderOutcomeAlert } from "../channels/render";
import type { ChannelRow } from "../channels/repo";
import { sendMessage } from "../channels/send";
import { openChannel } from "../channels/service";
import type { OutcomePayload, WebhookPayload } from "../feeds/outbox-payload";
import type { AutomationPayload } from "../feeds/outbox-payload-automation";
import { reviewPageUrl } from "./automation-payload";

export interface ChannelSenderDeps {
  clock: Clock;
  secretKey: string | null;
  pacer: Pacer;
  egress: EgressPolicy;
  resolve?: Resolver;
  config: {
    /** One attempt's deadline (the webhook timeout). */
    timeoutMs: number;
    telegramApiUrl: string;
    /** Where this server's dashboard is reached (JOBPILOT_PUBLIC_URL); null: alerts carry no dashboard link. */
    dashboardBaseUrl: string | null;
  };
}

/**
 * A sender with the server's settings. Alerts link to the dashboard at JOBPILOT_PUBLIC_URL, else at
 * `listenUrl` (serve's own address), else nowhere. deps.resolve is read at each send (tests replace it).
 */
export function channelSenderOf(deps: Deps, listenUrl: string | null = null): ChannelSender {
  return new ChannelSender({
    clock: deps.clock,
    secretKey: deps.secretKey,
    pacer: deps.channelPacer,
    egress: deps.egress,
    get resolve() {
      return deps.resolve;
    },
    config: { timeoutMs: deps.config.webhookTimeoutMs, telegramApiUrl: deps.config.telegramApiUrl, dashboardBaseUrl: deps.config.publicUrl || listenUrl },
  });
}

/** Opened configs kept at most: the envelope text is the key, so a changed channel is opened afresh. */
const MAX_CACHED = 1000;

export class ChannelSender {
  private readonly opened = new Map<string, ChannelTarget>();

  constructor(private readonly deps: ChannelSenderDeps) {}

  /** The channel's settings, opened once per envelope (each open derives a key: ~100 µs). Throws when they cannot be. */
  async open(row: Pick<ChannelRow, "type" | "configSealed">): Promise<ChannelTarget> {
    const cached = this.opened.get(row.configSealed);
    if (cached) return cached;
    const channel = await openChannel(this.deps.secretKey, row);
    if (this.opened.size >= MAX_CACHED) this.opened.clear();
    this.opened.set(row.configSealed, channel);
    return channel;
  }

  buckets(channel: ChannelTarget): PaceBucket[] {
    return paceOf(channel.type, channel.config);
  }

  /** The job's page in the dashboard, when the server knows its public address. */
  dashboardJobUrl(jobId: string): string | null {
    const base = this.deps.config.dashboardBaseUrl;
    return base ? `${base.replace(/\/+$/, "")}/dashboard/jobs/${encodeURIComponent(jobId)}` : null;
  }

  /** The feed's page in the dashboard (where a digest's "and K more" leads). */
  dashboardFeedUrl(feedId: string): string | null {
    const base = this.deps.config.dashboardBaseUrl;
    return base ? `${base.replace(/\/+$/, "")}/dashboard/feeds/${encodeURIComponent(feedId)}` : null;
  }

  /**
   * One alert as its platform's message, with the job's expected-value line when the caller computed one. A
   * matched job's Telegram alert carries the buttons to act on it (a test alert's sample job is in no feed, so it has none).
   */
  render<T extends ChannelTarget["type"]>(type: T, payload: WebhookPayload, expectedValue: string | null = null): ChannelMessages[T] {
    const message = renderAlert(type, payload, { dashboardJobUrl: this.dashboardJobUrl(payload.jobId), nowTs: this.deps.clock.now(), expectedValue });
    if (message.type === "telegram" && payload.processedJobId !== null) message.replyMarkup = alertKeyboard(payload.processedJobId, payload.companyId !== null);
    return message;
  }

  /** A proposal's outcome alert (no buttons: it asks nothing of the reader but to look). */
  renderOutcome<T extends ChannelTarget["type"]>(type: T, payload: OutcomePayload): ChannelMessages[T] {
    return renderOutcomeAlert(type, payload, { dashboardJobUrl: this.dashboardJobUrl(payload.jobId), nowTs: this.deps.clock.now() });
  }

  /**
   * An automation event's alert (Connects low, budget low, waiting for approval), linking to the review page. A held
   * application's Telegram alert carries Approve / Discard (telegram/actions.ts answers them).
   */
  renderAutomation<T extends ChannelTarget["type"]>(type: T, payload: AutomationPayload): ChannelMessages[T] {
    const message = renderAutomationAlert(type, payload, { reviewUrl: reviewPageUrl(this.deps.config.dashboardBaseUrl) });
    if (message.type === "telegram" && payload.type === "application.held")
      message.replyMarkup = heldKeyboard(payload.application.queueId, payload.application.kind);
    return message;
  }

  /** Several jobs of one feed as one message, `more` of the feed's others left out (counted, with a link to the feed). */
  digestMessage(channel: ChannelTarget, payloads: WebhookPayload[], more: number, feedId: string): ChannelMessage {
    return renderDigest(channel.type, payloads, { more, dashboardUrl: this.dashboardFeedUrl(feedId), nowTs: this.deps.clock.now() });
  }

  /** Renders and sends one alert: one attempt, no waiting, no retry. */
  send(channel: ChannelTarget, payload: WebhookPayload): Promise<SendOutcome & { durationMs: number }> {
    return this.sendMessage(channel, this.render(channel.type, payload));
  }

  /** Sends a rendered message: one attempt, no waiting, no retry. */
  async sendMessage(channel: ChannelTarget, message: ChannelMessage): Promise<SendOutcome & { durationMs: number }> {
    const { clock, egress, resolve, config } = this.deps;
    const started = performance.now();
    const outcome = await sendMessage(channel, message, {
      timeoutMs: config.timeoutMs,
      settings: { telegramApiUrl: config.telegramApiUrl },
      egress,
      resolve,
      clock,
    });
    return { ...outcome, durationMs: Math.round(performance.now() - started) };
  }
}
