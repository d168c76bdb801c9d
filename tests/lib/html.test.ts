import { describe, expect, test } from "bun:test";
import { decodeEntities, htmlToText, tidy } from "../../src/lib/html";

// The board and capture suites keep their own htmlToText cases; these cover what the merge added
// and that every feature stays linear on hostile markup (checked by output, with one loose time bound).
describe("htmlToText (shared)", () => {
  test("pre drops only the indentation all its lines share", () => {
    expect(htmlToText("<pre>  keep\n  this</pre>")).toBe("keep\nthis");
    expect(htmlToText("<p>Code:</p><pre>a  =  1\n  b</pre>")).toBe("Code:\n\na  =  1\n  b");
    expect(htmlToText("<pre>\n    if x:\n        y\n</pre>after")).toBe("if x:\n    y\n\nafter");
  });

  test("entities: bare common names, CP1252, no forged placeholders, soft hyphens gone", () => {
    expect(decodeEntities("&amp &ampx &copy=1 &#146; &#x80;")).toBe("& &ampx &copy=1 ’ €");
    expect(htmlToText("<p>devel&shy;oper &#2;&#1;x &lt;b&gt;</p>")).toBe("developer x <b>");
  });

  test("plain text detection ignores markup inside comments and scripts", () => {
    expect(htmlToText("<!-- <p> -->one\ntwo<script><br></script>")).toBe("one\ntwo");
  });

  test("unclosed comment or script hides the rest, as in a browser", () => {
    expect(htmlToText("<p>a</p><!-- b")).toBe("a");
    expect(htmlToText("<p>a</p><script>b")).toBe("a");
  });

  test("tidy keeps plain text readable", () => {
    expect(tidy("  a \u00a0 b \r\n\r\n\r\n c  \n")).toBe("a b\n\nc");
  });

  test("hostile input: unclosed links and pre blocks stay linear and correct", () => {
    const started = performance.now();
    expect(htmlToText('<a href="'.repeat(30_000))).toBe("");
    const apply = htmlToText('<a href="https://x.io/j">apply '.repeat(30_000) + "</a>");
    expect(apply).toBe(`${Array(30_000).fill("apply").join(" ")} (https://x.io/j)`);
    expect(htmlToText('<a href="https://x.io/">x</a>'.repeat(30_000))).toBe("x (https://x.io/)".repeat(30_000));
    expect(htmlToText("<pre>".repeat(30_000) + "  a\n    b")).toBe("a\n  b");
    expect(htmlToText("<pre>  x  y\n".repeat(30_000))).toBe(Array(30_000).fill("x  y").join("\n\n"));
    expect(htmlToText("<pre>a</pre>".repeat(30_000))).toBe(Array(30_000).fill("a").join("\n\n"));
    expect(htmlToText("<li>".repeat(30_000) + "z")).toBe("-\n".repeat(29_999) + "- z");
    expect(htmlToText('<a href="mailto:' + "a".repeat(100_000))).toBe("");
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
