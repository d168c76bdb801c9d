/** A local AI thread (see ./local-ai): runs the local scorer and writer for the server's thread. */
import { serveJobs } from "../lib/worker-pool";
import { runLocalAi, type LocalAiCall } from "./local-ai";

serveJobs<LocalAiCall, unknown>(runLocalAi);
