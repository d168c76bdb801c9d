/**
 * The Connects a job's document says a proposal costs, wherever the source put it: a tile's or the official API's
 * `connectPrice`, the web card's or the apply page's `connectsRequired`. The governor budgets with it and expected
 * value prices a job with it.
 */
import { detailRoots, num, obj } from "./json-readers";

/** A positive whole number of Connects, or null (the document's figures may be strings, zero or nonsense). */
function connectsIn(v: unknown): number | null {
  const n = num(v);
  return n !== null && Number.isInteger(n) && n > 0 && n <= 1000 ? n : null;
}

export function connectsRequiredOf(document: unknown): number | null {
  const doc = obj(document);
  const tile = obj(obj(doc?.jobTile)?.job);
  const authOpening = obj(detailRoots(document).auth?.opening);
  return (
    [
      doc?.connectPrice,
      doc?.connectsRequired,
      tile?.connectPrice,
      obj(doc?.searchJobCard)?.connectsRequired,
      obj(doc?.opening)?.connectsRequired,
      authOpening?.connectsRequired,
    ]
      .map(connectsIn)
      .find((n) => n !== null) ?? null
  );
}

/**
 * Connects a job takes when its document does not say: the top of the marketplace's published 4/8/12/16 card, so a
 * guess never makes a job look cheap (expected value) nor lets a budget spend more than it allows (the governor).
 */
export const DEFAULT_CONNECTS_REQUIRED = 16;
