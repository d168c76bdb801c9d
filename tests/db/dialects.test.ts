/**
 * The two migrated databases are the same database: migrate a fresh SQLite and a fresh PostgreSQL with the
 * embedded migrations, read both back by introspection (sqlite_master and PRAGMAs; pg_catalog) and compare
 * tables, columns (type family, nullability, default, generated ids), primary keys, indexes (unique or not,
 * columns, partial predicate), foreign keys and check constraints, each normalised to one spelling.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { migrate } from "../../src/db/migrate";
import { migratePg } from "../../src/db/migrate-pg";
import { describePg, usePgDatabase } from "../helpers/postgres";

interface Column {
  /** The SQLite type affinity a column stands for: PostgreSQL's bigint and boolean are SQLite's integer, double precision its real. */
  type: "text" | "integer" | "real";
  notNull: boolean;
  default: string | null;
  /** AUTOINCREMENT on SQLite, an identity column on PostgreSQL. */
  generated: boolean;
}

interface Index {
  unique: boolean;
  columns: string[];
  where: string | null;
}

interface ForeignKey {
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

interface TableShape {
  columns: Record<string, Column>;
  primaryKey: string[];
  indexes: Record<string, Index>;
  foreignKeys: ForeignKey[];
  checks: Record<string, string>;
}

type Shape = Record<string, TableShape>;

const PG_TYPE_FAMILY: Record<string, Column["type"]> = {
  text: "text",
  integer: "integer",
  bigint: "integer",
  boolean: "integer",
  "double precision": "real",
};

/** Removes parentheses that wrap the whole expression: "((a = 1))" → "a = 1", but "(a) = (b)" stays. */
function unwrap(s: string): string {
  let out = s.trim();
  for (;;) {
    if (!out.startsWith("(") || !out.endsWith(")")) return out;
    let depth = 0;
    for (let i = 0; i < out.length; i++) {
      if (out[i] === "(") depth++;
      else if (out[i] === ")" && --depth === 0 && i < out.length - 1) return out;
    }
    out = out.slice(1, -1).trim();
  }
}

/**
 * One spelling for a SQL expression of either dialect (a partial index predicate, a check, a default):
 * no casts, no identifier quotes or table qualifiers, `x = ANY (ARRAY[a, b])` as `x IN (a, b)`, booleans as
 * 0/1, a one-item IN as `=`, `!=` as `<>`, single spaces, no wrapping parentheses (around the whole, nor
 * around each operand of a top-level AND, which PostgreSQL adds), lower case.
 */
export function normaliseExpression(expr: string, table?: string): string {
  let s = expr.replace(/::[a-z_]+(?: precision| varying)?(?:\[\])?/gi, "");
  s = s.replace(/"(\w+)"/g, "$1").replace(/`(\w+)`/g, "$1");
  if (table) s = s.replace(new RegExp(String.raw`\b${table}\.`, "g"), "");
  s = s.replace(/(\w+)\s*=\s*ANY\s*\(\s*ARRAY\s*\[([^\]]*)\]\s*\)/gi, "$1 IN ($2)");
  s = s.replace(/(\w+)\s+IN\s*\(\s*('[^',]*'|-?\d+)\s*\)/gi, "$1 = $2"); // PostgreSQL keeps a one-item IN as "="
  s = s.replace(/\btrue\b/gi, "1").replace(/\bfalse\b/gi, "0");
  s = s.replace(/'(-?\d+(?:\.\d+)?)'/g, "$1");
  s = s.replace(/!=/g, "<>");
  s = s.replace(/\s+/g, " ").replace(/\(\s+/g, "(").replace(/\s+\)/g, ")");
  return topLevelAnd(unwrap(s)).map(unwrap).join(" and ").toLowerCase();
}

/** The operands of an expression's top-level ANDs (the expression alone when it has none). */
function topLevelAnd(expr: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < expr.length; i++) {
    if (expr[i] === "(") depth++;
    else if (expr[i] === ")") depth--;
    else if (depth === 0 && /^ and /i.test(expr.slice(i, i + 5))) {
      parts.push(expr.slice(from, i).trim());
      from = i + 5;
    }
  }
  parts.push(expr.slice(from).trim());
  return parts;
}

const sortKeys = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

function sqliteShape(db: Database): Shape {
  const shape: Shape = {};
  const tables = db.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
    name: string;
    sql: string;
  }[];
  for (const { name: table, sql: createSql } of tables) {
    const info = db.query(`PRAGMA table_xinfo("${table}")`).all() as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[];
    const primaryKey = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const columns: Record<string, Column> = {};
    for (const c of info) {
      columns[c.name] = {
        type: c.type.toLowerCase() as Column["type"],
        notNull: c.notnull === 1,
        default: c.dflt_value === null ? null : normaliseExpression(c.dflt_value),
        generated: primaryKey.length === 1 && primaryKey[0] === c.name && /\bAUTOINCREMENT\b/i.test(createSql),
      };
    }
    const indexes: Record<string, Index> = {};
    for (const ix of db.query(`PRAGMA index_list("${table}")`).all() as { name: string; unique: number; origin: string; partial: number }[]) {
      if (ix.origin === "pk") continue;
      // An expression column has no name (cid -2); both readers call it "<expression>".
      const cols = (db.query(`PRAGMA index_info("${ix.name}")`).all() as { seqno: number; name: string | null }[])
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name ?? "<expression>");
      const ixSql = (db.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(ix.name) as { sql: string | null } | null)?.sql ?? "";
      const where = ix.partial ? ixSql.replace(/^[\s\S]*?\)\s*WHERE\s+/i, "") : null;
      indexes[ix.name] = { unique: ix.unique === 1, columns: cols, where: where === null ? null : normaliseExpression(where, table) };
    }
    const fkRows = db.query(`PRAGMA foreign_key_list("${table}")`).all() as {
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string;
      on_update: string;
      on_delete: string;
    }[];
    const foreignKeys = new Map<number, ForeignKey>();
    for (const fk of fkRows.sort((a, b) => a.id - b.id || a.seq - b.seq)) {
      const entry = foreignKeys.get(fk.id) ?? {
        columns: [],
        references: fk.table,
        referencedColumns: [],
        onDelete: fk.on_delete.toLowerCase(),
        onUpdate: fk.on_update.toLowerCase(),
      };
      entry.columns.push(fk.from);
      entry.referencedColumns.push(fk.to);
      foreignKeys.set(fk.id, entry);
    }
    const checks: Record<string, string> = {};
    for (const m of createSql.matchAll(/CONSTRAINT\s+["`]?(\w+)["`]?\s+CHECK\s*\(/gi)) {
      // The check's body runs to the parenthesis that closes the one after CHECK.
      const start = m.index! + m[0].length;
      let depth = 1;
      let i = start;
      for (; i < createSql.length && depth > 0; i++) {
        if (createSql[i] === "(") depth++;
        else if (createSql[i] === ")") depth--;
      }
      checks[m[1]!] = normaliseExpression(createSql.slice(start, i - 1), table);
    }
    shape[table] = {
      columns,
      primaryKey,
      indexes: sortKeys(indexes),
      foreignKeys: [...foreignKeys.values()].sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
      checks: sortKeys(checks),
    };
  }
  return shape;
}

const PG_FK_ACTIONS: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };

async function pgShape(sql: SQL): Promise<Shape> {
  const shape: Shape = {};
  const tables =
    (await sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`) as {
      name: string;
    }[];
  for (const { name: table } of tables) {
    const info = (await sql`
      SELECT column_name AS name, data_type AS type, is_nullable = 'NO' AS not_null, column_default AS dflt, is_identity = 'YES' AS identity
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`) as {
      name: string;
      type: string;
      not_null: boolean;
      dflt: string | null;
      identity: boolean;
    }[];
    const columns: Record<string, Column> = {};
    for (const c of info) {
      const type = PG_TYPE_FAMILY[c.type];
      if (!type) throw new Error(`${table}.${c.name}: PostgreSQL type ${c.type} has no SQLite family here; add it to PG_TYPE_FAMILY`);
      columns[c.name] = { type, notNull: c.not_null, default: c.dflt === null ? null : normaliseExpression(c.dflt), generated: c.identity };
    }
    const ixRows = (await sql`
      SELECT i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary, pg_get_expr(ix.indpred, ix.indrelid) AS pred,
             array_to_string(ARRAY(SELECT COALESCE(a.attname, '<expression>') FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                                   LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS cols
      FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND t.relname = ${table}`) as { name: string; unique: boolean; primary: boolean; pred: string | null; cols: string }[];
    let primaryKey: string[] = [];
    const indexes: Record<string, Index> = {};
    for (const ix of ixRows) {
      if (ix.primary) {
        primaryKey = ix.cols.split(",");
        continue;
      }
      indexes[ix.name] = { unique: ix.unique, columns: ix.cols.split(","), where: ix.pred === null ? null : normaliseExpression(ix.pred, table) };
    }
    const conRows = (await sql`
      SELECT c.conname AS name, c.contype AS kind, pg_get_constraintdef(c.oid) AS def, f.relname AS ref,
             c.confdeltype AS on_delete, c.confupdtype AS on_update,
             array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS cols,
             array_to_string(ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                                   JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS ref_cols
      FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      LEFT JOIN pg_class f ON f.oid = c.confrelid
      WHERE n.nspname = 'public' AND t.relname = ${table} AND c.contype IN ('f', 'c')`) as {
      name: string;
      kind: string;
      def: string;
      ref: string | null;
      on_delete: string;
      on_update: string;
      cols: string;
      ref_cols: string;
    }[];
    const foreignKeys: ForeignKey[] = [];
    const checks: Record<string, string> = {};
    for (const c of conRows) {
      if (c.kind === "c") checks[c.name] = normaliseExpression(c.def.replace(/^CHECK\s*/i, ""), table);
      else
        foreignKeys.push({
          columns: c.cols.split(","),
          references: c.ref!,
          referencedColumns: c.ref_cols.split(","),
          onDelete: PG_FK_ACTIONS[c.on_delete]!,
          onUpdate: PG_FK_ACTIONS[c.on_update]!,
        });
    }
    shape[table] = {
      columns,
      primaryKey,
      indexes: sortKeys(indexes),
      foreignKeys: foreignKeys.sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
      checks: sortKeys(checks),
    };
  }
  return shape;
}

describe("expression normalising", () => {
  test("each dialect's spelling of the same predicate, check or default comes out the same", () => {
    const same = (a: string, b: string, table?: string) => expect(normaliseExpression(a, table)).toBe(normaliseExpression(b, table));
    same("status IN ('processing', 'applied')", "(status = ANY (ARRAY['processing'::text, 'applied'::text]))");
    same("active = 1", "(active = true)");
    same("status = 'applied'", "(status = 'applied'::text)");
    same("status IN ('pending')", "(status = 'pending'::text)");
    same('"accounts"."credits_balance" >= 0', "((credits_balance >= 0))", "accounts");
    same("'exclude'", "'exclude'::text");
    same("false", "false");
    same("1", "'1'::double precision");
    same(
      "status IN ('pending', 'retrying') AND target != 'webhook'",
      "((status = ANY (ARRAY['pending'::text, 'retrying'::text])) AND (target <> 'webhook'::text))",
    );
    expect(normaliseExpression("(a) = (b)")).toBe("(a) = (b)");
    expect(normaliseExpression("a = 1 AND b = 2")).not.toBe(normaliseExpression("a = 1 AND b = 3"));
    expect(normaliseExpression("status IN ('a')")).not.toBe(normaliseExpression("status IN ('b')"));
  });

  test("the SQLite reader sees what the migrations declare", () => {
    const db = new Database(":memory:");
    migrate(db);
    const shape = sqliteShape(db);
    expect(shape.applications!.indexes.applications_live_uq).toEqual({
      unique: true,
      columns: ["account_id", "job_ciphertext"],
      where: "status in ('processing', 'applied')",
    });
    expect(shape.accounts!.checks).toEqual({ accounts_credits_nonneg: "credits_balance >= 0" });
    expect(shape.tasks!.columns.id).toEqual({ type: "integer", notNull: true, default: null, generated: true });
    expect(shape.rate_limit_counters!.primaryKey).toEqual(["key_id", "bucket", "window_start_ts"]);
    expect(shape.webhook_attempts!.foreignKeys).toEqual([
      { columns: ["event_seq"], references: "events", referencedColumns: ["seq"], onDelete: "cascade", onUpdate: "no action" },
    ]);
    db.close();
  });
});

describePg("SQLite and PostgreSQL migrate to the same database", () => {
  const pg = usePgDatabase();
  let client: SQL;
  let lite: Shape;
  let post: Shape;

  beforeAll(async () => {
    const db = new Database(":memory:");
    migrate(db);
    lite = sqliteShape(db);
    db.close();
    client = new SQL({ url: pg.url, max: 1 });
    await migratePg(client);
    post = await pgShape(client);
  });
  afterAll(async () => {
    await client?.close();
  });

  test("the same tables", () => {
    expect(Object.keys(post)).toEqual(Object.keys(lite));
    expect(Object.keys(lite).length).toBeGreaterThan(20);
  });

  test("each table: the same columns (type family, nullability, default, generated id) and primary key", () => {
    for (const table of Object.keys(lite)) {
      expect({ table, columns: post[table]?.columns, primaryKey: post[table]?.primaryKey }).toEqual({
        table,
        columns: lite[table]!.columns,
        primaryKey: lite[table]!.primaryKey,
      });
    }
  });

  test("each table: the same indexes, unique and partial-unique ones included, with the same predicates", () => {
    for (const table of Object.keys(lite)) {
      expect({ table, indexes: post[table]?.indexes }).toEqual({ table, indexes: lite[table]!.indexes });
    }
    const partial = Object.values(post).flatMap((t) => Object.values(t.indexes).filter((i) => i.where !== null));
    expect(partial.length).toBeGreaterThanOrEqual(4);
  });

  test("each table: the same foreign keys and check constraints", () => {
    for (const table of Object.keys(lite)) {
      expect({ table, foreignKeys: post[table]?.foreignKeys, checks: post[table]?.checks }).toEqual({
        table,
        foreignKeys: lite[table]!.foreignKeys,
        checks: lite[table]!.checks,
      });
    }
  });
});
