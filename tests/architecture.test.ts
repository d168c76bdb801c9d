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

  test("job source adapters import no feature module but the document readers", () => {
    const fromSources = valueImports().filter((e) => inFolder("sources")(e.from) && inFolder("modules")(e.to) && !inFolder("modules/jobs/document")(e.to));
    expect(fromSources.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  test("src/http names no feature: no file in it imports a value from src/modules", () => {
    const fromHttp = valueImports().filter((e) => inFolder("http")(e.from) && inFolder("modules")(e.to));
    expect(fromHttp.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
});
