// Imported first so its format checks are in place before this module replaces one of them.
import "@elysiajs/openapi";
import { FormatRegistry } from "@sinclair/typebox";

/**
 * @elysiajs/openapi, when loaded, registers TypeBox string formats (uuid, email, url, …) that build
 * a new zod schema on every check, a large share of a response's cost (docs/performance.md, 'Why the code is as it is').
 * The formats our schemas use are put back here as one regex each,
 * the same regex zod checks (so what passes does not change).
 */
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
FormatRegistry.Set("uuid", (value) => UUID.test(value));
