import { t } from "elysia";

export const Platform = t.Union([t.Literal("marketplace"), t.Literal("professional_network"), t.Literal("web")]);
const Money = (description: string) => t.Nullable(t.Number({ minimum: 0, description }));

/** The writable fields of a feed, exactly as the spec's Feed table (plus the `webhookUrl` extension). */
export const feedWritableFields = {
  title: t.String({ minLength: 1, maxLength: 200, description: "Display name." }),
  profilePrompt: t.String({
    maxLength: 20_000,
    description: "Plain-language description of the ideal job; each matching job is scored 0–10 against it. Empty: no scoring, every match gets 5.",
  }),
  minScore: t.Number({ minimum: 0, maximum: 10, description: "Jobs at or above it enter the feed and notify." }),
  includes: t.Array(t.String({ maxLength: 200 }), { maxItems: 200, description: "Keywords a job must contain (at least one)." }),
  excludes: t.Array(t.String({ maxLength: 200 }), { maxItems: 200, description: "Keywords that exclude a job." }),
  minHourlyRate: Money("Minimum hourly rate (hourly jobs). null clears."),
  minFixedPrice: Money("Minimum fixed budget (fixed-price jobs). null clears."),
  clientMinSpent: Money("Minimum total the client has spent. null clears."),
  countryFilterMode: t.Union([t.Literal("exclude"), t.Literal("include")]),
  excludedCountries: t.Array(t.String({ maxLength: 100 }), { maxItems: 300 }),
  includedCountries: t.Array(t.String({ maxLength: 100 }), { maxItems: 300 }),
  platforms: t.Array(Platform, { minItems: 1, description: "Omitted: all platforms." }),
  proposalGenerationPrompt: t.String({ maxLength: 20_000 }),
  notificationsMuted: t.Boolean({ description: "Matched and scored, but no notifications." }),
  emailFound: t.Union([t.Literal("all"), t.Literal("email_found")]),
  jobTypes: t.Array(t.Union([t.Literal("HOURLY"), t.Literal("FIXED")]), { description: "Marketplace only. [] = no filter." }),
  usOnlyMode: t.Union([t.Literal("all"), t.Literal("include"), t.Literal("exclude")], { description: "Marketplace only." }),
  paymentVerifiedOnly: t.Boolean({ description: "Marketplace only." }),
  clientMinRating: t.Nullable(t.Number({ minimum: 0, maximum: 5, description: "Marketplace only." })),
  clientMinReviews: t.Nullable(t.Integer({ minimum: 0, description: "Marketplace only." })),
  webhookUrl: t.Nullable(t.String({ maxLength: 2048, description: "Extension: where matches are POSTed." })),
};

const { title, minScore, ...rest } = feedWritableFields;

export const PatchFeedBody = t.Partial(t.Object(feedWritableFields), { title: "FeedPatch" });
export const CreateFeedBody = t.Object({ title, minScore, ...t.Partial(t.Object(rest)).properties }, { title: "FeedCreate" });

export const Feed = t.Object(
  {
    id: t.String({ format: "uuid" }),
    createdAtTs: t.Integer({ description: "Unix ms" }),
    ...PatchFeedBody.properties,
  },
  { title: "Feed", additionalProperties: true },
);
export type Feed = typeof Feed.static;

export const FeedParams = t.Object({ feedId: t.String({ maxLength: 100 }) });
export const FeedEnvelope = t.Object({ feed: Feed });
export const FeedList = t.Object({ feeds: t.Array(Feed) });
export const FeedDeleted = t.Object({ deleted: t.Literal(true), feedId: t.String() });
