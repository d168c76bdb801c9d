/**
 * Column helpers of the PostgreSQL schema: how a SQLite column type of src/db/schema maps here, with the
 * same TypeScript row type on both sides (tests/db/schema-twins.test.ts proves it table by table).
 *
 *  - text → text; text with `enum` → text with the same `enum`.
 *  - integer holding Unix ms (every `*_ts` column), ids, sequences and running totals → bigint, mode "number"
 *    (SQLite's INTEGER is 64-bit; PostgreSQL's integer is 32-bit and would overflow in 2038-style ways).
 *  - other integer counts → integer.
 *  - integer with mode "boolean" → boolean.
 *  - real → double precision (SQLite's REAL is an 8-byte float).
 *  - text with mode "json" → `jsonText`: text holding JSON, so a document keeps its key order and spelling
 *    exactly as on SQLite (jsonb would reorder keys; no query reads inside JSON).
 */
import { bigint, customType } from "drizzle-orm/pg-core";

/** A Unix ms instant (or any 64-bit integer the code reads as a JS number). */
export const int64 = <TName extends string>(name: TName) => bigint(name, { mode: "number" });

/** JSON kept as text: JSON.stringify on the way in, JSON.parse on the way out, as sqlite-core's text "json" mode does. */
export const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value) as unknown,
});
