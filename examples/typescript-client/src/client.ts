/**
 * A typed jobpilot client: openapi-fetch over the types openapi-typescript generated from the
 * server's OpenAPI document (schema.d.ts; regenerate with `bun run openapi:client`). Every path,
 * parameter, body and response below is checked by the TypeScript compiler against that document.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./schema";

export type Jobpilot = Client<paths>;

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
/** A feed as the API returns it. */
export type Feed = Json<paths["/api/v1/feeds"]["post"]["responses"][201]>["feed"];
/** What POST /api/v1/feeds takes. */
export type NewFeed = NonNullable<paths["/api/v1/feeds"]["post"]["requestBody"]>["content"]["application/json"];
/** The answer of GET /api/auto-apply-v2/status. */
export type ApplicationStatus = Json<paths["/api/auto-apply-v2/status"]["get"]["responses"][200]>;

export interface ClientOptions {
  /** The server, e.g. http://127.0.0.1:3000 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  /** Another fetch (a test passes the app's own handler). */
  fetch?: (request: Request) => Promise<Response>;
}

export function jobpilot(options: ClientOptions): Jobpilot {
  return createClient<paths>({ baseUrl: options.baseUrl, headers: { "x-api-key": options.apiKey }, fetch: options.fetch });
}

/** An error answer as one Error, with the status and the server's message. */
export class JobpilotError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status}: ${message}`);
  }
}

function fail(response: Response, error: { error: string } | undefined): never {
  throw new JobpilotError(response.status, error?.error ?? response.statusText);
}

export async function createFeed(client: Jobpilot, feed: NewFeed): Promise<Feed> {
  const { data, error, response } = await client.POST("/api/v1/feeds", { body: feed });
  if (!data) fail(response, error);
  return data.feed;
}

/** The feed's newest matched job (its ciphertext, what apply takes), or null when none matched yet. */
export async function newestMatch(client: Jobpilot, feedId: string): Promise<{ jobId: string; title: string; score: number } | null> {
  const { data, error, response } = await client.GET("/api/v1/feeds/{feedId}/jobs", { params: { path: { feedId }, query: { limit: 1 } } });
  if (!data) fail(response, error);
  const [entry] = data.jobs;
  return entry ? { jobId: entry.job.ciphertext, title: entry.job.title, score: entry.matchingScore } : null;
}

/** Queues an application; answers its queue id. 402 (no free credit) and 409 (already applied) arrive as JobpilotError. */
export async function apply(client: Jobpilot, jobId: string, coverLetter: string): Promise<string> {
  const { data, error, response } = await client.POST("/api/auto-apply-v2/apply", { body: { jobId, coverLetter } });
  if (!data) fail(response, error);
  return data.queueId;
}

/** Polls the status until it is final (anything but `processing`), honouring Retry-After on a 429. */
export async function waitForFinalStatus(
  client: Jobpilot,
  queueId: string,
  options: { intervalMs?: number; timeoutMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<ApplicationStatus> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const { data, error, response } = await client.GET("/api/auto-apply-v2/status", { params: { query: { queueId } } });
    if (response.status === 429) {
      await sleep(Number(response.headers.get("retry-after") ?? 1) * 1000);
      continue;
    }
    if (!data) fail(response, error);
    if (data.applicationStatus !== "processing") return data;
    if (Date.now() > deadline) throw new Error(`application ${queueId} is still processing`);
    await sleep(options.intervalMs ?? 2000);
  }
}
