import { t } from "elysia";
import { CLIENT_LISTS } from "../../db/enums";
import { literalUnion } from "../../http/schemas";

export const CompanyParams = t.Object({ companyId: t.String({ minLength: 1, maxLength: 200 }) });

/** A client list entry's reason: a note for the account's members, shown where the client's jobs are filtered out. */
export const CLIENT_REASON_MAX = 500;

export const ClientListName = literalUnion(CLIENT_LISTS, {
  description: "blocked: the client's jobs never enter a feed; favoured: they are marked, and can alert whatever their score",
});

export const PutClientListBody = t.Object({
  list: ClientListName,
  reason: t.Optional(
    t.Nullable(t.String({ maxLength: CLIENT_REASON_MAX, description: "Why, for the account's members (shown in the feed's filtered-out view)" })),
  ),
});

export const ClientListQuery = t.Object({ list: t.Optional(ClientListName) });

export const ClientListEntry = t.Object(
  {
    companyId: t.String(),
    list: ClientListName,
    reason: t.Nullable(t.String()),
    addedAt: t.String({ description: "ISO 8601, when the client was put on this list (a change of list or reason puts it again)" }),
    addedBy: t.Nullable(t.String({ description: "The id of the member who put it there; null for an API key of no member, or Telegram" })),
  },
  { title: "ClientListEntry" },
);
export type ClientListEntry = typeof ClientListEntry.static;

export const ClientListEnvelope = t.Object({ client: ClientListEntry });
export const ClientLists = t.Object({ clients: t.Array(ClientListEntry) });
export const ClientUnlisted = t.Object({ deleted: t.Literal(true), companyId: t.String() });
