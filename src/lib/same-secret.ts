import { timingSafeEqual } from "node:crypto";

/** Constant-time comparison of two secrets; both are hashed first, so neither their lengths nor their contents leak. */
export function sameSecret(a: string, b: string): boolean {
  const x = new Bun.CryptoHasher("sha256").update(a).digest();
  const y = new Bun.CryptoHasher("sha256").update(b).digest();
  return timingSafeEqual(x, y);
}
