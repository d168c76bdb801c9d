/**
 * The database schema, one file per owning feature; every table is re-exported here so code imports
 * from "db/schema" and drizzle-kit (drizzle.config.ts) reads the same files.
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
