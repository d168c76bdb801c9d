import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SourceError } from "../../../src/sources/source";
import { loadTokens, saveTokens, tokenPathFor } from "../../../src/sources/marketplace-api/token-store";

const dir = mkdtempSync(join(tmpdir(), "jobpilot-tokens-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = "a-long-enough-secret-key-for-tests";
const TOKENS = { accessToken: "access-abc", refreshToken: "refresh-xyz", expiresAt: Date.UTC(2026, 0, 16) };

describe("token store", () => {
  test("path convention: beside the database", () => {
    expect(tokenPathFor("/var/lib/jobpilot/jobpilot.db")).toBe("/var/lib/jobpilot/marketplace-tokens.enc");
  });

  test("round trip, mode 0600, no plaintext on disk", async () => {
    const path = join(dir, "round-trip.enc");
    await saveTokens(path, KEY, TOKENS);
    expect(await loadTokens(path, KEY)).toEqual(TOKENS);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const raw = readFileSync(path, "utf8");
    expect(raw).not.toContain("refresh-xyz");
    expect(raw).not.toContain("access-abc");
    const file = JSON.parse(raw);
    expect(file).toMatchObject({ v: 1, kdf: "HKDF-SHA-256", alg: "AES-256-GCM" });
    expect(typeof file.salt).toBe("string");
  });

  test("each save uses a fresh salt and IV", async () => {
    const path = join(dir, "fresh.enc");
    await saveTokens(path, KEY, TOKENS);
    const first = JSON.parse(readFileSync(path, "utf8"));
    await saveTokens(path, KEY, TOKENS);
    const second = JSON.parse(readFileSync(path, "utf8"));
    expect(second.salt).not.toBe(first.salt);
    expect(second.iv).not.toBe(first.iv);
  });

  test("a missing file means not connected: null", async () => {
    expect(await loadTokens(join(dir, "nope.enc"), KEY)).toBeNull();
  });

  test("the wrong key is a clear SourceError, never garbage", async () => {
    const path = join(dir, "wrong-key.enc");
    await saveTokens(path, KEY, TOKENS);
    const err = await loadTokens(path, "another-key-of-enough-length").catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("JOBPILOT_SECRET_KEY");
  });

  test("a tampered ciphertext, salt or garbage file is refused", async () => {
    const path = join(dir, "tampered.enc");
    await saveTokens(path, KEY, TOKENS);
    const file = JSON.parse(readFileSync(path, "utf8"));
    for (const field of ["data", "salt", "iv"] as const) {
      const bytes = Buffer.from(file[field], "base64");
      bytes[bytes.length - 1]! ^= 0x01;
      writeFileSync(path, JSON.stringify({ ...file, [field]: bytes.toString("base64") }));
      await expect(loadTokens(path, KEY)).rejects.toBeInstanceOf(SourceError);
    }
    writeFileSync(path, "not json at all");
    await expect(loadTokens(path, KEY)).rejects.toThrow("not a marketplace token file");
  });

  test("a short or empty key is refused before writing anything", async () => {
    const path = join(dir, "short-key.enc");
    await expect(saveTokens(path, "", TOKENS)).rejects.toThrow("JOBPILOT_SECRET_KEY");
    expect(readdirSync(dir).filter((f) => f.startsWith("short-key"))).toEqual([]);
  });

  test("atomic write: a failed rename leaves no .tmp and the old content intact", async () => {
    // A directory where the file should go makes rename fail after the temp file was written.
    const sub = join(dir, "atomic");
    mkdirSync(join(sub, "target.enc"), { recursive: true });
    await expect(saveTokens(join(sub, "target.enc"), KEY, TOKENS)).rejects.toThrow("could not write marketplace tokens");
    expect(readdirSync(sub)).toEqual(["target.enc"]);

    const good = join(sub, "good.enc");
    await saveTokens(good, KEY, TOKENS);
    await saveTokens(good, KEY, { ...TOKENS, accessToken: "access-2" });
    expect(readdirSync(sub).sort()).toEqual(["good.enc", "target.enc"]);
    expect((await loadTokens(good, KEY))?.accessToken).toBe("access-2");
  });

  test("a stale .tmp from a crash is replaced, not appended to", async () => {
    const path = join(dir, "stale.enc");
    writeFileSync(`${path}.tmp`, "half-written garbage", { mode: 0o644 });
    await saveTokens(path, KEY, TOKENS);
    expect(await loadTokens(path, KEY)).toEqual(TOKENS);
    expect(readdirSync(dir).includes("stale.enc.tmp")).toBe(false);
  });
});
