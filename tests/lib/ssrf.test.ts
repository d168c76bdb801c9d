import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  allowlistEntryError,
  checkUrl,
  classifyAddress,
  EgressBlockedError,
  type EgressPolicy,
  isAllowedAddress,
  type Resolver,
  resolvePinned,
  safeFetch,
} from "../../src/lib/ssrf";

// Everything here stays on loopback: stub resolvers stand in for DNS, and the
// only servers contacted are Bun.serve instances on 127.0.0.x.

const strict: EgressPolicy = { allowPrivate: false, allowlist: [] };
const open: EgressPolicy = { allowPrivate: true, allowlist: [] };
const noDns: Resolver = async (host) => {
  throw new Error(`DNS must not be asked about ${host}`);
};
const answers =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;
function counting(map: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve: Resolver = async (host) => {
    calls.push(host);
    return map[host] ?? [];
  };
  return { calls, resolve };
}

async function blockedReason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(EgressBlockedError);
    return (err as Error).message;
  }
  throw new Error("expected an EgressBlockedError");
}

const servers: { stop(force: boolean): unknown }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A loopback server that records what reaches it. */
function receiver(reply: (req: Request) => Response | Promise<Response> = () => new Response("ok"), hostname = "127.0.0.1", port = 0) {
  const seen: { method: string; path: string; host: string | null; headers: Headers; body: string }[] = [];
  const server = Bun.serve({
    hostname,
    port,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({ method: req.method, path: url.pathname, host: req.headers.get("host"), headers: req.headers, body: await req.text() });
      return reply(req);
    },
  });
  servers.push(server);
  return { seen, port: server.port! };
}

describe("classifyAddress / isAllowedAddress", () => {
  // Svix's is_allowed_test list (reliability.md §0 row 8), verbatim.
  const svixBlocked = [
    "10.254.0.0",
    "192.168.10.65",
    "172.16.10.65",
    "0.1.2.3",
    "0.0.0.0",
    "127.0.0.1",
    "169.254.45.1",
    "255.255.255.255",
    "192.0.2.255",
    "198.51.100.65",
    "203.0.113.6",
    "100.100.0.0",
    "192.0.0.0",
    "192.0.0.255",
    "250.10.20.30",
    "198.18.0.0",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:0.0.0.1",
  ];
  const svixAllowed = ["1.1.1.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"];

  test.each(svixBlocked)("%s is blocked", (ip) => {
    expect(classifyAddress(ip).global).toBe(false);
    expect(isAllowedAddress(ip, strict).allowed).toBe(false);
  });
  test.each(svixAllowed)("%s is allowed", (ip) => {
    expect(classifyAddress(ip).global).toBe(true);
    expect(isAllowedAddress(ip, strict)).toEqual({ allowed: true });
  });

  // [address, range name it must report] for every special-purpose block, with edges just inside.
  const ranges: [string, string][] = [
    ["0.255.255.255", "this network"],
    ["10.0.0.0", "private (RFC 1918)"],
    ["100.64.0.0", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.31.255.255", "private (RFC 1918)"],
    ["192.0.0.9", "IETF protocol assignments"],
    ["192.0.2.1", "documentation (TEST-NET-1)"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.255.255", "private (RFC 1918)"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.1", "documentation (TEST-NET-2)"],
    ["203.0.113.255", "documentation (TEST-NET-3)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.254", "reserved"],
    ["255.255.255.255", "limited broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:10.1.2.3", "private (RFC 1918)"],
    ["::ffff:169.254.169.254", "link-local"],
    ["64:ff9b::127.0.0.1", "loopback (inside NAT64)"],
    ["64:ff9b::a00:1", "private (RFC 1918) (inside NAT64)"],
    ["64:ff9b:1::1", "NAT64 local-use"],
    ["100::1", "discard-only"],
    ["2001::1", "TEREDO"],
    ["2001:1ff:ffff::1", "IETF protocol assignments"],
    ["2001:db8::1", "documentation"],
    ["2001:DB8:FFFF::1", "documentation"],
    ["2002:7f00:1::", "loopback (inside 6to4)"],
    ["2002:c0a8:101::1", "private (RFC 1918) (inside 6to4)"],
    ["3fff::1", "documentation"],
    ["fc00::1", "unique local"],
    ["fdff:ffff::1", "unique local"],
    ["fe80::1", "link-local"],
    ["FEBF::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["::127.0.0.1", "reserved"], // deprecated IPv4-compatible form
    ["4000::1", "reserved"],
  ];
  test.each(ranges)("%s is not global (%s)", (ip, range) => {
    const result = classifyAddress(ip);
    expect(result.global).toBe(false);
    expect(result.range).toContain(range);
    const verdict = isAllowedAddress(ip, strict);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(range);
  });

  // Just outside the blocks above.
  const globals = [
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.0.3.1",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "64:ff9b::8.8.8.8",
    "2001:200::1",
    "2002:808:808::1",
    "2a00:1450:4001::1",
    "3ffe::1",
  ];
  test.each(globals)("%s is global", (ip) => {
    expect(classifyAddress(ip).global).toBe(true);
    expect(isAllowedAddress(ip, strict).allowed).toBe(true);
  });

  test("odd IPv4 notations are read as the URL parser reads them", () => {
    for (const ip of ["0x7f.1", "2130706433", "017700000001", "0177.0.0.1", "127.1", "0x7f000001"]) {
      expect(classifyAddress(ip), ip).toEqual({ global: false, range: "loopback" });
    }
  });

  test("malformed text and zone ids are never global", () => {
    for (const text of [
      "",
      "example.com",
      "256.0.0.1",
      "1.2.3.4.5",
      "fe80::1%eth0",
      "::1%lo",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "12345::",
      ":1::",
      "1.2.3.4::1.2.3.4",
      "::1.2.3.4:5",
      "::ffff:127.0.0.01",
      "8.8.8.8@127.0.0.1",
      "[::1",
    ]) {
      expect(classifyAddress(text).global, text).toBe(false);
      expect(isAllowedAddress(text, open).allowed, text).toBe(false);
    }
  });
});

describe("policy", () => {
  test("allowPrivate allows every address", () => {
    for (const ip of ["127.0.0.1", "::1", "10.0.0.1", "169.254.169.254", "::ffff:127.0.0.1"]) {
      expect(isAllowedAddress(ip, open)).toEqual({ allowed: true });
    }
  });

  test("CIDR entries allow just their block, IPv4-mapped addresses included", () => {
    const policy = { allowPrivate: false, allowlist: ["127.0.0.1/32", "10.0.0.0/8", "fd00::/8"] };
    for (const ip of ["127.0.0.1", "::ffff:127.0.0.1", "10.200.3.4", "fd12::1"]) expect(isAllowedAddress(ip, policy).allowed, ip).toBe(true);
    for (const ip of ["127.0.0.2", "::1", "192.168.1.1", "fc00::1"]) expect(isAllowedAddress(ip, policy).allowed, ip).toBe(false);
  });

  test("allowlist entries are validated", () => {
    for (const entry of ["hooks.internal", "*.lan", "10.0.0.0/8", "fd00::/8", "127.0.0.1/32", "::1"]) expect(allowlistEntryError(entry), entry).toBeUndefined();
    for (const entry of ["10.0.0.0/33", "fd00::/129", "10.0.0/8x", "hooks internal", "a.*.lan", "1::2::3/64"])
      expect(allowlistEntryError(entry), entry).toBeString();
  });

  test("a hostname entry allows whatever that name resolves to, and only that name", async () => {
    const policy = { allowPrivate: false, allowlist: ["hooks.internal", "*.lan"] };
    const resolve = answers("10.1.2.3");
    expect(await checkUrl("http://hooks.internal/x", policy, resolve)).toEqual({ ok: true });
    expect(await checkUrl("http://HOOKS.internal./x", policy, resolve)).toEqual({ ok: true });
    expect(await checkUrl("http://printer.lan/", policy, resolve)).toEqual({ ok: true });
    expect(await checkUrl("http://a.b.lan/", policy, resolve)).toEqual({ ok: true });
    for (const url of ["http://lan/", "http://evillan/", "http://hooks.internal.evil.com/", "http://other.internal/"]) {
      expect((await checkUrl(url, policy, resolve)).ok, url).toBe(false);
    }
    // A name entry does not open the address to literal-IP URLs.
    expect((await checkUrl("http://10.1.2.3/", policy, noDns)).ok).toBe(false);
  });
});

describe("checkUrl", () => {
  test("only http and https, no credentials, a valid URL", async () => {
    const resolve = answers("1.1.1.1");
    expect(await checkUrl("https://hooks.example.com/x", strict, resolve)).toEqual({ ok: true });
    expect(await checkUrl("http://hooks.example.com:8080/x?y=1", strict, resolve)).toEqual({ ok: true });
    for (const [url, reason] of [
      ["ftp://hooks.example.com/", "ftp:"],
      ["file:///etc/passwd", "file:"],
      ["gopher://hooks.example.com/", "gopher:"],
      ["http://user:secret@hooks.example.com/", "credentials"],
      ["http://user@hooks.example.com/", "credentials"],
      ["not a url", "not a valid URL"],
      ["http://[fe80::1%25eth0]/", "not a valid URL"],
    ] as const) {
      const result = await checkUrl(url, strict, resolve);
      expect(result.ok, url).toBe(false);
      if (!result.ok) expect(result.reason, url).toContain(reason);
    }
  });

  test("literal and oddly written IP hosts are checked without DNS", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://0x7f.1/",
      "http://2130706433/",
      "http://017700000001/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://0/",
      "http://0.0.0.0:8080/",
      "http://[::1]/",
      "http://[0:0:0:0:0:0:0:1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[64:ff9b::127.0.0.1]/",
      "http://[2002:7f00:1::]/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:a9fe:a9fe]/",
      "https://10.0.0.1/",
      "http://[fd00::1]/",
    ]) {
      const result = await checkUrl(url, strict, noDns);
      expect(result.ok, url).toBe(false);
    }
    expect(await checkUrl("https://1.1.1.1/", strict, noDns)).toEqual({ ok: true });
    expect(await checkUrl("https://[2606:4700:4700::1111]/", strict, noDns)).toEqual({ ok: true });
  });

  test("every resolved address must be allowed", async () => {
    const mixed = await checkUrl("https://hooks.example.com/", strict, answers("1.1.1.1", "10.0.0.1"));
    expect(mixed).toEqual({ ok: false, reason: "hooks.example.com resolves to 10.0.0.1, which is not a public address (private (RFC 1918))" });
    expect((await checkUrl("https://hooks.example.com/", strict, answers("2001:4860:4860::8888", "::1"))).ok).toBe(false);
    expect((await checkUrl("http://127.0.0.1.nip.io/", strict, answers("127.0.0.1"))).ok).toBe(false);
    expect(await checkUrl("https://hooks.example.com/", strict, answers("1.1.1.1", "2001:4860:4860::8888"))).toEqual({ ok: true });
  });

  test("unresolvable hosts, empty and garbage answers are refused", async () => {
    const notFound: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await checkUrl("https://nowhere.example/", strict, notFound)).toEqual({ ok: false, reason: "could not resolve nowhere.example (ENOTFOUND)" });
    expect((await checkUrl("https://nowhere.example/", strict, answers())).ok).toBe(false);
    expect((await checkUrl("https://odd.example/", open, answers("fe80::1%eth0"))).ok).toBe(false);
  });

  test("localhost through the system resolver is refused", async () => {
    const result = await checkUrl("http://localhost:8080/", strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain("loopback");
  });
});

describe("safeFetch", () => {
  const post = (over: Partial<{ headers: Record<string, string>; body: string; timeoutMs: number }> = {}) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"hello":1}',
    timeoutMs: 2_000,
    ...over,
  });

  test("refuses private destinations before connecting", async () => {
    const { seen, port } = receiver();
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[::1]:${port}/`,
      `http://0x7f.1:${port}/`,
    ]) {
      const reason = await blockedReason(safeFetch(url, post(), strict));
      expect(reason, url).toMatch(/loopback|this network/);
    }
    await blockedReason(safeFetch(`ftp://127.0.0.1:${port}/`, post(), open));
    await blockedReason(safeFetch(`http://u:p@127.0.0.1:${port}/`, post(), open));
    expect(seen).toHaveLength(0);
  });

  test("connects to the resolved address and keeps the hostname in the Host header", async () => {
    const { seen, port } = receiver();
    const dns = counting({ "hooks.test": ["127.0.0.1"] });
    const headers = { "content-type": "application/json", "webhook-id": "msg_1", Host: "evil.example" };
    const res = await safeFetch(`http://hooks.test:${port}/in?x=1#frag`, post({ headers }), open, dns.resolve);
    expect(res.status).toBe(200);
    expect(dns.calls).toEqual(["hooks.test"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!).toMatchObject({ method: "POST", path: "/in", host: `hooks.test:${port}`, body: '{"hello":1}' });
    expect(seen[0]!.headers.get("webhook-id")).toBe("msg_1");
  });

  test("DNS rebinding: resolves once and connects to the address it checked", async () => {
    // The "public" address is 127.0.0.2 (allowlisted here); 127.0.0.1 plays the internal target, on the same port.
    const good = receiver(() => new Response("good"), "127.0.0.2");
    const evil = receiver(() => new Response("evil"), "127.0.0.1", good.port);
    let lookups = 0;
    const rebinding: Resolver = async () => (lookups++ === 0 ? ["127.0.0.2"] : ["127.0.0.1"]);
    const policy = { allowPrivate: false, allowlist: ["127.0.0.2/32"] };

    const res = await safeFetch(`http://rebind.test:${good.port}/`, post(), policy, rebinding);
    expect(await res.text()).toBe("good");
    expect(lookups).toBe(1);
    expect(good.seen).toHaveLength(1);
    expect(good.seen[0]!.host).toBe(`rebind.test:${good.port}`);

    // The next delivery sees the rebound answer and is refused before connecting.
    expect(await blockedReason(safeFetch(`http://rebind.test:${good.port}/`, post(), policy, rebinding))).toContain("loopback");
    expect(lookups).toBe(2);
    expect(evil.seen).toHaveLength(0);
  });

  test("a redirect is returned as is and its target never contacted", async () => {
    const target = receiver();
    const { seen, port } = receiver(() => new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${target.port}/stolen` } }));
    const res = await safeFetch(`http://hooks.test:${port}/`, post(), open, answers("127.0.0.1"));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`http://127.0.0.1:${target.port}/stolen`);
    expect(seen).toHaveLength(1);
    expect(target.seen).toHaveLength(0);
  });

  test("a hanging server is abandoned after timeoutMs", async () => {
    const { port } = receiver(() => new Promise<Response>(() => {}));
    const started = performance.now();
    const error = await safeFetch(`http://hooks.test:${port}/`, post({ timeoutMs: 200 }), open, answers("127.0.0.1")).catch((err) => err);
    expect((error as Error).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  test("a hanging resolver counts against the same timeout", async () => {
    const started = performance.now();
    const error = await safeFetch("http://hooks.test/", post({ timeoutMs: 200 }), strict, () => new Promise<string[]>(() => {})).catch((err) => err);
    expect((error as Error).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  test("a host that does not resolve is a plain (retryable) error", async () => {
    const error = await safeFetch("http://nowhere.test/", post(), strict, answers()).catch((err) => err);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(EgressBlockedError);
  });

  // https: the connection goes to the pinned IP while SNI and the certificate check use the hostname.
  // Needs a certificate the child process trusts (NODE_EXTRA_CA_CERTS is read at start-up), so openssl must exist.
  test.skipIf(!Bun.which("openssl"))("https keeps SNI and certificate verification for the hostname", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ssrf-tls-"));
    try {
      const openssl = (name: string) =>
        Bun.spawnSync([
          "openssl",
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "1",
          "-keyout",
          join(dir, `${name}.key`),
          "-out",
          join(dir, `${name}.crt`),
          "-subj",
          `/CN=${name}`,
          "-addext",
          `subjectAltName=DNS:${name}`,
        ]);
      expect(openssl("hooks.test").exitCode).toBe(0);
      expect(openssl("other.test").exitCode).toBe(0);
      const cert = (name: string) => ({ serverName: name, cert: Bun.file(join(dir, `${name}.crt`)), key: Bun.file(join(dir, `${name}.key`)) });
      const seen: string[] = [];
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        tls: [cert("hooks.test"), cert("other.test")], // picked by SNI
        fetch: async (req) => (seen.push(`${req.headers.get("host")} ${await req.text()}`), new Response("tls ok")),
      });
      servers.push(server);
      const script = join(dir, "client.ts");
      await Bun.write(
        script,
        `
        import { safeFetch } from ${JSON.stringify(join(import.meta.dir, "../../src/lib/ssrf.ts"))};
        const policy = { allowPrivate: true, allowlist: [] };
        const out = [];
        for (const host of ["hooks.test", "nothing.test"]) {
          try {
            const res = await safeFetch("https://" + host + ":${server.port}/", { method: "POST", headers: {}, body: "b", timeoutMs: 3000 }, policy, async () => ["127.0.0.1"]);
            out.push(res.status + " " + await res.text());
          } catch (err) { out.push("error " + err.code); }
        }
        console.log(JSON.stringify(out));`,
      );
      // Trust only hooks.test's certificate: other.test would fail the chain, nothing.test matches no SAN.
      const child = Bun.spawn([process.execPath, script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "hooks.test.crt") },
        stdout: "pipe",
        stderr: "inherit",
      });
      const timer = setTimeout(() => child.kill(), 10_000);
      const out = await new Response(child.stdout).text();
      clearTimeout(timer);
      expect(JSON.parse(out)).toEqual(["200 tls ok", "error ERR_TLS_CERT_ALTNAME_INVALID"]);
      expect(seen).toEqual([`hooks.test:${server.port} b`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("resolvePinned (hosts reached without http, e.g. SMTP)", () => {
  const answers =
    (...ips: string[]): Resolver =>
    async () =>
      ips;

  test("returns the checked address to connect to", async () => {
    expect(await resolvePinned("smtp.example.com", strict, 1_000, answers("93.184.215.14"))).toBe("93.184.215.14");
    expect(await resolvePinned("2606:4700::1", strict, 1_000)).toBe("2606:4700::1");
    expect(await resolvePinned("127.0.0.1", open, 1_000)).toBe("127.0.0.1");
  });

  test("refuses as safeFetch does: private answers, literal private hosts in any spelling, not-a-host text", async () => {
    await expect(resolvePinned("smtp.example.com", strict, 1_000, answers("93.184.215.14", "10.0.0.1"))).rejects.toBeInstanceOf(EgressBlockedError);
    await expect(resolvePinned("0x7f.1", strict, 1_000)).rejects.toThrow("127.0.0.1 is not a public address (loopback)");
    await expect(resolvePinned("::1", strict, 1_000)).rejects.toBeInstanceOf(EgressBlockedError);
    await expect(resolvePinned("evil.example@127.0.0.1", strict, 1_000)).rejects.toBeInstanceOf(EgressBlockedError);
    expect(await resolvePinned("relay.lan", { allowPrivate: false, allowlist: ["relay.lan"] }, 1_000, answers("10.0.0.25"))).toBe("10.0.0.25");
  });

  test("a name that does not resolve is a plain (retryable) error", async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const err = await resolvePinned("nowhere.example", strict, 1_000, failing).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(EgressBlockedError);
    expect(err.message).toContain("ENOTFOUND");
  });
});
