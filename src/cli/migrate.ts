import type { Command } from "./command";
import { databaseLabel } from "../deps";
import { withDeps } from "./db";
import { sealClearWebhooks } from "../modules/feeds/webhook-seal";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply pending database migrations, seal webhook secrets stored in clear by earlier versions, and exit (serve also does both at start).",
  usage: "jobpilot migrate [--db PATH]",
  options: {},
  run(ctx) {
    return withDeps(
      ctx,
      async (deps, migrations) => {
        const applied = migrations.applied.length;
        // An upgrade's step, as at serve's start: a backup taken right after holds no clear webhook secret.
        const sealed = await sealClearWebhooks({ db: deps.db, secretKey: deps.secretKey, log: deps.log });
        ctx.io.stdout(
          `Database ${databaseLabel(deps.config)}: ${applied ? `applied ${migrations.applied.join(", ")}` : "already up to date"} (${migrations.total} migrations in all)${sealed ? `; sealed the webhook URLs and secrets of ${sealed} feed(s)` : ""}.\n`,
        );
        return 0;
      },
      { withSecretKey: true },
    );
  },
};
