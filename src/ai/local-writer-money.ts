/**
 * Money in the local writer's letters: the only amount a letter names is the bid that will be sent
 * (bidText); a price in the posting is never copied, so titles lose it (withoutPrice) and sentences
 * naming one are not read (MONEY).
 */

/** The bid the application will send (USD), as apply computes it; one of the two is set. */
export interface Bid {
  hourlyRate: number | null;
  fixedBid: number | null;
}

/** A price: "$300", "300 USD", "EUR 40", "50/hr". Posting text that names one is not copied (the letter's only figure is the bid). */
export const MONEY =
  /[$€£¥₹]\s?\d|\b\d[\d,.]*\s?k?\s?(?:usd|eur|gbp|cad|aud|chf|inr|dollars?|euros?|pounds?|bucks)\b|\b(?:usd|eur|gbp|cad|aud|chf|inr)\s?\d|\b\d[\d,.]*\s?(?:\/\s?h(?:ou)?r|\/h|per hour|an hour)\b/i;

/** A title up to the price it names, if any: "Landing page for $300, quick job" → "Landing page". */
export function withoutPrice(title: string): string {
  const m = MONEY.exec(title);
  if (!m) return title;
  return title.slice(0, m.index).replace(/(?:[\s,;:(–—-]+|\b(?:for|at|under|of|with|budget|around|about|up to|max|only|from|is)\b)+$/i, "");
}

/** "50 USD/hour" or "a fixed 800 USD": the bid as a letter states it; "" when there is no usable bid. */
export function bidText(bid: Bid | null | undefined): string {
  const usable = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n > 0 && n < 100_000_000;
  const amount = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  if (usable(bid?.hourlyRate)) return `${amount(bid.hourlyRate)} USD/hour`;
  if (usable(bid?.fixedBid)) return `a fixed ${amount(bid.fixedBid)} USD`;
  return "";
}
