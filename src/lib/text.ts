/**
 * Word tokens for matching and scoring: lower-cased runs of letters and digits,
 * keeping a trailing `+` or `#` (so `c++`, `c#` and `f#` stay themselves).
 * Everything else separates tokens: `node.js` → node, js; `front-end` → front,
 * end. Feed keywords go through the same function, so a phrase matches the
 * same token sequence in the text.
 */
const TOKEN = /[\p{L}\p{N}]+[+#]*/gu;

export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize("NFKC").match(TOKEN) ?? [];
}
