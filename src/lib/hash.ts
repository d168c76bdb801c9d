/** SHA-256 of a string's UTF-8 bytes as 64 lower-case hex characters: stored key and token hashes, derived ids, migration checksums. */
export function sha256Hex(input: string): string {
  // The one-shot form: a third of the time of a CryptoHasher object (0.26 against 0.78 µs), once per request for the API key.
  return Bun.SHA256.hash(input, "hex") as string;
}
