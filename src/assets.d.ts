// Files embedded with `import ... with { type: "file" }` resolve to a path Bun.file() can read, also inside the compiled binary.
declare module "@scalar/api-reference/browser/standalone.js" {
  const path: string;
  export default path;
}

// The dashboard's icon, served at /favicon.ico from the binary.
declare module "*.ico" {
  const path: string;
  export default path;
}

// htmx's minified script, imported `with { type: "text" }` so the dashboard serves it from the binary.
declare module "htmx.org/dist/htmx.min.js" {
  const source: string;
  export default source;
}

// The dashboard's and the bookmarklet's browser scripts (real files, linted), imported `with { type: "text" }` and served from the binary.
declare module "*.browser.js" {
  const source: string;
  export default source;
}

// The dashboard's stylesheet (a real file, linted), imported `with { type: "text" }` and served from the binary.
declare module "*.css" {
  const source: string;
  export default source;
}
