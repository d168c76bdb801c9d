/**
 * The PostgreSQL schema: the pg-core twin of src/db/schema, file by file, with the same table, column and
 * index names and the same TypeScript row types (tests/db/schema-twins.test.ts proves it; tests/db/dialects.test.ts
 * compares the two migrated databases). Change both together, then `bun run db:generate`.
 * drizzle-kit reads these files through drizzle.pg.config.ts.
 */
export * from "./accounts";
export * from "./jobs";
export * from "./feeds";
export * from "./scoring";
export * from "./webhooks";
export * from "./worker";
export * from "./applications";
export * from "./marketplace";
export * from "./sources";
export * from "./dashboard";
export * from "./channels";
export * from "./telegram";
export * from "./pairing";
export * from "./proposals";
export * from "./experiments";
export * from "./automation";
export * from "./members";
export * from "./clients";
