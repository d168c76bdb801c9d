import type { ProposalStage } from "../proposals/service";
import type { Logger } from "../../lib/log";
import type { ResponseState } from "./http";

/**
 * Writing a proposal as it happens: when the dashboard's script asks for it (Accept: text/event-stream),
 * the proposal form is answered with Server-Sent Events — one `stage` event as each step begins (reading
 * the job, the freelancer's profile, writing), then `done` with the panel or page the plain form would get
 * (its status and HTML). The script shows the stages with the time each took and the current one ticking,
 * so the button never just sits there.
 *
 * Why stages and not the letter word by word: the local writer (the default) composes the whole letter in
 * one pass in a few milliseconds, so there is nothing to stream; and a model is asked for one strict JSON
 * object (letter and screening answers together) that is checked as a whole — placeholders, length, one
 * answer per question — before anyone sees it, so streaming its text would show words that can still be
 * refused. The stages are real: each is sent when the server starts it.
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
