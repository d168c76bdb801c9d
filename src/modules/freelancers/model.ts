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
