/**
 * How a boolean setting is spelled in the environment and on the command line: `true`/`1` and `false`/`0`;
 * anything else is not a boolean (undefined). Pure and import-free: main.ts reads one setting with it before
 * the rest of the program (and config.ts) is loaded.
 */
export function booleanText(raw: string): boolean | undefined {
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  return undefined;
}
