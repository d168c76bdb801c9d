import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { SETTINGS } from "../src/config";
import { appRoutes, MARK_END, MARK_START, regenerate, renderConfiguration, replaceSection, ROOT } from "../scripts/gen-docs";

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** README.md and every page of docs/ (docs/reference/ holds copied source material, not pages we write). */
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { withFileTypes: true }).flatMap((e) => (e.isFile() && e.name.endsWith(".md") ? [`docs/${e.name}`] : [])),
];

/** The text outside fenced code blocks and inline code, where a `[x](y)` is prose, not a link. */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/``[^`]*``/g, "")
    .replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, "").split("\n")) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** Every relative link of a page (targets with a scheme, and bare `#` links to the page itself, included) that does not resolve. */
function brokenLinks(page: string, text = read(page)): string[] {
  const broken: string[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const file = path === "" ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
    if (file !== page && !existsSync(join(ROOT, file))) {
      broken.push(`${target} (no file ${file})`);
      continue;
    }
    if (anchor !== undefined && file.endsWith(".md") && !headingAnchors(file === page ? text : read(file)).has(anchor))
      broken.push(`${target} (no heading #${anchor} in ${file})`);
  }
  return broken;
}

describe("docs", () => {
  test("every generated section is what scripts/gen-docs.ts writes now (run `bun run docs` after changing a setting, a bucket, a route's policy or a source)", async () => {
    const expected = regenerate(await appRoutes(), read);
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    for (const [file, text] of Object.entries(expected)) expect(read(file), `${file} is stale: run bun run docs`).toBe(text);
  });

  test("a generated section is replaced between its markers, and a page without them is refused", () => {
    const page = `# T\n\nprose before\n\n${MARK_START}\nold\n${MARK_END}\n\nprose after\n`;
    expect(replaceSection(page, "new", "t.md")).toBe(`# T\n\nprose before\n\n${MARK_START}\nnew\n${MARK_END}\n\nprose after\n`);
    expect(() => replaceSection("# T\n\nno markers\n", "new", "t.md")).toThrow(/t\.md needs one/);
    expect(() => replaceSection(`${MARK_START}\n${MARK_START}\n${MARK_END}\n`, "new", "t.md")).toThrow(/t\.md needs one/);
  });

  test("the configuration reference has a row for every setting, and refuses a setting that is in no group", () => {
    const page = read("docs/configuration.md");
    for (const s of Object.values(SETTINGS)) expect(page, s.env).toContain(`| \`${s.env}\` |`);
    const orphan = { orphan: { env: "JOBPILOT_ORPHAN", flag: undefined, schema: SETTINGS.port.schema, default: 1, doc: "A setting no group lists." } };
    expect(() => renderConfiguration(undefined, { ...SETTINGS, ...orphan })).toThrow(/JOBPILOT_ORPHAN/);
  });

  test("the README stays a front door: at most 150 lines, with a picture of the inbox", () => {
    const readme = read("README.md");
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(150);
    expect(readme).toContain("](docs/images/inbox.png)");
    expect(Bun.file(join(ROOT, "docs/images/inbox.png")).size).toBeLessThan(200 * 1024);
  });

  test.each(PAGES)("every relative link and #anchor in %s resolves", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  test("the link checker finds a missing file and a missing anchor", () => {
    // headingAnchors is what brokenLinks trusts, so check it against GitHub's own slugs for headings like ours.
    const anchors = headingAnchors(
      "# Alerts: webhooks\n## Notification channels — platform setup\n## Public job boards (`web` platform)\n## Run it\n## Run it\n",
    );
    expect([...anchors]).toEqual(["alerts-webhooks", "notification-channels--platform-setup", "public-job-boards-web-platform", "run-it", "run-it-1"]);
    const page =
      "# Here\n\n[a](nope.md) [b](api.md#no-such-heading) [c](api.md#rate-limits) [d](#here) [e](#gone) [f](../README.md) [g](https://x.example/#y)\n";
    expect(brokenLinks("docs/x.md", page)).toEqual([
      "nope.md (no file docs/nope.md)",
      "api.md#no-such-heading (no heading #no-such-heading in docs/api.md)",
      "#gone (no heading #gone in docs/x.md)",
    ]);
    expect(prose("see [a](b.md) and `[c](d.md)`\n```\n[e](f.md)\n```\n")).toBe("see [a](b.md) and \n\n");
  });
});
