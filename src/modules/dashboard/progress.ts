import type { ProposalStage } from "../proposals/service";
import type { Logger } from "../../lib/log";
import type { ResponseState } from "./http";

/**
 * Writing a proposal as it happens: asked with Accept: text/event-stream, the proposal form answers with a
 * `stage` event as each real step begins, then `done` with what the plain form would get. Stages, not words:
 * the letter is composed or checked whole before anyone sees it (see docs/architecture.md, 'Proposal progress as stages').
 */

export function wantsStages(request: Request): boolean {
  return (request.headers.get("accept") ?? "").includes("text/event-stream");
}

/** A stage as the page says it. */
export function stageText(stage: ProposalStage): string {
  switch (stage.stage) {
    case "job":
      return "Reading the job";
    case "profile":
      return "Reading your freelancer profile";
    case "writing": {
      const what = stage.questions > 0 ? `the letter and ${stage.questions} screening answer${stage.questions === 1 ? "" : "s"}` : "the letter";
      return `Writing ${what} with ${stage.writer === "model" ? "the model" : "the local writer"}`;
    }
  }
}

/**
 * The event stream for `work`, which renders the answer into its own ResponseState (its status becomes
 * `done`'s). Anything `work` throws is logged and ends the stream with a generic `failed` event.
 */
export function stagedResponse(log: Logger, work: (progress: (stage: ProposalStage) => void, set: ResponseState) => Promise<string>): Response {
  const encoder = new TextEncoder();
  const started = performance.now();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: string, data: unknown) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      const set: ResponseState = { headers: {} };
      try {
        const html = await work((stage) => send("stage", { text: stageText(stage), atMs: Math.round(performance.now() - started) }), set);
        send("done", { status: typeof set.status === "number" ? set.status : 200, html });
      } catch (err) {
        log.error("dashboard: writing a proposal failed", { err: err as Error });
        send("failed", { message: "Something went wrong while writing the proposal. Try again." });
      }
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });
}
