/**
 * Long polling: the bots answer without a public URL. Each bot some Telegram channel uses gets one getUpdates
 * loop in the cluster, held by a lease, since Telegram answers a second poller with 409; the offset lives in the
 * database so a restart neither replays nor loses updates, and only checked tokens are polled
 * (see docs/architecture.md, 'One Telegram poller per bot').
 */
import type { Deps } from "../../deps";
import type { Heartbeat } from "../../worker/liveness";
import { Loop } from "../../worker/loop";
import { leaseGate } from "../../worker/cluster";
import { type ChannelRow, channelsOfType, channelsOfTypeVersion, noteChannelOutcome, telegramBotHolders } from "../channels/repo";
import { adoptTelegramChannel, openChannel } from "../channels/service";
import { checkTelegramToken, telegramCall } from "../channels/kinds/telegram";
import { handleUpdate } from "./bot";
import { type BotContext, callBot } from "./chat";
import * as repo from "./repo";

export interface PollingOptions {
  /** getUpdates' long-poll `timeout`: how long Telegram holds a poll open when there is nothing new. */
  pollTimeoutS: number;
  /** The cluster lease on a bot; longer than a poll, so a live holder renews it between polls. */
  leaseMs: number;
  /** How often a node asks for a bot another node polls; the first backoff step after a failure. */
  idleMs: number;
  maxBackoffMs: number;
  /** How often the channels are looked at for bots to start or stop polling. */
  refreshMs: number;
}

export const DEFAULT_POLLING: PollingOptions = { pollTimeoutS: 25, leaseMs: 60_000, idleMs: 5_000, maxBackoffMs: 60_000, refreshMs: 2_000 };

/** The getUpdates loop of one bot. */
export class BotPoller {
  private readonly loop: Loop;
  private readonly lease: ReturnType<typeof leaseGate>;
  private readonly abort = new AbortController();
  private readonly ctx: BotContext;

  constructor(
    deps: Deps,
    bot: { id: string; token: string },
    private readonly opts: PollingOptions,
  ) {
    this.ctx = { deps, bot: { ...bot, username: null } };
    this.lease = leaseGate(deps, `telegram-bot:${bot.id}`, deps.nodeId, opts.leaseMs);
    this.loop = new Loop({
      name: `telegram-bot:${bot.id}`,
      intervalMs: opts.idleMs,
      maxBackoffMs: opts.maxBackoffMs,
      run: () => this.round(),
      log: deps.log,
    }).onlyWhen(this.lease.open);
  }

  get token(): string {
    return this.ctx.bot.token;
  }

  start(): void {
    this.loop.start();
  }

  /** Ends the poll in flight, waits for the update in hand, and gives the lease up for another node. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop.stop();
    await this.lease.release();
  }

  private async round(): Promise<void> {
    const { deps, bot } = this.ctx;
    if (bot.username === null) {
      const me = await callBot(deps, bot.token, "getMe", {});
      const username = (me.result as { username?: unknown } | null)?.username;
      if (typeof username === "string") bot.username = username;
    }
    const offset = await repo.updateOffset(deps.db, bot.id);
    const polled = await telegramCall(
      // The deadline outlasts the long poll.
      { timeoutMs: (this.opts.pollTimeoutS + 15) * 1000, settings: { telegramApiUrl: deps.config.telegramApiUrl } },
      bot.token,
      "getUpdates",
      { offset, timeout: this.opts.pollTimeoutS, allowed_updates: ["message", "callback_query"] },
      this.abort.signal,
    );
    if (this.abort.signal.aborted) return;
    if (!polled.ok) {
      const hint = polled.statusCode === 409 ? " (another program polls this bot, or it has a webhook set: give jobpilot a bot of its own)" : "";
      throw new Error(`Telegram getUpdates failed for bot ${bot.id}: ${polled.error}${hint}`);
    }
    let next = offset;
    for (const update of Array.isArray(polled.result) ? polled.result : []) {
      const id = (update as { update_id?: unknown }).update_id;
      if (typeof id !== "number" || id < next) continue;
      try {
        await handleUpdate(this.ctx, update);
      } catch (err) {
        deps.log.error("telegram update could not be handled; passed over", { bot: bot.id, update: id, err: err as Error });
      }
      next = id + 1;
      await repo.saveUpdateOffset(deps.db, bot.id, next, deps.clock.now());
    }
    // Poll again at once: the long poll is the wait.
    this.loop.notify();
  }
}

/** One BotPoller per bot among the Telegram channels, kept in step with them. */
export class TelegramBots {
  private readonly pollers = new Map<string, BotPoller>();
  private readonly loop: Loop;
  /** Tokens by sealed settings, so a refresh opens only channels saved since the last one. */
  private tokens = new Map<string, string | null>();
  /** The Telegram channels' version at the last refresh: a look that finds it unchanged reads nothing else. */
  private seenVersion: string | null = null;
  /** Channels saved before tokens were checked that cannot be the bot's (by sealed settings): not asked about again. */
  private readonly unadoptable = new Set<string>();
  /** When Telegram could not be reached to check an old channel's token: not asked again before this (clock ms). */
  private checkAgainAt = 0;

  constructor(
    private readonly deps: Deps,
    private readonly opts: PollingOptions = DEFAULT_POLLING,
  ) {
    this.loop = new Loop({ name: "telegram-bots", intervalMs: opts.refreshMs, run: () => this.refresh(), log: deps.log });
  }

  get name(): string {
    return this.loop.name;
  }

  /** The refresh loop's heartbeat, for /readyz (a bot's own poll is let alone: it waits on Telegram by design). */
  heartbeat(): Heartbeat {
    return this.loop.heartbeat();
  }

  /** The bots this process has a poller for (it polls those whose lease it holds). */
  get botIds(): string[] {
    return [...this.pollers.keys()];
  }

  start(): void {
    this.loop.start();
  }

  /** Looks at the channels now (tests, and after a change). */
  notify(): void {
    this.loop.notify();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all([...this.pollers.values()].map((p) => p.stop()));
    this.pollers.clear();
  }

  /** Starts a poller for each new bot, restarts one whose token changed, stops those no channel uses. */
  async refresh(): Promise<void> {
    const version = await channelsOfTypeVersion(this.deps.db, "telegram");
    if (version === this.seenVersion) return;
    const wanted = new Map<string, string>();
    const opened = new Map<string, string | null>();
    const unchecked: { row: ChannelRow; token: string }[] = [];
    const holders = await telegramBotHolders(this.deps.db);
    // Newest change first: of the holder's checked channels on a bot, the token saved last wins (a token made
    // anew at @BotFather revokes the old one). Saving keeps other accounts' channels off a held bot; the
    // holder is asked here too, so no other path can put a token in front of the holder's.
    for (const row of await channelsOfType(this.deps.db, "telegram")) {
      let token = this.tokens.get(row.configSealed);
      if (token === undefined) {
        const target = await openChannel(this.deps.secretKey, row).catch(() => null);
        token = target?.type === "telegram" ? target.config.botToken : null;
      }
      opened.set(row.configSealed, token);
      if (token === null) continue;
      if (row.telegramBotId === null) unchecked.push({ row, token });
      else if (holders.get(row.telegramBotId) === row.accountId && !wanted.has(row.telegramBotId)) wanted.set(row.telegramBotId, token);
    }
    this.tokens = opened;
    this.seenVersion = version;
    // A channel that took its bot changed the version: the next look (at once) polls it.
    if (await this.adoptUnchecked(unchecked)) {
      this.seenVersion = null;
      this.loop.notify();
    }
    for (const [id, poller] of this.pollers) {
      if (wanted.get(id) === poller.token) continue;
      await poller.stop();
      this.pollers.delete(id);
    }
    for (const [id, token] of wanted) {
      if (this.pollers.has(id)) continue;
      const poller = new BotPoller(this.deps, { id, token }, this.opts);
      this.pollers.set(id, poller);
      poller.start();
    }
  }

  /**
   * Checks the tokens of channels saved before tokens were checked, oldest channel first, so of two accounts
   * on one bot the one that had it first keeps it. Returns whether one took its bot. A token Telegram refuses,
   * or a bot another account holds, is not asked about again by this process; the channel's lastError says
   * what to do. Telegram unreachable: asked again a backoff later.
   */
  private async adoptUnchecked(unchecked: { row: ChannelRow; token: string }[]): Promise<boolean> {
    const { deps } = this;
    let isAdopted = false;
    const oldestFirst = unchecked
      .filter((u) => !this.unadoptable.has(u.row.configSealed))
      .sort((a, b) => a.row.createdAtTs - b.row.createdAtTs || (a.row.id < b.row.id ? -1 : 1));
    for (const { row, token } of oldestFirst) {
      if (deps.clock.now() < this.checkAgainAt) {
        // Looked at again once the wait is over, whether or not a channel changes meanwhile.
        this.seenVersion = null;
        break;
      }
      const check = await checkTelegramToken({ timeoutMs: deps.config.webhookTimeoutMs, settings: deps.config }, token);
      if (!check.ok && !check.isRefused) {
        deps.log.warn("Telegram could not be reached to check a channel's bot token; trying again later", { channel: row.id, error: check.error });
        this.checkAgainAt = deps.clock.now() + this.opts.maxBackoffMs;
        this.seenVersion = null;
        break;
      }
      if (check.ok && (await adoptTelegramChannel(deps, row, check.botId))) {
        isAdopted = true;
        continue;
      }
      this.unadoptable.add(row.configSealed);
      const error = check.ok
        ? "This channel's Telegram bot is connected to another jobpilot account, which answers its buttons and commands: give this channel a bot of its own and save it again"
        : "Telegram does not accept this channel's bot token, so its buttons and commands do not work: save the channel again with the token @BotFather gave";
      deps.log.warn("a Telegram channel saved before tokens were checked is not polled", { channel: row.id, error });
      await noteChannelOutcome(deps.db, row.id, { error });
    }
    return isAdopted;
  }
}
