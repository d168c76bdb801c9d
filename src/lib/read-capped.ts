export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body is larger than ${limit} bytes`);
  }
}

/**
 * Reads a body stream but never more than `max` bytes, whatever a
 * Content-Length claims (chunked bodies have none); past the cap the stream is
 * cancelled and TooLargeError thrown. Used for request bodies and for replies
 * from servers we call.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new TooLargeError(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
