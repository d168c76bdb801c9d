/** SHA-256 of a string's UTF-8 bytes as 64 lower-case hex characters: stored key and token hashes, derived ids, migration checksums. */
export function sha256Hex(input: string): string {
  // The one-shot form, faster than a CryptoHasher object (docs/performance.md, 'Why the code is as it is'): it runs once per request for the API key.
  return Bun.SHA256.hash(input, "hex") as string;
}
