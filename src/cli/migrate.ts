import type { Command } from "./command";
import { databaseLabel } from "../deps";
import { withDeps } from "./db";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply pending database migrations and exit (serve also applies them at start).",
  usage: "jobpilot migrate [--db PATH]",
  options: {},
  run(ctx) {
    return withDeps(ctx, (deps, migrations) => {
      const applied = migrations.applied.length;
      ctx.io.stdout(
        `Database ${databaseLabel(deps.config)}: ${applied ? `applied ${migrations.applied.join(", ")}` : "already up to date"} (${migrations.total} migrations in all).\n`,
      );
      return 0;
    });
  },
};
