import { describe, expect, test } from "bun:test";
import { countryName, normalizeCountry } from "../../src/lib/countries";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const allPairs = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));

describe("normalizeCountry", () => {
  test.each([
    // English names as the marketplace writes them
    ["United States", "US"],
    ["United Kingdom", "GB"],
    ["Canada", "CA"],
    ["India", "IN"],
    ["Germany", "DE"],
    ["Australia", "AU"],
    ["Netherlands", "NL"],
    ["Pakistan", "PK"],
    ["Bosnia and Herzegovina", "BA"],
    ["Trinidad and Tobago", "TT"],
    ["Guinea-Bissau", "GW"],
    ["Virgin Islands, U.S.", "VI"],
    ["Congo, The Democratic Republic of the", "CD"],
    ["Korea, Republic of", "KR"],
    ["Macedonia", "MK"],
    ["Palestinian Territories", "PS"],
    // aliases
    ["USA", "US"],
    ["U.S.A.", "US"],
    ["United States of America", "US"],
    ["UK", "GB"],
    ["Great Britain", "GB"],
    ["England", "GB"],
    ["Russia", "RU"],
    ["Russian Federation", "RU"],
    ["South Korea", "KR"],
    ["North Korea", "KP"],
    ["UAE", "AE"],
    ["Turkey", "TR"],
    ["Türkiye", "TR"],
    ["Turkiye", "TR"],
    ["Vietnam", "VN"],
    ["Viet Nam", "VN"],
    ["Czech Republic", "CZ"],
    ["Czechia", "CZ"],
    ["Hong Kong", "HK"],
    ["Hong Kong SAR", "HK"],
    ["Ivory Coast", "CI"],
    ["Holland", "NL"],
    ["The Netherlands", "NL"],
    ["The Bahamas", "BS"],
    ["Burma", "MM"],
    ["Swaziland", "SZ"],
    ["St. Lucia", "LC"],
    ["St Kitts & Nevis", "KN"],
    ["Kosovo", "XK"],
    // accents and case
    ["Côte d'Ivoire", "CI"],
    ["Côte d’Ivoire", "CI"],
    ["cote divoire", "CI"],
    ["Curaçao", "CW"],
    ["CURACAO", "CW"],
    ["Réunion", "RE"],
    ["São Tomé and Príncipe", "ST"],
    ["Åland Islands", "AX"],
    ["uNiTeD sTaTeS", "US"],
    ["  united   states  ", "US"],
    // codes, any case, surrounding space ignored
    ["US", "US"],
    ["us", "US"],
    [" gb ", "GB"],
    ["DE", "DE"],
    ["USA", "US"],
    ["gbr", "GB"],
    ["DEU", "DE"],
    ["IND", "IN"],
    ["CHE", "CH"],
    ["ARE", "AE"],
    ["XKX", "XK"],
  ])("%p → %p", (input, expected) => {
    expect(normalizeCountry(input)).toBe(expected);
  });

  test.each([
    [null],
    [undefined],
    [""],
    ["   "],
    ["Atlantis"],
    ["Worldwide"],
    ["Remote"],
    ["Europe"],
    ["Americas"],
    ["XX"],
    ["ZZZ"],
    ["U"],
    ["United"],
    ["States"],
    ["x".repeat(500)],
  ])("%p is unknown", (input) => {
    expect(normalizeCountry(input)).toBeNull();
  });

  test("non-string input is unknown, not an error", () => {
    expect(normalizeCountry(42 as unknown as string)).toBeNull();
    expect(normalizeCountry({} as unknown as string)).toBeNull();
  });

  test("repeated lookups answer the same (the cache does not change results)", () => {
    for (let i = 0; i < 3; i++) {
      expect(normalizeCountry("Türkiye")).toBe("TR");
      expect(normalizeCountry("Atlantis")).toBeNull();
    }
  });
});

describe("countryName", () => {
  test.each([
    ["US", "United States"],
    ["us", "United States"],
    ["GB", "United Kingdom"],
    ["TR", "Türkiye"],
    ["KR", "South Korea"],
    ["VN", "Vietnam"],
    ["CZ", "Czechia"],
    ["HK", "Hong Kong"],
    ["XK", "Kosovo"],
  ])("%p → %p", (code, name) => {
    expect(countryName(code)).toBe(name);
  });

  test.each([["ZZ"], ["UK"], [""], ["USA"]])("%p has no name", (code) => {
    expect(countryName(code)).toBeNull();
  });

  test("every ISO 3166-1 country (249) plus Kosovo has a name, and the name and code both normalise back to the code", () => {
    const known = allPairs.filter((c) => countryName(c) !== null);
    expect(known.length).toBe(250);
    for (const code of known) {
      expect(normalizeCountry(code)).toBe(code);
      expect(normalizeCountry(code.toLowerCase())).toBe(code);
      expect(normalizeCountry(countryName(code)!)).toBe(code);
      expect(normalizeCountry(countryName(code)!.toUpperCase())).toBe(code);
    }
  });

  test("two-letter inputs that are not assigned codes are unknown, except the UK alias", () => {
    const unassigned = allPairs.filter((c) => countryName(c) === null && normalizeCountry(c) !== null);
    expect(unassigned).toEqual(["UK"]);
  });
});
