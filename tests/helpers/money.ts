/** Every amount of money a text names: "$50", "50 USD", "40–60 USD/hour" (both ends), "45/hr". */
export const amountsIn = (text: string): number[] =>
  (
    text.match(
      /[$€£]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?(?:\s?[–-]\s?\d[\d,]*(?:\.\d+)?)?\s?(?:USD|EUR|GBP|CAD|AUD|dollars?|euros?|pounds?\b|\/\s?h(?:ou)?r\b|per hour\b)/gi,
    ) ?? []
  ).flatMap((m) => m.match(/\d[\d,]*(?:\.\d+)?/g)!.map((n) => Number(n.replace(/,/g, ""))));
