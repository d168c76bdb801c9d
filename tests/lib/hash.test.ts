import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../src/lib/hash";

describe("sha256Hex", () => {
  test("the standard test vectors, as lower-case hex", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("hashes the UTF-8 bytes of the text", () => {
    expect(sha256Hex("Zürich ✓")).toBe(createHash("sha256").update(Buffer.from("Zürich ✓", "utf8")).digest("hex"));
  });
});
