import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

/** One value import between two files, both relative to the root (`http/auth.ts` → `errors.ts`). */
interface ImportEdge {
  from: string;
  to: string;
}

/**
 * Every relative value import of every .ts file under `root`: static, re-exports,
 * side-effect and dynamic imports. Type-only imports (`import type`, or every
 * name marked `type`) are left out, as Bun's transpiler leaves them out: they
 * are gone at run time and create no dependency.
 */
function valueImports(root = SRC): ImportEdge[] {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const edges: ImportEdge[] = [];
  for (const from of new Glob("**/*.ts").scanSync(root)) {
    if (from.endsWith(".d.ts")) continue;
    const code = readFileSync(join(root, from), "utf8").replace(/^#!.*/, ""); // main.ts starts with a shebang the scanner refuses
    for (const { path } of transpiler.scanImports(code)) {
      if (!path.startsWith(".")) continue; // packages
      const to = relative(root, resolve(root, dirname(from), path));
      edges.push({ from, to: extname(to) ? to : `${to}.ts` });
    }
  }
  return edges;
}

const inFolder = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

/** A file's node in the folder graph: its folder, or the file itself at the root (app.ts, deps.ts, errors.ts… are kernels of their own). */
const nodeOf = (file: string) => (dirname(file) === "." ? file : dirname(file));

/** The strongly connected components of more than one folder (Tarjan), each sorted: the folder-level import cycles. */
function folderCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = nodeOf(from);
    const b = nodeOf(to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)!.add(b);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * One owner per table: the folder (under src/) whose files alone name the
 * table, to write it or to read it. Every other module asks the owner's repo
 * or service functions, which take the caller's transaction when a write must
 * be atomic with the caller's own (a charge and an application's final status,
 * an attempt and its event's new state).
 */
const TABLE_OWNERS: Record<string, string> = {
  accounts: "modules/accounts",
  api_keys: "modules/accounts",
  credit_ledger: "modules/accounts", // credits: only accounts holds, charges, releases and grants
  rate_limit_counters: "modules/accounts", // handed to http/rate-limiter as a DayCountStore
  ai_usage: "modules/accounts",
  jobs: "modules/jobs",
  job_tracking: "modules/jobs",
  job_texts: "modules/jobs",
  feeds: "modules/feeds", // including the webhook endpoint state the deliverer reports
  feed_jobs: "modules/feeds",
  filtered_jobs: "modules/feeds", // jobs a feed's client list or signal rules kept out, with the reason (issue 45)
  client_lists: "modules/clients", // clients an account blocks or favours, by company id (issue 45)
  feed_channels: "modules/feeds", // which channels a feed notifies; a deleted channel leaves through feeds' detachChannel
  channels: "modules/channels", // settings sealed by lib/secret-box.ts
  telegram_bot_owners: "modules/channels", // the one account holding each Telegram bot, written with the channel that saves it
  telegram_bots: "modules/telegram", // each bot's getUpdates offset
  telegram_binding_codes: "modules/telegram",
  telegram_chats: "modules/telegram", // chats bound to accounts: only they may act
  telegram_drafts: "modules/telegram",
  events: "modules/feeds", // the outbox: admit writes it, the deliverer settles it through feeds/outbox.ts
  job_scores: "modules/scoring",
  portfolios: "modules/proposals", // a freelancer profile's case studies, past clients and years per skill: what letters may claim
  proposal_versions: "modules/proposals", // every letter written for a job (regenerations included) and which one was sent
  proposal_drafts: "modules/proposals", // when an account first had a letter written for a job (speed-to-lead's "drafted")
  webhook_attempts: "modules/delivery",
  applications: "modules/applications",
  source_state: "modules/intake",
  oauth_states: "modules/intake",
  oauth_tokens: "modules/intake", // encrypted; read and written through the TokenVault intake hands the marketplace-api adapter
  dashboard_sessions: "modules/dashboard",
  dashboard_sign_in_links: "modules/dashboard",
  tasks: "worker",
  cluster_claims: "worker", // schedule ticks and loop leases shared by the nodes on one PostgreSQL
  sandbox_freelancers: "marketplace/sandbox",
  sandbox_profiles: "marketplace/sandbox",
  sandbox_sessions: "marketplace/sandbox",
  sandbox_closed_jobs: "marketplace/sandbox",
  sandbox_submissions: "marketplace/sandbox",
  companion_tasks: "marketplace/companion",
  companions: "marketplace/companion",
  bridge_outcomes: "marketplace/remote", // outcomes reported by the bridge and the browser companion (remote/outcomes.ts)
  companion_pairing_codes: "modules/companion", // one-time codes a browser companion exchanges for its API key
  experiments: "modules/experiments", // randomized tests of letters, bids, boosts and timing on an account's proposals
  experiment_arms: "modules/experiments",
  experiment_assignments: "modules/experiments", // the arm each job got, made once and never changed
  members: "modules/members", // the people of an account, with their roles and password hashes
  member_links: "modules/members", // one-time set-password and reset links, stored as their SHA-256
  job_claims: "modules/members", // which member is drafting for a job, so nobody else bids on it meanwhile
  feed_members: "modules/members", // feeds assigned to members (routing)
  automation_limits: "modules/automation", // the governor's caps, budgets and working hours per account and freelancer
  connects_balances: "modules/automation", // the Connects a freelancer has, as last read or set
  automation_audit: "modules/automation", // every automated action and the rule that allowed or stopped it (90 days)
  automation_alerts: "modules/automation", // low-balance and low-budget alerts sent, once per period
};

interface Table {
  /** The drizzle object's name (`feedJobs`). */
  name: string;
  /** The table's name in SQL (`feed_jobs`). */
  sqlName: string;
}

/** Every table declared in the schema (the files of db/schema/, one per owning feature). */
function schemaTables(root = SRC): Table[] {
  const tables: Table[] = [];
  for (const file of new Glob("db/schema/**/*.ts").scanSync(root)) {
    for (const m of readFileSync(join(root, file), "utf8").matchAll(/export const (\w+) = sqliteTable\(\s*"(\w+)"/g)) {
      tables.push({ name: m[1]!, sqlName: m[2]! });
    }
  }
  return tables;
}

/**
 * The SQL names of the tables some code names: drizzle objects imported from
 * db/schema (a namespace import names them all), and tables after a SQL
 * keyword in query text (`INSERT INTO`, `UPDATE`, `DELETE FROM`, `FROM`, `JOIN`; written in capitals here).
 */
function tablesNamed(code: string, tables: Table[]): Set<string> {
  const named = new Set<string>();
  const byName = new Map(tables.map((t) => [t.name, t.sqlName]));
  const bySqlName = new Set(tables.map((t) => t.sqlName));
  const fromSchema = String.raw`from\s*["'][./]*db/schema(?:/[\w-]+)?(?:\.ts)?["']`;
  for (const m of code.matchAll(new RegExp(String.raw`import\s+(?:type\s+)?\{([^}]*)\}\s*` + fromSchema, "g"))) {
    for (const item of m[1]!.split(",")) {
      const name = item
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!;
      const sqlName = byName.get(name);
      if (sqlName) named.add(sqlName);
    }
  }
  if (new RegExp(String.raw`import\s+(?:type\s+)?\*\s+as\s+\w+\s*` + fromSchema).test(code)) for (const t of tables) named.add(t.sqlName);
  for (const m of code.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|FROM|JOIN)\s+[`"]?(\w+)/g)) {
    if (bySqlName.has(m[1]!)) named.add(m[1]!);
  }
  return named;
}

/** `file names table (owned by owner)` for every file outside db/ that names a table it does not own. */
function foreignTableUses(root = SRC): string[] {
  const tables = schemaTables(root);
  const uses: string[] = [];
  for (const file of new Glob("**/*.ts").scanSync(root)) {
    if (inFolder("db")(file) || file.endsWith(".d.ts")) continue;
    for (const table of tablesNamed(readFileSync(join(root, file), "utf8"), tables)) {
      const owner = TABLE_OWNERS[table];
      if (!owner || !inFolder(owner)(file)) uses.push(`${file} names ${table} (owned by ${owner ?? "nobody"})`);
    }
  }
  return uses.sort();
}

describe("architecture", () => {
  test("the import reader sees value imports and skips type-only ones", () => {
    const edges = valueImports().map((e) => `${e.from} -> ${e.to}`);
    expect(edges).toContain("app.ts -> http/auth.ts");
    // http/rate-limit.ts takes `import type { Deps }`: no dependency at run time.
    expect(edges).not.toContain("http/rate-limit.ts -> deps.ts");
  });

  test("the cycle finder finds a cycle of folders, and only of folders", () => {
    const e = (from: string, to: string) => ({ from, to });
    expect(folderCycles([e("a/x.ts", "b/y.ts"), e("b/y.ts", "c/z.ts"), e("c/z.ts", "a/w.ts"), e("d/v.ts", "a/x.ts")])).toEqual([["a", "b", "c"]]);
    expect(folderCycles([e("a/x.ts", "a/y.ts"), e("a/y.ts", "a/x.ts"), e("a/x.ts", "b/y.ts")])).toEqual([]);
  });

  test("data flows one way: no folder-level import cycle anywhere in src", () => {
    expect(folderCycles(valueImports())).toEqual([]);
  });

  test("the composition root wires adapters to features: no adapter folder imports a value from a feature module", () => {
    // Adapters (job sources, marketplace drivers, the request-wide plugins) and the kernels below them implement
    // small interfaces; what a feature hands them arrives as deps. Only these files may import both sides.
    const COMPOSITION_ROOT = ["main.ts", "app.ts", "deps.ts", "cli"];
    const ADAPTERS = ["sources", "marketplace", "http", "lib", "db", "worker", "ai", "settings"];
    const isRoot = (file: string) => COMPOSITION_ROOT.some((r) => file === r || inFolder(r)(file));
    const leaks = valueImports().filter((e) => !isRoot(e.from) && ADAPTERS.some((a) => inFolder(a)(e.from)) && inFolder("modules")(e.to));
    expect(leaks.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  test("src/http names no feature: no file in it imports a value from src/modules", () => {
    const fromHttp = valueImports().filter((e) => inFolder("http")(e.from) && inFolder("modules")(e.to));
    expect(fromHttp.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
  test("the table reader finds tables named by an imported schema object or in SQL text, and nothing else", () => {
    const tables = [
      { name: "feeds", sqlName: "feeds" },
      { name: "feedJobs", sqlName: "feed_jobs" },
      { name: "events", sqlName: "events" },
      { name: "jobs", sqlName: "jobs" },
    ];
    const named = (code: string) => [...tablesNamed(code, tables)].sort();
    expect(named('import { feeds, type feedJobs as fj } from "../../db/schema";')).toEqual(["feed_jobs", "feeds"]);
    expect(named('import { feeds } from "../../db/schema/feeds";')).toEqual(["feeds"]);
    expect(named('import * as schema from "../db/schema";')).toEqual(["events", "feed_jobs", "feeds", "jobs"]);
    expect(named("run(`UPDATE events SET status = ?`); run('INSERT INTO feed_jobs (id) VALUES (?)'); q`SELECT 1 FROM \"jobs\" j`")).toEqual([
      "events",
      "feed_jobs",
      "jobs",
    ]);
    expect(named('import { jobs } from "./jobs"; const feeds = 1; // the feeds from jobs update events')).toEqual([]);
  });

  test("every table in the schema has an owner, and every owner's table exists", () => {
    expect(
      schemaTables()
        .map((t) => t.sqlName)
        .sort(),
    ).toEqual(Object.keys(TABLE_OWNERS).sort());
  });

  test("one owner per table: no file outside a table's owner folder writes or reads it", () => {
    expect(foreignTableUses()).toEqual([]);
  });

  test("one code path for both dialects: outside src/db no statement runs through SQLite's own API", () => {
    // Queries end in the runners of src/db/query.ts (many/one/exec/prepared*/raw*), which run them on either
    // dialect; the tables come from tables(db). SQLite's schema objects are imported for their types only.
    const offenders: string[] = [];
    const transpiler = new Bun.Transpiler({ loader: "ts" });
    for (const file of new Glob("**/*.ts").scanSync(SRC)) {
      if (file.startsWith("db/") || file.endsWith(".d.ts")) continue;
      const code = readFileSync(join(SRC, file), "utf8").replace(/^#!.*/, "");
      if (transpiler.scanImports(code).some((i) => /\/db\/schema(\/|$)/.test(i.path))) offenders.push(`${file}: imports a value from db/schema`);
      for (const m of code.matchAll(/\b(exclusive|transaction|rawStatement|prepared)\(|\$client\b/g)) offenders.push(`${file}: ${m[0]}`);
    }
    expect(offenders).toEqual([]);
  });
});
