/** Time-ordered UUIDs (v7) keep inserts at the end of their indexes. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Short random id for request ids and similar: 16 chars of base36. */
export function shortId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let out = "";
  for (const b of bytes) out += (b % 36).toString(36);
  return out + Date.now().toString(36).slice(-6);
}
