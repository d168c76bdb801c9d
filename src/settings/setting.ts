import type { TSchema } from "@sinclair/typebox";

/** One setting: its environment variable, its command-line flag if it has one, the schema its value must match, its default and its line in the README. */
export interface Setting {
  env: string;
  flag: string | undefined;
  schema: TSchema;
  default: unknown;
  doc: string;
}
