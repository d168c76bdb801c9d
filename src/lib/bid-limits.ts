/**
 * What the marketplace itself accepts in its apply form: hourly rates of 3–999 USD, fixed bids of
 * 5–1,000,000 USD, and boosts the Connects balance can pay (1,000 is well above any real balance).
 * Bids outside these can never be sent, so they are refused at the door rather than submitted. Shared by apply
 * (modules/applications) and the experiments whose arms set bids (modules/experiments, upstream of applications).
 */
export const BID_LIMITS = {
  hourlyRate: { minimum: 3, maximum: 999 },
  fixedBid: { minimum: 5, maximum: 1_000_000 },
  boostBids: { minimum: 0, maximum: 1_000 },
} as const;
