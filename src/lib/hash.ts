/** SHA-256 of a string's UTF-8 bytes as 64 lower-case hex characters: stored key and token hashes, derived ids, migration checksums. */
export function sha256Hex(input: string): string {
  return new Bun.CryptoHasher("sha256").update(input).digest("hex");
}
