import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { SourceError } from "../../../src/sources/source";
import { authorizeUrl, DEFAULT_AUTHORIZE_URL, exchangeCode, OAuthError, refresh } from "../../../src/sources/marketplace-api/oauth";
import { startFakeMarketplaceApi, tokenReply } from "../../fixtures/marketplace-api/fake-api";

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const api = startFakeMarketplaceApi();
afterAll(() => api.close());
beforeEach(() => api.tokenRequests.splice(0));

const base = () => ({ tokenUrl: api.tokenUrl, clientId: "client-1", clientSecret: "s3cret", now: () => NOW });

describe("authorize URL", () => {
  test("carries response_type=code, client id, redirect URI and state on the marketplace's authorize page", () => {
    const url = new URL(authorizeUrl({ clientId: "client-1", redirectUri: "http://localhost:8080/admin/oauth/callback", state: "st&ate" }));
    expect(`${url.origin}${url.pathname}`).toBe(DEFAULT_AUTHORIZE_URL);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("client_id")).toBe("client-1");
    expect(url.searchParams.get("redirect_uri")).toBe("http://localhost:8080/admin/oauth/callback");
    expect(url.searchParams.get("state")).toBe("st&ate");
    expect(url.searchParams.has("scope")).toBe(false); // scopes live on the API key
  });
});

describe("code exchange", () => {
  test("posts the form and returns tokens with expiresAt in ms", async () => {
    api.onToken(() => tokenReply("access-1", "refresh-1", 86400));
    const tokens = await exchangeCode({ ...base(), redirectUri: "http://localhost/cb", code: "the-code" });
    expect(tokens).toEqual({ accessToken: "access-1", refreshToken: "refresh-1", expiresAt: NOW + 86_400_000 });
    const form = api.tokenRequests[0]!;
    expect(Object.fromEntries(form)).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: "http://localhost/cb",
      client_id: "client-1",
      client_secret: "s3cret",
    });
  });

  test("a refused code is a SourceError telling the user to connect again", async () => {
    api.onToken(() => ({ status: 400, json: { error: "invalid_grant", error_description: "code expired" } }));
    const err = await exchangeCode({ ...base(), redirectUri: "http://localhost/cb", code: "old" }).catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toContain("code expired");
    expect(err.message).toContain("jobpilot source connect marketplace");
  });

  test("a wrong client secret is a SourceError naming the client credentials", async () => {
    api.onToken(() => ({ status: 401, json: { error: "invalid_client" } }));
    const err = await exchangeCode({ ...base(), redirectUri: "http://localhost/cb", code: "c" }).catch((e) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect(err.message).toContain("client id or secret");
  });
});

describe("refresh", () => {
  test("sends grant_type=refresh_token and takes the rotated refresh token", async () => {
    api.onToken(() => tokenReply("access-2", "refresh-2", 3600));
    const tokens = await refresh({ ...base(), refreshToken: "refresh-1" });
    expect(tokens).toEqual({ accessToken: "access-2", refreshToken: "refresh-2", expiresAt: NOW + 3_600_000 });
    expect(api.tokenRequests[0]!.get("grant_type")).toBe("refresh_token");
    expect(api.tokenRequests[0]!.get("refresh_token")).toBe("refresh-1");
  });

  test("keeps the old refresh token when the answer has none", async () => {
    api.onToken(() => tokenReply("access-3", null));
    expect((await refresh({ ...base(), refreshToken: "refresh-1" })).refreshToken).toBe("refresh-1");
  });

  test("invalid_grant (revoked or expired refresh token) → SourceError: re-authorise", async () => {
    api.onToken(() => ({ status: 400, json: { error: "invalid_grant", error_description: "refresh token revoked" } }));
    const err = await refresh({ ...base(), refreshToken: "revoked" }).catch((e) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err.message).toStartWith("re-authorise needed: run `jobpilot source connect marketplace`");
  });

  test("a 5xx from the token endpoint is transient: a plain Error, not a SourceError", async () => {
    api.onToken(() => ({ status: 503, text: "<html>down</html>" }));
    const err = await refresh({ ...base(), refreshToken: "r" }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(SourceError);
    expect(err.message).toContain("503");
  });

  test("a 200 without access_token is an error, not empty tokens", async () => {
    api.onToken(() => ({ json: { token_type: "Bearer" } }));
    await expect(refresh({ ...base(), refreshToken: "r" })).rejects.toThrow("without an access_token");
  });
});
