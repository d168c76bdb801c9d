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

describe("architecture", () => {
  test("the import reader sees value imports and skips type-only ones", () => {
    const edges = valueImports().map((e) => `${e.from} -> ${e.to}`);
    expect(edges).toContain("app.ts -> http/auth.ts");
    // http/rate-limit.ts takes `import type { Deps }`: no dependency at run time.
    expect(edges).not.toContain("http/rate-limit.ts -> deps.ts");
  });

  test("src/http names no feature: no file in it imports a value from src/modules", () => {
    const fromHttp = valueImports().filter((e) => inFolder("http")(e.from) && inFolder("modules")(e.to));
    expect(fromHttp.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
});
