import { defineConfig } from "drizzle-kit";

// The PostgreSQL twin of drizzle.config.ts: src/db/schema-pg mirrors src/db/schema file by file.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg/*.ts",
  out: "./migrations-pg",
});
