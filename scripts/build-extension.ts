/**
 * Builds the browser companion (extension/, Manifest V3) into dist/extension/ and dist/extension.zip.
 * Usage: bun run build:extension
 * The compiled binary embeds the zip (scripts/build.ts runs this first) and serves it at /extension.zip.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { MARKETPLACE_ORIGIN, SANDBOX_PREFIX } from "../extension/src/adapter";

const root = join(import.meta.dir, "..");
const src = join(root, "extension/src");
const out = join(root, "dist/extension");

/**
 * Host access: the marketplace, and the sandbox website on a jobpilot running on this machine (match patterns
 * without a port match every port). A server elsewhere (a VPS, a LAN address) is asked for at pairing time: the
 * options page requests it from `optional_host_permissions` and the service worker then runs the content script on
 * that server's sandbox website. The server's API needs no host access: its companion, capture and pairing routes
 * answer CORS for any origin, the key being the credential.
 */
const SANDBOX_MATCHES = [`http://localhost${SANDBOX_PREFIX}/*`, `http://127.0.0.1${SANDBOX_PREFIX}/*`];
const manifest = {
  manifest_version: 3,
  name: "jobpilot browser companion",
  version: pkg.version,
  description:
    "Brings the marketplace jobs you browse into your own jobpilot server, watches your saved searches, and fills (or, by choice, sends) your proposals.",
  // scripting: the content script on a paired server's sandbox website, registered once its host is allowed.
  permissions: ["storage", "alarms", "tabs", "idle", "scripting"],
  host_permissions: [`${MARKETPLACE_ORIGIN}/*`, ...SANDBOX_MATCHES],
  optional_host_permissions: ["http://*/*", "https://*/*"],
  background: { service_worker: "background.js", type: "module" },
  content_scripts: [{ matches: [`${MARKETPLACE_ORIGIN}/*`, ...SANDBOX_MATCHES], js: ["content.js"], run_at: "document_idle" }],
  options_page: "options.html",
  // The dashboard's "waiting for your review" link: a page that only brings the review tab to the front.
  web_accessible_resources: [{ resources: ["focus.html"], matches: ["<all_urls>"] }],
  action: { default_title: "jobpilot companion" },
};

/** A zip of the files, stored without compression: small enough, and no dependency to write it. */
function storedZip(files: { name: string; data: Uint8Array }[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const u16 = (v: number) => new Uint8Array([v & 0xff, (v >>> 8) & 0xff]);
  const u32 = (v: number) => new Uint8Array([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff]);
  const concat = (parts: Uint8Array[]) => {
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return all;
  };
  // 1980-01-01 00:00: a fixed time, so the same sources give the same zip.
  const [time, date] = [0, (0 << 9) | (1 << 5) | 1];
  for (const file of files) {
    const name = new TextEncoder().encode(file.name);
    const crc = Bun.hash.crc32(file.data);
    const common = [u16(20), u16(0), u16(0), u16(time), u16(date), u32(crc), u32(file.data.length), u32(file.data.length), u16(name.length), u16(0)];
    const local = concat([u32(0x04034b50), ...common, name]);
    central.push(concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(offset), name]));
    chunks.push(local, file.data);
    offset += local.length + file.data.length;
  }
  const directory = concat(central);
  const end = concat([u32(0x06054b50), u16(0), u16(0), u16(files.length), u16(files.length), u32(directory.length), u32(offset), u16(0)]);
  return concat([...chunks, directory, end]);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The service worker and options page are modules; a content script must be a classic script.
for (const [entrypoints, format] of [
  [[join(src, "background.ts"), join(src, "options.ts"), join(src, "focus.ts")], "esm"],
  [[join(src, "content.ts")], "iife"],
] as const) {
  const built = await Bun.build({ entrypoints: [...entrypoints], outdir: out, target: "browser", format, minify: false });
  if (!built.success) {
    for (const log of built.logs) console.error(log);
    process.exit(1);
  }
}
writeFileSync(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
for (const page of ["options.html", "options.css", "focus.html"]) writeFileSync(join(out, page), readFileSync(join(src, page)));
const files = readdirSync(out)
  .sort()
  .map((name) => ({ name, data: new Uint8Array(readFileSync(join(out, name))) }));
writeFileSync(join(root, "dist/extension.zip"), storedZip(files));
console.log(`built dist/extension/ (${files.map((f) => f.name).join(", ")}) and dist/extension.zip`);
