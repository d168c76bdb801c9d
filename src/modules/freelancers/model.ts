import { t } from "elysia";

export const FreelancerProfile = t.Object(
  {
    type: t.Union([t.Literal("default"), t.Literal("specialization")]),
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
