import { describe, expect, test } from "bun:test";
import { generateSecretKey, isEnvelope, open, seal, SecretBoxError, sealPurpose } from "../../src/lib/secret-box";

const KEY = "secret-box-test-key-0123456789";
const A = sealPurpose("test/a/v1", "test a");
const B = sealPurpose("test/b/v1", "test b");

const failure = async (p: Promise<unknown>): Promise<SecretBoxError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof SecretBoxError) return err;
    throw err;
  }
  throw new Error("opened");
};

describe("secret box", () => {
  test("seals and opens; each seal is fresh (new salt and IV), and the text is not in the envelope", async () => {
    const plain = JSON.stringify({ botToken: "123:very-secret-token" });
    const one = await seal(KEY, plain, A);
    const two = await seal(KEY, plain, A);
    expect(one).not.toBe(two);
    expect(one).not.toContain("very-secret");
    expect(isEnvelope(one)).toBe(true);
    expect(await open(KEY, one, A)).toBe(plain);
    expect(await open(KEY, two, A)).toBe(plain);
  });

  test("a wrong key, another purpose's envelope or any edit does not open (tag); a malformed envelope says what is wrong; a short key is refused", async () => {
    const sealed = await seal(KEY, "hello", A);
    expect((await failure(open(`${KEY}x`, sealed, A))).kind).toBe("tag");
    expect((await failure(open(KEY, sealed, B))).kind).toBe("tag");
    const envelope = JSON.parse(sealed);
    const data = Buffer.from(envelope.data, "base64");
    data[0]! ^= 1;
    expect((await failure(open(KEY, JSON.stringify({ ...envelope, data: data.toString("base64") }), A))).kind).toBe("tag");
    expect(await failure(open(KEY, "nope", A))).toMatchObject({ kind: "format", message: "not JSON" });
    expect(await failure(open(KEY, JSON.stringify({ ...envelope, v: 2 }), A))).toMatchObject({ kind: "format", message: "unknown format version" });
    expect(await failure(open(KEY, JSON.stringify({ ...envelope, iv: "AAAA" }), A))).toMatchObject({ kind: "format" });
    expect((await failure(seal("short", "x", A))).kind).toBe("key");
  });

  test("generated keys are 32 random bytes in base64", () => {
    const a = generateSecretKey();
    expect(Buffer.from(a, "base64")).toHaveLength(32);
    expect(a).not.toBe(generateSecretKey());
  });
});
