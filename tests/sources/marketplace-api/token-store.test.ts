import { describe, expect, test } from "bun:test";
import { SourceError } from "../../../src/sources/source";
import { OAuthError, type MarketplaceTokens } from "../../../src/sources/marketplace-api/oauth";
import {
  decryptTokens,
  encryptTokens,
  isTokenEnvelope,
  loadTokens,
  refreshStoredTokens,
  saveTokens,
  type RefreshStoredOptions,
  type TokenVault,
} from "../../../src/sources/marketplace-api/token-store";
import { memoryVault } from "../../fixtures/marketplace-api/memory-vault";

const KEY = "a-long-enough-secret-key-for-tests";
const TOKENS = { accessToken: "access-abc", refreshToken: "refresh-xyz", expiresAt: Date.UTC(2026, 0, 16) };
/** Written by the file-based token store of earlier versions (`marketplace-tokens.enc`) under KEY. */
const LEGACY_FILE =
  '{"v":1,"kdf":"HKDF-SHA-256","alg":"AES-256-GCM","salt":"UZMIEXswKozoQdg+7nmpZQ==","iv":"0LTV/b4njT2NF3Gq","data":"OlMFHmD28b3Fp/cF8EOlRVwRozQ+mNhrzJsOYrnDCR+Wz970+HXB9OEPx+lnNBZnNM2zV/ovWh33DwrID8MdPO3cWNqZKz2z4ZlaIFd8RZB5SVyCwDL6SXbYvhQpTettOrqwj0ILPHST"}\n';

describe("token envelope", () => {
  test("round trip through a vault; no plaintext in what is stored", async () => {
    const vault = memoryVault();
    await saveTokens(vault, KEY, TOKENS, 1000);
    expect(await loadTokens(vault, KEY)).toEqual(TOKENS);
    const raw = vault.row!.ciphertext;
    expect(raw).not.toContain("refresh-xyz");
    expect(raw).not.toContain("access-abc");
    const envelope = JSON.parse(raw);
    expect(envelope).toMatchObject({ v: 1, kdf: "HKDF-SHA-256", alg: "AES-256-GCM" });
    expect(typeof envelope.salt).toBe("string");
    expect(isTokenEnvelope(raw)).toBe(true);
  });

  test("the token file of earlier versions opens unchanged: same key derivation and format", async () => {
    expect(isTokenEnvelope(LEGACY_FILE)).toBe(true);
    expect(await decryptTokens(KEY, LEGACY_FILE)).toEqual({ accessToken: "access-legacy", refreshToken: "refresh-legacy", expiresAt: Date.UTC(2026, 0, 16) });
  });

  test("each save uses a fresh salt and IV", async () => {
    const first = JSON.parse(await encryptTokens(KEY, TOKENS));
    const second = JSON.parse(await encryptTokens(KEY, TOKENS));
    expect(second.salt).not.toBe(first.salt);
    expect(second.iv).not.toBe(first.iv);
  });

  test("an empty vault means not connected: null", async () => {
    expect(await loadTokens(memoryVault(), KEY)).toBeNull();
  });

  test("the wrong key is a clear SourceError, never garbage", async () => {
    const vault = memoryVault();
    await saveTokens(vault, KEY, TOKENS, 1000);
    const err = await loadTokens(vault, "another-key-of-enough-length").catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("JOBPILOT_SECRET_KEY");
  });

  test("a tampered ciphertext, salt or garbage envelope is refused", async () => {
    const envelope = JSON.parse(await encryptTokens(KEY, TOKENS));
    for (const field of ["data", "salt", "iv"] as const) {
      const bytes = Buffer.from(envelope[field], "base64");
      bytes[bytes.length - 1]! ^= 0x01;
      await expect(decryptTokens(KEY, JSON.stringify({ ...envelope, [field]: bytes.toString("base64") }))).rejects.toBeInstanceOf(SourceError);
    }
    await expect(decryptTokens(KEY, "not json at all")).rejects.toThrow("cannot read the stored marketplace tokens (not JSON)");
    expect(isTokenEnvelope("not json at all")).toBe(false);
    expect(isTokenEnvelope('{"v":2,"alg":"AES-256-GCM","data":"x"}')).toBe(false);
  });

  test("a short or empty key is refused before storing anything", async () => {
    const vault = memoryVault();
    await expect(saveTokens(vault, "", TOKENS, 1000)).rejects.toThrow("JOBPILOT_SECRET_KEY");
    expect(vault.calls.save).toBe(0);
    expect(vault.row).toBeNull();
  });
});

describe("refreshStoredTokens: one refresh across processes", () => {
  const NOW = 1_000_000;
  const STALE: MarketplaceTokens = { accessToken: "access-0", refreshToken: "refresh-0", expiresAt: NOW + 1000 };

  /** A token endpoint that rotates: each refresh token works once; `gate` holds answers back until released. */
  function rotatingEndpoint() {
    let current = "refresh-0";
    let n = 0;
    const calls: string[] = [];
    let gate: Promise<void> = Promise.resolve();
    return {
      calls,
      hold() {
        let open!: () => void;
        gate = new Promise<void>((r) => (open = r));
        return open;
      },
      async refresh(refreshToken: string): Promise<MarketplaceTokens> {
        calls.push(refreshToken);
        await gate;
        if (refreshToken !== current) throw new OAuthError("re-authorise needed (invalid_grant)", "invalid_grant", 400);
        n++;
        current = `refresh-${n}`;
        return { accessToken: `access-${n}`, refreshToken: current, expiresAt: NOW + 86_400_000 };
      },
    };
  }

  async function connected(tokens = STALE) {
    const vault = memoryVault();
    await saveTokens(vault, KEY, tokens, NOW - 5000);
    return vault;
  }

  function options(vault: TokenVault, refresh: (t: string) => Promise<MarketplaceTokens>, extra: Partial<RefreshStoredOptions> = {}): RefreshStoredOptions {
    return {
      vault,
      secretKey: KEY,
      now: () => NOW,
      usable: (t) => t.expiresAt > STALE.expiresAt,
      refresh,
      leasePollMs: 5,
      ...extra,
    };
  }

  test("two processes refreshing at once: one call to the endpoint, both end up with the new pair, which is stored", async () => {
    const vault = await connected();
    const endpoint = rotatingEndpoint();
    const release = endpoint.hold();
    const a = refreshStoredTokens(
      options(vault, (t) => endpoint.refresh(t)),
      STALE,
    );
    const b = refreshStoredTokens(
      options(vault, (t) => endpoint.refresh(t)),
      STALE,
    );
    await Bun.sleep(20);
    release();
    const [ta, tb] = await Promise.all([a, b]);
    expect(endpoint.calls).toEqual(["refresh-0"]);
    expect(ta).toEqual(tb);
    expect(ta.refreshToken).toBe("refresh-1");
    expect(await loadTokens(vault, KEY)).toEqual(ta);
    expect(vault.row!.leaseUntilTs).toBeNull();
  });

  test("tokens someone else stored meanwhile are used without a refresh", async () => {
    const fresh = { accessToken: "access-9", refreshToken: "refresh-9", expiresAt: NOW + 86_400_000 };
    const vault = await connected(fresh);
    const endpoint = rotatingEndpoint();
    expect(
      await refreshStoredTokens(
        options(vault, (t) => endpoint.refresh(t)),
        STALE,
      ),
    ).toEqual(fresh);
    expect(endpoint.calls).toEqual([]);
    expect(vault.calls.lease).toBe(0);
  });

  test("a failed refresh gives the lease back, so the next attempt need not wait for it to run out", async () => {
    const vault = await connected();
    const err = await refreshStoredTokens(
      options(vault, async () => {
        throw new Error("token endpoint unreachable");
      }),
      STALE,
    ).catch((e) => e);
    expect(err.message).toBe("token endpoint unreachable");
    expect(vault.calls.release).toBe(1);
    expect(vault.row!.leaseUntilTs).toBeNull();
    const endpoint = rotatingEndpoint();
    expect(
      (
        await refreshStoredTokens(
          options(vault, (t) => endpoint.refresh(t)),
          STALE,
        )
      ).refreshToken,
    ).toBe("refresh-1");
  });

  test("a lease whose holder died is taken over once it runs out", async () => {
    const vault = await connected();
    let now = NOW;
    // Another process took the lease and never came back.
    expect(await vault.lease(vault.row!.version, NOW + 50, NOW)).toBe(true);
    const endpoint = rotatingEndpoint();
    const pending = refreshStoredTokens(
      options(vault, (t) => endpoint.refresh(t), { now: () => now, leaseMs: 1000 }),
      STALE,
    );
    await Bun.sleep(20);
    expect(endpoint.calls).toEqual([]);
    now = NOW + 51;
    expect((await pending).refreshToken).toBe("refresh-1");
    expect(endpoint.calls).toEqual(["refresh-0"]);
  });

  test("a lease held past its length by a live process: a transient error, not a second refresh", async () => {
    const vault = await connected();
    expect(await vault.lease(vault.row!.version, NOW + 60_000, NOW)).toBe(true);
    const endpoint = rotatingEndpoint();
    const err = await refreshStoredTokens(
      options(vault, (t) => endpoint.refresh(t), { leaseMs: 30, leasePollMs: 5 }),
      STALE,
    ).catch((e) => e);
    expect(err).not.toBeInstanceOf(SourceError);
    expect(err.message).toContain("held the marketplace token refresh for too long");
    expect(endpoint.calls).toEqual([]);
  });

  test("invalid_grant after someone else spent the token and stored its pair: their pair is used", async () => {
    const vault = await connected();
    const theirs = { accessToken: "access-theirs", refreshToken: "refresh-theirs", expiresAt: NOW + 86_400_000 };
    const got = await refreshStoredTokens(
      options(vault, async () => {
        // Meanwhile a process whose lease outlived ours refreshed and stored its pair.
        await saveTokens(vault, KEY, theirs, NOW);
        throw new OAuthError("re-authorise needed (invalid_grant)", "invalid_grant", 400);
      }),
      STALE,
    );
    expect(got).toEqual(theirs);
  });

  test("invalid_grant with nothing newer stored is the re-authorise error", async () => {
    const vault = await connected({ ...STALE, refreshToken: "revoked" });
    const endpoint = rotatingEndpoint();
    const err = await refreshStoredTokens(
      options(vault, (t) => endpoint.refresh(t)),
      STALE,
    ).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect(vault.row!.leaseUntilTs).toBeNull();
  });

  test("a new grant stored during the refresh wins over the refreshed pair", async () => {
    const vault = await connected();
    const granted = { accessToken: "access-granted", refreshToken: "refresh-granted", expiresAt: NOW + 86_400_000 };
    const refreshed: MarketplaceTokens[] = [];
    const got = await refreshStoredTokens(
      options(
        vault,
        async () => {
          await saveTokens(vault, KEY, granted, NOW); // `source connect` finished meanwhile
          return { accessToken: "access-1", refreshToken: "refresh-1", expiresAt: NOW + 86_400_000 };
        },
        { onRefreshed: (t) => refreshed.push(t) },
      ),
      STALE,
    );
    expect(got).toEqual(granted);
    expect(refreshed.map((t) => t.accessToken)).toEqual(["access-1"]);
    expect(await loadTokens(vault, KEY)).toEqual(granted);
  });

  test("a pair held in memory that is newer than the stored one (its write failed) is the one refreshed", async () => {
    const vault = await connected();
    const endpoint = rotatingEndpoint();
    const newer = { ...STALE, refreshToken: "refresh-0", expiresAt: STALE.expiresAt + 10 };
    await vault.save(await encryptTokens(KEY, { ...STALE, refreshToken: "refresh-spent" }), NOW - 1000);
    expect(
      (
        await refreshStoredTokens(
          options(vault, (t) => endpoint.refresh(t)),
          newer,
        )
      ).refreshToken,
    ).toBe("refresh-1");
    expect(endpoint.calls).toEqual(["refresh-0"]);
  });

  test("disconnected meanwhile: not connected", async () => {
    const err = await refreshStoredTokens(
      options(memoryVault(), async () => TOKENS),
      STALE,
    ).catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("not connected");
  });
});
