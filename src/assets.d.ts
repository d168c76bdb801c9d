// Files embedded with `import ... with { type: "file" }` resolve to a path Bun.file() can read, also inside the compiled binary.
declare module "@scalar/api-reference/browser/standalone.js" {
  const path: string;
  export default path;
}
