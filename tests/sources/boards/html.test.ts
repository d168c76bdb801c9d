import { describe, expect, test } from "bun:test";
import { decodeEntities, describeJob, htmlToText, mailtoAddress, singleCountry, skillsFromTags } from "../../../src/sources/boards/html";
import { parseRetryAfter } from "../../../src/sources/boards/http";

describe("htmlToText", () => {
  test("paragraphs, line breaks and lists", () => {
    expect(htmlToText("<p>One\n  two</p><p>Three<br>Four<br/><br />Five</p><ul><li>a</li><li>b</li></ul><div>end</div>")).toBe(
      "One two\n\nThree\nFour\n\nFive\n\n- a\n- b\n\nend",
    );
  });

  test("scripts, styles and comments are dropped; attributes with > do not end the tag", () => {
    expect(htmlToText('<style>p{}</style><p title="a>b">Hi<!-- x --></p><script>alert(1)</script>')).toBe("Hi");
  });

  test("entities: named, numeric, hex, Windows-1252 range, unknown left alone; decoded after the tags are gone", () => {
    expect(htmlToText("<p>caf&eacute; &amp; &#8220;bar&#x201D; it&#146;s AT&T &bogus; &lt;b&gt;</p>")).toBe("café & “bar” it’s AT&T &bogus; <b>");
    expect(decodeEntities("&#0;&#xD800;&nbsp;")).toBe("\ufffd\ufffd\u00a0");
  });

  test("plain text keeps its newlines; pre keeps its spacing", () => {
    expect(htmlToText("Line one\nLine two\n\n\n\nNext <b>paragraph</b>")).toBe("Line one\nLine two\n\nNext paragraph");
    expect(htmlToText("<p>Code:</p><pre>a  =  1\n  b</pre>")).toBe("Code:\n\na  =  1\n  b");
  });

  test("link targets are kept when the text hides them", () => {
    expect(
      htmlToText(
        '<p><a href="mailto:jobs@x.io?subject=Hi">mail us</a> or <a href="https://x.io/apply">https://x.io/apply</a> or <a href="https://x.io/long/path">https://x.io/lo...</a></p>',
      ),
    ).toBe("mail us (jobs@x.io) or https://x.io/apply or https://x.io/lo... (https://x.io/long/path)");
  });

  test("empty input", () => {
    expect(htmlToText(undefined)).toBe("");
    expect(htmlToText("<p> </p>")).toBe("");
  });
});

describe("document helpers", () => {
  test("describeJob ends with the attribution line", () => {
    expect(describeJob({ html: "<p>Body</p>", details: ["Company: X", undefined, false, ""], boardName: "Board", url: "https://b/1" })).toBe(
      "Body\n\nCompany: X\n\nSource: Board — https://b/1",
    );
  });

  test("skillsFromTags namespaces and de-duplicates", () => {
    expect(skillsFromTags("s", ["Go", "go", " ", 3, "C&#43;&#43;"])).toEqual([
      { uid: "s:go", prefLabel: "Go" },
      { uid: "s:c++", prefLabel: "C++" },
    ]);
    expect(skillsFromTags("s", "a, b")).toEqual([
      { uid: "s:a", prefLabel: "a" },
      { uid: "s:b", prefLabel: "b" },
    ]);
    expect(skillsFromTags("s", [])).toBeUndefined();
  });

  test("mailtoAddress", () => {
    expect(mailtoAddress("mailto:jobs%40x.io?subject=a")).toBe("jobs@x.io");
    expect(mailtoAddress("https://x.io")).toBeUndefined();
  });

  test("singleCountry", () => {
    const cases: [string, string | undefined][] = [
      ["Berlin, Germany", "DE"],
      ["USA Only", "US"],
      ["🇺🇸 United States", "US"],
      ["Austin, TX", "US"],
      ["Remote (US)", "US"],
      ["Remote - UK", "GB"],
      ["San Francisco, California", "US"],
      ["CA", "CA"],
      ["Worldwide", undefined],
      ["US or Canada", undefined],
      ["USA, Canada", undefined],
      ["Europe Only", undefined],
      ["Berlin", undefined],
      ["Remote", undefined],
      ["Anywhere in the World", undefined],
    ];
    for (const [input, want] of cases) expect([input, singleCountry(input)]).toEqual([input, want]);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 2, 10, 12, 0, 0);
  test("seconds, dates, junk, cap", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Tue, 10 Mar 2026 12:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("Tue, 10 Mar 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("999999999", now)).toBe(24 * 60 * 60_000);
  });
});
