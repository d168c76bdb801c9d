/**
 * Every notification channel kind, by its type. The Record over ChannelType
 * (db/enums.ts CHANNEL_TYPES) is the one list: a type added there without its
 * kind here, or a kind here without its type, does not compile, and the
 * config and message types below follow from the kinds.
 */
import type { ChannelType } from "../../../db/enums";
import { discord } from "./discord";
import { email } from "./email";
import type { AnyChannelKind, ChannelKind, ConfigOf, MessageOf } from "./kind";
import { ntfy } from "./ntfy";
import { slack } from "./slack";
import { telegram } from "./telegram";

export const CHANNEL_KINDS = { telegram, slack, discord, ntfy, email } satisfies Record<ChannelType, AnyChannelKind>;

/** Each kind's config as parse returns it (and as it is stored), by type. */
export type ChannelConfigs = { [K in ChannelType]: ConfigOf<(typeof CHANNEL_KINDS)[K]> };
/** Each kind's rendered message, by type. */
export type ChannelMessages = { [K in ChannelType]: MessageOf<(typeof CHANNEL_KINDS)[K]> };

/** The kind of a type, with its config and message types. */
export function kindOf<T extends ChannelType>(type: T): ChannelKind<ChannelConfigs[T], ChannelMessages[T]> {
  return CHANNEL_KINDS[type] as unknown as ChannelKind<ChannelConfigs[T], ChannelMessages[T]>;
}
