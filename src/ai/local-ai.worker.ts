/** A local AI thread (see ./local-ai): runs the local scorer and writer for the server's thread. */
import { setPriority } from "node:os";
import { serveJobs } from "../lib/worker-pool";
import { runLocalAi, type LocalAiCall } from "./local-ai";

// On Linux each thread has its own nice value: at the lowest priority this thread gives way whenever the thread
// that answers HTTP wants a CPU (on a busy machine, scoring waits rather than requests). Elsewhere the call would
// lower the whole process, so it is left alone.
if (process.platform === "linux") setPriority(19);

serveJobs<LocalAiCall, unknown>(runLocalAi);
