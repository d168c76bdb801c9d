import { t } from "elysia";
import { PROFILE_TYPES } from "../../db/enums";
import { literalUnion } from "../../http/schemas";

export const FreelancerProfile = t.Object(
  {
    type: literalUnion(PROFILE_TYPES),
    name: t.String(),
    hourlyRate: t.Nullable(t.Number()),
    currency: t.String(),
    profileId: t.String({ description: "Pass as profileId to apply." }),
  },
  { title: "FreelancerProfile" },
);

export const Freelancer = t.Object(
  {
    id: t.String({ description: "The freelancer's marketplace ciphertext" }),
    name: t.String(),
    avatarUrl: t.Nullable(t.String()),
    baseHourlyRate: t.Nullable(t.Number()),
    profiles: t.Array(FreelancerProfile),
  },
  { title: "Freelancer" },
);

export const FreelancersResponse = t.Object({ freelancers: t.Array(Freelancer) });

// Managing the roster (sandbox driver): the agency's own add / edit / remove, the API twins of the dashboard's forms.

const Name = (what: string) => t.String({ minLength: 1, maxLength: 100, description: what });
const Rate = (what: string) => t.Number({ minimum: 0, maximum: 10_000, description: what });
// Checked by the roster (a two-letter code), so the message says what a country must be, not only "a string".
const Country = t.String({ maxLength: 100, description: "ISO 3166 alpha-2, e.g. US" });
const Skills = t.Array(t.String({ maxLength: 60 }), { maxItems: 50, description: "The profile's skills, in order" });

export const ManagedProfile = t.Object(
  {
    profileId: t.String(),
    type: literalUnion(PROFILE_TYPES),
    name: t.String({ description: "The profile's title" }),
    hourlyRate: t.Nullable(t.Number()),
    currency: t.String(),
    skills: t.Array(t.String()),
  },
  { title: "ManagedFreelancerProfile" },
);

export const ManagedFreelancer = t.Object(
  {
    id: t.String(),
    name: t.String(),
    baseHourlyRate: t.Nullable(t.Number()),
    country: t.String(),
    own: t.Boolean({ description: "The account's own freelancer: it can be edited, not removed" }),
    profiles: t.Array(ManagedProfile),
  },
  { title: "ManagedFreelancer" },
);

export const ManagedFreelancerResponse = t.Object({ freelancer: ManagedFreelancer });

export const NewProfileBody = t.Object(
  { name: Name("The profile's title"), hourlyRate: t.Optional(Rate("Hourly rate in USD; default: the freelancer's base rate")), skills: t.Optional(Skills) },
  { additionalProperties: false },
);

export const NewFreelancerBody = t.Object(
  {
    name: Name("The freelancer's name, unique in the account"),
    hourlyRate: t.Optional(Rate("Base hourly rate in USD (default 45)")),
    country: t.Optional(Country),
    profiles: t.Optional(t.Array(NewProfileBody, { maxItems: 20, description: "Specialized profiles besides the default one" })),
  },
  { additionalProperties: false },
);

export const FreelancerPatch = t.Object(
  { name: t.Optional(Name("A new name")), hourlyRate: t.Optional(Rate("Base hourly rate in USD")), country: t.Optional(Country) },
  { additionalProperties: false },
);

export const ProfilePatch = t.Object(
  { name: t.Optional(Name("A new title")), hourlyRate: t.Optional(Rate("Hourly rate in USD")), skills: t.Optional(Skills) },
  { additionalProperties: false },
);

export const FreelancerParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) });
export const ProfileParams = t.Object({ id: t.String({ minLength: 1, maxLength: 200 }), profileId: t.String({ minLength: 1, maxLength: 200 }) });
