import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedKey, KEY_PREFIX, presentedKeyHash } from "../../../src/modules/accounts/api-key";

describe("API key format", () => {
  test("keys carry the prefix, 43 random base62 characters and a 6-character checksum", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^jp_live_[0-9A-Za-z]{49}$/);
    expect(isWellFormedKey(key)).toBe(true);
    expect(displayPrefix(key)).toBe(key.slice(0, KEY_PREFIX.length + 4));
  });

  test("keys do not repeat", () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
  });

  test("the checksum rejects every single-character change", () => {
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    fc.assert(
      fc.property(fc.integer({ min: KEY_PREFIX.length, max: KEY_PREFIX.length + 48 }), fc.integer({ min: 1, max: 61 }), (pos, shift) => {
        const key = generateApiKey();
        const c = key[pos]!;
        const replaced = alphabet[(alphabet.indexOf(c) + shift) % 62]!;
        const mutated = key.slice(0, pos) + replaced + key.slice(pos + 1);
        return !isWellFormedKey(mutated);
      }),
      { numRuns: 300 },
    );
  });

  test.each(["", "jp_live_", "sk_live_abc", generateApiKey() + "x", generateApiKey().slice(0, -1), " " + generateApiKey()])(
    "malformed input %p is refused without a lookup",
    (value) => {
      expect(isWellFormedKey(value)).toBe(false);
    },
  );

  test("the stored form is the SHA-256 hex digest of the whole key", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(new Bun.CryptoHasher("sha256").update(key).digest("hex"));
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
  });

  test("a presented key's hash is its stored form, asked once or many times, past the memo's bound too; a malformed key has none", () => {
    const keys = Array.from({ length: 2500 }, generateApiKey);
    // Each key twice, in two passes, so later passes read keys the memo kept and keys it has let go of.
    for (let pass = 0; pass < 2; pass++) for (const key of keys) expect(presentedKeyHash(key)).toBe(hashApiKey(key));
    const key = keys[0]!;
    const mutated = key.slice(0, -1) + (key.endsWith("0") ? "1" : "0");
    expect(presentedKeyHash(mutated)).toBeNull();
    expect(presentedKeyHash(key + "x")).toBeNull();
    expect(presentedKeyHash("")).toBeNull();
    expect(presentedKeyHash(key)).toBe(hashApiKey(key));
  });
});
