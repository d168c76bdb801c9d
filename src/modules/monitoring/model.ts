import { t } from "elysia";

export const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("error")]),
  version: t.String(),
  uptimeS: t.Integer(),
  database: t.Object({ status: t.Union([t.Literal("ok"), t.Literal("error")]), journalMode: t.Optional(t.String()), error: t.Optional(t.String()) }),
});

const LoopHealth = t.Object({
  name: t.String({ description: "tasks, apply (the submit worker), webhooks, source:<name>, schedule:<name>, usage-flush" }),
  ok: t.Boolean(),
  lastTickAgoS: t.Number({ description: "Seconds since the loop last ticked" }),
  reason: t.Optional(t.String({ description: "stopped, or how long it has been silent" })),
});

export const Readiness = t.Object(
  {
    ready: t.Boolean(),
    reason: t.Optional(t.String({ description: "Why not, one clause per failing check" })),
    checks: t.Object({
      database: t.Object({ ok: t.Boolean(), error: t.Optional(t.String()) }),
      storage: t.Object(
        { ok: t.Boolean(), error: t.Optional(t.String()) },
        { description: "Whether the database takes writes: not ok while its disk is full (a write of its own fails, or one was refused in the last 30 s)" },
      ),
      migrations: t.Object({
        ok: t.Boolean(),
        applied: t.Optional(t.Integer()),
        expected: t.Optional(t.Integer({ description: "This version's migrations" })),
        pending: t.Optional(t.Array(t.String())),
        unknown: t.Optional(t.Array(t.String(), { description: "Migrations of a newer version (does not make it unready)" })),
      }),
      loops: t.Object({ ok: t.Boolean(), loops: t.Array(LoopHealth) }),
      outbox: t.Optional(
        t.Object(
          {
            accountsWaiting: t.Integer({ description: "Accounts with an alert or webhook event due now" }),
            oldestDueAgeS: t.Number({ description: "Seconds the oldest due event of any account has waited (0: none is due)" }),
            medianOldestDueAgeS: t.Number({ description: "Median over those accounts of their oldest due event's wait, in seconds" }),
          },
          { description: "The delivery outbox; informational, never makes the server unready. Per account: /metrics jobpilot_outbox_oldest_due_age_seconds" },
        ),
      ),
    }),
  },
  { title: "Readiness" },
);
