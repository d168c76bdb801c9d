import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { generateSecret, secretKey, sign, SignatureError, signedHeaders, verify } from "../../src/lib/standard-webhooks";

// The published known-answer vector (Standard Webhooks JS library, "sign function works").
const KAT = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  msgId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestampS: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const katHeaders = (over: Record<string, string | undefined> = {}) => ({
  "webhook-id": KAT.msgId,
  "webhook-timestamp": String(KAT.timestampS),
  "webhook-signature": KAT.signature,
  ...over,
});
const at = (nowS: number) => ({ nowS });

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SignatureError);
    return (err as Error).message;
  }
  throw new Error("expected a SignatureError");
}

describe("sign", () => {
  test("matches the published known-answer vector", () => {
    expect(sign(KAT.secret, KAT.msgId, KAT.timestampS, KAT.body)).toBe(KAT.signature);
  });

  test("signs bytes and text alike", () => {
    expect(sign(KAT.secret, KAT.msgId, KAT.timestampS, new TextEncoder().encode(KAT.body))).toBe(KAT.signature);
  });

  test("a plain secret of 24+ characters is used as its UTF-8 bytes; shorter ones are refused", () => {
    const plain = "correct-horse-battery-staple-42";
    expect(secretKey(plain).toString("utf8")).toBe(plain);
    expect(() => secretKey("too-short")).toThrow(/at least 24 characters/);
    expect(() => secretKey("whsec_not*base64")).toThrow(/base64/);
    const headers = signedHeaders(plain, "msg_1", "{}", 1000);
    expect(verify(plain, headers, "{}", at(1000))).toEqual({ msgId: "msg_1", timestampS: 1000 });
  });
});

describe("verify", () => {
  test("accepts the known-answer vector", () => {
    expect(verify(KAT.secret, katHeaders(), KAT.body, at(KAT.timestampS))).toEqual({ msgId: KAT.msgId, timestampS: KAT.timestampS });
  });

  test("reads header names case-insensitively, from a Headers object too", () => {
    const upper = { "Webhook-Id": KAT.msgId, "WEBHOOK-TIMESTAMP": String(KAT.timestampS), "Webhook-Signature": KAT.signature };
    expect(() => verify(KAT.secret, upper, KAT.body, at(KAT.timestampS))).not.toThrow();
    expect(() => verify(KAT.secret, new Headers(katHeaders()), KAT.body, at(KAT.timestampS))).not.toThrow();
  });

  test("rejects a changed body", () => {
    expect(reasonOf(() => verify(KAT.secret, katHeaders(), '{"test": 2432232315}', at(KAT.timestampS)))).toMatch(/No webhook-signature entry matches/);
  });

  test("rejects a wrong secret", () => {
    expect(reasonOf(() => verify(generateSecret(), katHeaders(), KAT.body, at(KAT.timestampS)))).toMatch(/No webhook-signature entry matches/);
  });

  test("rejects a changed id", () => {
    expect(reasonOf(() => verify(KAT.secret, katHeaders({ "webhook-id": "msg_other" }), KAT.body, at(KAT.timestampS)))).toMatch(/matches/);
  });

  test("tolerance is 300 s by default, on both sides, inclusive", () => {
    const ts = KAT.timestampS;
    expect(() => verify(KAT.secret, katHeaders(), KAT.body, at(ts + 300))).not.toThrow();
    expect(() => verify(KAT.secret, katHeaders(), KAT.body, at(ts - 300))).not.toThrow();
    expect(reasonOf(() => verify(KAT.secret, katHeaders(), KAT.body, at(ts + 301)))).toMatch(/in the past/);
    expect(reasonOf(() => verify(KAT.secret, katHeaders(), KAT.body, at(ts - 301)))).toMatch(/in the future/);
    expect(reasonOf(() => verify(KAT.secret, katHeaders(), KAT.body, { nowS: ts + 11, toleranceS: 10 }))).toMatch(/more than 10 s in the past/);
  });

  test("rejects missing headers, naming the one missing", () => {
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      expect(reasonOf(() => verify(KAT.secret, katHeaders({ [name]: undefined }), KAT.body, at(KAT.timestampS)))).toBe(`Missing ${name} header`);
    }
  });

  test("rejects a timestamp that is not an integer", () => {
    expect(reasonOf(() => verify(KAT.secret, katHeaders({ "webhook-timestamp": "hello" }), KAT.body, at(KAT.timestampS)))).toMatch(/integer/);
  });

  test("rejects truncated and empty signatures, and other versions", () => {
    for (const bad of [KAT.signature.slice(0, -4), KAT.signature.slice(0, -1), "v1,", "v1", KAT.signature.replace("v1,", "v2,"), KAT.signature.slice(3)]) {
      expect(reasonOf(() => verify(KAT.secret, katHeaders({ "webhook-signature": bad }), KAT.body, at(KAT.timestampS)))).toMatch(/matches/);
    }
  });

  test("a multi-signature header passes when any v1 entry matches (secret rotation)", () => {
    const list = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,abc ${KAT.signature} v1,bm9wZQ==`;
    expect(() => verify(KAT.secret, katHeaders({ "webhook-signature": list }), KAT.body, at(KAT.timestampS))).not.toThrow();
  });
});

describe("signedHeaders and generateSecret", () => {
  test("signedHeaders gives the three headers, signed at the given second", () => {
    expect(signedHeaders(KAT.secret, KAT.msgId, KAT.body, KAT.timestampS)).toEqual({
      "webhook-id": KAT.msgId,
      "webhook-timestamp": String(KAT.timestampS),
      "webhook-signature": KAT.signature,
    });
  });

  test("generateSecret is whsec_ + base64 of 32 random bytes, different each time", () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a).length).toBe(32);
    expect(generateSecret()).not.toBe(a);
  });

  test("the standardwebhooks npm library verifies what signedHeaders produces", () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: "proposal.submit", applicationId: "a1", coverLetter: "Hello — ünïcødé" });
    const headers = signedHeaders(secret, "msg_npm_check", body, Math.floor(Date.now() / 1000));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body + " ", headers)).toThrow();
  });

  test("with a plain secret, the library verifies when given the UTF-8 bytes in raw format", () => {
    const plain = "a-long-plain-shared-secret-of-32-chars";
    const headers = signedHeaders(plain, "msg_raw", "{}", Math.floor(Date.now() / 1000));
    expect(new Webhook(new TextEncoder().encode(plain), { format: "raw" }).verify("{}", headers)).toEqual({});
  });

  test("and we verify what the library signs", () => {
    const secret = generateSecret();
    const when = new Date(1_700_000_000_000);
    const signature = new Webhook(secret).sign("msg_lib", when, '{"a":1}');
    const headers = { "webhook-id": "msg_lib", "webhook-timestamp": "1700000000", "webhook-signature": signature };
    expect(() => verify(secret, headers, '{"a":1}', at(1_700_000_000))).not.toThrow();
  });
});
