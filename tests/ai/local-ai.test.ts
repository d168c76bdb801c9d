import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { createLocalAi, defaultLocalAiThreads, type LocalAi } from "../../src/ai/local-ai";
import { scoreLocally } from "../../src/ai/local-scorer";
import { answerQuestionLocally, writeProposalLocally } from "../../src/ai/local-writer";
import { memoryLogger } from "../../src/lib/log";
import { normalizeJob } from "../../src/modules/jobs/normalize";
import { writingJobOf } from "../../src/modules/proposals/service";
import { makeDoc } from "../helpers/factories";

const normalized = normalizeJob(
  makeDoc({
    title: "Shopify store speed optimisation",
    description: "Our Shopify store loads slowly on mobile. Audit the theme, remove unused apps and improve Core Web Vitals.",
    skills: ["Shopify", "Liquid", "Performance"],
    fixed: 500,
  }),
);
if (!normalized.ok) throw new Error(normalized.error);
const job = writingJobOf(normalized.job);
const profile = { name: "Ada", title: "Shopify developer", hourlyRate: 50 };
const opened: LocalAi[] = [];
const open = (threads: number) => {
  const ai = createLocalAi({ threads, log: memoryLogger() });
  opened.push(ai);
  return ai;
};
afterEach(() => {
  for (const ai of opened.splice(0)) ai.close();
});

describe("local AI on threads", () => {
  for (const threads of [0, 2]) {
    test(`with ${threads} threads it answers exactly what the local scorer and writer answer`, async () => {
      const ai = open(threads);
      const prompt = "Shopify performance expert, no WordPress";
      expect(await ai.score(prompt, job)).toEqual(scoreLocally(prompt, job));
      const input = { job, profile, instructions: "Mention Core Web Vitals.", effort: "medium" as const };
      expect(await ai.writeProposal(input)).toBe(writeProposalLocally(input));
      const question = { job, profile, question: "How would you speed up the store?" };
      expect(await ai.answerQuestion(question)).toBe(answerQuestionLocally(question));
    });
  }

  test("after close() calls fail instead of hanging", async () => {
    const ai = open(1);
    await ai.score("react", job);
    ai.close();
    expect(
      await ai.score("react", job).then(
        () => "answered",
        (err: Error) => err.message,
      ),
    ).toBe("the worker pool was terminated");
  });

  // Linux only: only there does each thread have its own nice value; elsewhere the worker leaves its priority alone.
  test.if(process.platform === "linux")("on Linux the threads run at the lowest CPU priority, the server's thread at its own", async () => {
    // Threads come and go (the runtime's own helpers, other tests' workers ending): one that ended between the
    // listing and the read is left out.
    const niceOf = () =>
      readdirSync(`/proc/${process.pid}/task`).flatMap((tid) => {
        let stat: string;
        try {
          stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
        } catch {
          return [];
        }
        return [{ tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) }];
      });
    const before = niceOf();
    const mainNice = before.find((t) => t.tid === process.pid)!.nice;
    const ai = open(1);
    await ai.score("react", job);
    const started = niceOf().filter((t) => !before.some((b) => b.tid === t.tid));
    expect(started.some((t) => t.nice === 19)).toBe(true);
    expect(niceOf().find((t) => t.tid === process.pid)?.nice).toBe(mainNice);
  });

  test("the default leaves a core for the server's thread and stays between 1 and 4", () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => defaultLocalAiThreads(cores))).toEqual([1, 1, 2, 3, 4, 4]);
  });
});
