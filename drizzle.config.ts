import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // One file per owning feature; src/db/schema/index.ts only re-exports them.
  schema: "./src/db/schema/*.ts",
  out: "./migrations",
});
