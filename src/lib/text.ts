/**
 * Word tokens for matching and scoring: lower-cased runs of letters and digits,
 * keeping a trailing `+` or `#` (so `c++`, `c#` and `f#` stay themselves).
 * Everything else separates tokens: `node.js` → node, js; `front-end` → front,
 * end. Feed keywords go through the same function, so a phrase matches the
 * same token sequence in the text.
 */
const TOKEN = /[\p{L}\p{N}]+[+#]*/gu;

/** Text as tokenize reads it (lower-cased, then NFKC): what holdsTokens searches. */
export function foldForTokens(text: string): string {
  return text.toLowerCase().normalize("NFKC");
}

export function tokenize(text: string): string[] {
  return foldForTokens(text).match(TOKEN) ?? [];
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether a token can run on into index `at`: the code point before it is a letter or a digit. */
function wordCharBefore(folded: string, at: number): boolean {
  if (at === 0) return false;
  const unit = folded.charCodeAt(at - 1);
  const start = unit >= 0xdc00 && unit <= 0xdfff && at >= 2 ? at - 2 : at - 1;
  return WORD_CHAR.test(folded.slice(start, at));
}

/**
 * Whether tokenize(text) holds `tokens` in a row, the last one as a prefix when `prefix`, found without tokenizing
 * the whole text: at each place the first token's letters occur where a token starts (no letter or digit before),
 * the tokens from there are read with tokenize's own pattern. `folded` is foldForTokens(text). The feed preview
 * tests a few keywords on many texts this way (feeds/matcher.ts ScannedText); a property test holds it to tokenize.
 */
export function holdsTokens(folded: string, tokens: readonly string[], prefix: boolean): boolean {
  const first = tokens[0];
  if (first === undefined || first === "") return false;
  const reader = new RegExp(TOKEN.source, "gu");
  for (let at = folded.indexOf(first); at !== -1; at = folded.indexOf(first, at + 1)) {
    if (wordCharBefore(folded, at)) continue;
    reader.lastIndex = at;
    let ok = true;
    for (let k = 0; k < tokens.length && ok; k++) {
      const m = reader.exec(folded);
      const want = tokens[k]!;
      ok = m !== null && (k === tokens.length - 1 && prefix ? m[0].startsWith(want) : m[0] === want);
    }
    if (ok) return true;
  }
  return false;
}
