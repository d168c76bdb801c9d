/**
 * A body stream that fails before its first chunk makes Bun reset the socket before sending the
 * status line, which the client sees as a connection error (ECONNRESET). Erroring with `undefined`
 * keeps Bun from printing a stack trace for it.
 */
export function droppedConnection(): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error(undefined);
      },
    }),
    { headers: { "content-type": "application/json" } },
  );
}
