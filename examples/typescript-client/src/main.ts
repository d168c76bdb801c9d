/**
 * Creates a feed, waits for its first matched job, applies to it and polls until the application
 * is final. Against a local `bun run start` (the sandbox marketplace posts a few jobs a minute):
 *
 *   JOBPILOT_URL=http://127.0.0.1:3000 JOBPILOT_API_KEY=jp_live_… bun examples/typescript-client/src/main.ts
 */
import { apply, createFeed, jobpilot, newestMatch, waitForFinalStatus } from "./client";

const baseUrl = process.env.JOBPILOT_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.JOBPILOT_API_KEY;
if (!apiKey) throw new Error("Set JOBPILOT_API_KEY (the key `jobpilot` printed on first start, or `jobpilot key create`)");

const client = jobpilot({ baseUrl, apiKey });
// No profile prompt: no AI scoring, every match scores 5, so minScore must be 5 or lower.
const feed = await createFeed(client, { title: "Everything (typescript-client example)", minScore: 0 });
console.log(`feed ${feed.id} created; waiting for a match (new jobs only)…`);

let match = await newestMatch(client, feed.id);
while (!match) {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  match = await newestMatch(client, feed.id);
}
console.log(`matched: ${match.title} (score ${match.score})`);

const queueId = await apply(client, match.jobId, "Hello! I have done this kind of work before and can start this week.");
console.log(`queued as ${queueId}`);
const status = await waitForFinalStatus(client, queueId);
console.log(`final status: ${status.applicationStatus}${status.errorMessage ? ` (${status.errorMessage})` : ""}`);
