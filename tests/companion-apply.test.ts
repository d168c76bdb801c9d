import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { parseHTML } from "linkedom";
import type { DomDocument } from "../extension/src/adapter";
import {
  applyUrlOf,
  fillApplyForm,
  proposalFor,
  proposalsReadPlan,
  proposalsUrlOf,
  readApplyPage,
  readFreelancers,
  readProposals,
  sentJobs,
  boostTyped,
  withConnects,
} from "../extension/src/apply";
import type { EngagementAnswer, SubmitOp } from "../extension/src/tasks";
import { CompanionOutcome, PageOutcome } from "../src/marketplace/companion/contract";
import * as views from "../src/marketplace/sandbox/site/views";
import type { JobDocument } from "../src/sources/document";
import { makeDoc } from "./helpers/factories";

const FIXTURES = join(import.meta.dir, "fixtures/companion");
const parse = (html: string) => parseHTML(html).document as unknown as DomDocument;
const fixture = (name: string) => parse(readFileSync(join(FIXTURES, name), "utf8"));
const MP = "https://www.upwork.com";
const APPLY = `${MP}/nx/proposals/job/~021111111111111111111/apply/`;
const SERVER = "http://127.0.0.1:4000";
const SANDBOX = `${SERVER}/sandbox/site`;

const op = (over: Partial<SubmitOp> = {}): SubmitOp => ({
  type: "proposal.submit",
  applicationId: "app_1",
  accountId: "acc_1",
  freelancerId: "fl_1",
  profileId: "~01ada",
  job: { ciphertext: "~021111111111111111111", url: `${MP}/jobs/~021111111111111111111`, title: "Bun API", jobType: "HOURLY" },
  coverLetter: "Dear client, I build Bun APIs.",
  bid: { hourlyRate: 55, fixedBid: null, timeline: "1 to 3 months", boostBids: 0 },
  answers: [
    { position: 0, answer: "Yes, twice." },
    { position: 1, answer: "Monday." },
  ],
  mode: "auto",
  reviewTimeoutMs: 60_000,
  ...over,
});

const before = { boostBids: 0, afterSubmit: false };
const after = { boostBids: 0, afterSubmit: true };
const read = (doc: DomDocument, href: string, opts = before, origins: string[] = []) => readApplyPage(doc, href, origins, "visible text", opts);
/** The outcome a page maps to, checked against the server's own schema (the contract's authority). */
function outcomeOf(doc: DomDocument, href: string, opts = before, origins: string[] = []) {
  const page = read(doc, href, opts, origins);
  expect(page.kind).toBe("outcome");
  const outcome = (page as { outcome: unknown }).outcome;
  expect(Value.Check(PageOutcome, outcome), JSON.stringify(outcome)).toBe(true);
  expect(Value.Check(CompanionOutcome, { type: "proposal.submit", result: outcome })).toBe(true);
  return outcome as Record<string, unknown>;
}

const fieldValue = (doc: DomDocument, css: string) => (doc.querySelector(css) as unknown as { value: string }).value;
const selectedOf = (doc: DomDocument, css: string) => doc.querySelector(css)?.querySelector("option[selected]")?.getAttribute("value");

describe("companion apply logic on fixture pages", () => {
  test("apply and proposals addresses come from the job URL, on the marketplace and the paired sandbox", () => {
    expect(applyUrlOf(`${MP}/jobs/Bun-API_~021111111111111111111/`, [])).toBe(APPLY);
    expect(applyUrlOf(`${SANDBOX}/jobs/~021111111111111111111`, [SERVER])).toBe(`${SANDBOX}/nx/proposals/job/~021111111111111111111/apply/`);
    expect(proposalsUrlOf(`${SANDBOX}/jobs/~021111111111111111111`, [SERVER])).toBe(`${SANDBOX}/nx/proposals`);
    // Not a marketplace job page: no address (the sandbox of an unpaired server included).
    expect(applyUrlOf(`${SANDBOX}/jobs/~021111111111111111111`, [])).toBeNull();
    expect(applyUrlOf("https://example.com/jobs/~021111111111111111111", [])).toBeNull();
  });

  test("the hourly form: a form to fill; rate, cover letter and answers by position are filled, boost left empty at 0", () => {
    const doc = fixture("apply-form.html");
    expect(read(doc, APPLY)).toMatchObject({ kind: "form", facts: { requiredConnects: 16, availableConnects: 42, rateField: "hourly" } });
    const result = fillApplyForm(doc, op());
    expect(result).toEqual({ filled: ["applyHourlyRate", "applyCoverLetter", "applyQuestions[0]", "applyQuestions[1]"], problems: [], unanswered: [] });
    expect(fieldValue(doc, '[data-test="hourly-rate-input"]')).toBe("55.00");
    expect(fieldValue(doc, '[data-test="cover-letter-textarea"]')).toBe("Dear client, I build Bun APIs.");
    const answers = Array.from(doc.querySelectorAll(".fe-proposal-question textarea")).map((t) => (t as unknown as { value: string }).value);
    expect(answers).toEqual(["Yes, twice.", "Monday."]);
    expect(fieldValue(doc, 'input[placeholder="Connects"]')).toBe("");
  });

  test("a boost is typed into the Connects box, and counts in the Connects check", () => {
    const doc = fixture("apply-form.html");
    expect(fillApplyForm(doc, op({ bid: { hourlyRate: 55, fixedBid: null, timeline: "", boostBids: 20 } })).filled).toContain("applyBoost");
    expect(fieldValue(doc, 'input[placeholder="Connects"]')).toBe("20");
    // 16 + 30 > 42: not enough, with the numbers.
    expect(outcomeOf(fixture("apply-form.html"), APPLY, { boostBids: 30, afterSubmit: false })).toMatchObject({
      page: "not_enough_connects",
      required: 46,
      available: 42,
    });
  });

  test("the fixed-price form takes the bid as its one milestone; a form the task cannot fill says why", () => {
    const doc = fixture("apply-form-fixed.html");
    const fixed = op({ bid: { hourlyRate: null, fixedBid: 400, timeline: "", boostBids: 0 }, answers: [{ position: 0, answer: "A shop." }] });
    expect(fillApplyForm(doc, fixed).problems).toEqual([]);
    expect(fieldValue(doc, '[data-test="milestone-amount-input"]')).toBe("400.00");
    // An hourly bid on a fixed form, an answer to no question; the question the proposal does not answer is listed.
    const wrong = fillApplyForm(fixture("apply-form-fixed.html"), op({ answers: [{ position: 3, answer: "?" }] }));
    expect(wrong.problems).toEqual(["The form asks for a fixed bid and the proposal has none", "The form has no screening question at position 3"]);
    expect(wrong.unanswered).toEqual(["0: Describe a similar project."]);
  });

  test("each failure page maps to its outcome: more Connects needed (numbers), closed, not eligible, login, unrecognised (text kept)", () => {
    expect(outcomeOf(fixture("apply-more-connects.html"), APPLY)).toMatchObject({ page: "not_enough_connects", required: 16, available: 6 });
    expect(outcomeOf(fixture("apply-closed.html"), APPLY)).toMatchObject({ page: "job_unavailable", message: "This job is no longer available." });
    expect(outcomeOf(fixture("apply-not-eligible.html"), APPLY)).toMatchObject({
      page: "not_eligible",
      message: expect.stringContaining("located in the U.S."),
    });
    expect(outcomeOf(fixture("login.html"), `${MP}/ab/account-security/login?redir=x`)).toMatchObject({ page: "login_redirect" });
    expect(outcomeOf(fixture("challenge.html"), APPLY)).toMatchObject({ page: "unrecognised", message: expect.stringContaining("bot check") });
    expect(outcomeOf(fixture("apply-error.html"), APPLY)).toEqual({
      page: "unrecognised",
      message: "We could not load this page. Error code 5031.",
      visibleText: "visible text",
      url: APPLY,
    });
  });

  test("after a submit: leaving /apply/ is submitted; the form again waits (its error, if any, is unrecognised)", () => {
    expect(outcomeOf(fixture("my-proposals.html"), `${MP}/nx/proposals`, after)).toMatchObject({ page: "submitted" });
    expect(read(fixture("apply-form.html"), APPLY, after)).toEqual({ kind: "waiting" });
    expect(outcomeOf(fixture("apply-error.html"), APPLY, after)).toMatchObject({ page: "unrecognised" });
    expect(outcomeOf(fixture("login.html"), `${MP}/ab/account-security/login`, after)).toMatchObject({ page: "login_redirect" });
  });

  test("my proposals: items are matched by job (the link when there is no attribute)", () => {
    const entries = readProposals(fixture("my-proposals.html"));
    expect(entries.map((e) => e.ciphertext)).toEqual(["~021111111111111111111", "~022222222222222222222"]);
    expect(proposalFor(entries, "~022222222222222222222")).toMatchObject({ viewed: false, replied: false });
    expect(proposalFor(entries, "~023333333333333333333")).toBeNull();
  });
});

test("a submitted outcome carries the Connects the form showed, in the server's schema; none when the form showed none", () => {
  const submitted = { page: "submitted" as const, message: "Sent" };
  const counted = withConnects(submitted, { requiredConnects: 16, boostBids: 4 });
  expect(counted).toEqual({ page: "submitted", message: "Sent", connectsRequired: 16, boostConnects: 4 });
  expect(Value.Check(CompanionOutcome, { type: "proposal.submit", result: counted })).toBe(true);
  expect(withConnects(submitted, { requiredConnects: 16 })).toMatchObject({ connectsRequired: 16, boostConnects: 0 });
  // No count on the form, or one the server would refuse (the whole answer with it): the outcome goes without.
  expect(withConnects(submitted, undefined)).toEqual(submitted);
  expect(withConnects(submitted, { boostBids: 4 })).toEqual(submitted);
  expect(withConnects(submitted, { requiredConnects: 5000, boostBids: 0 })).toEqual(submitted);
  expect(withConnects(submitted, { requiredConnects: 16, boostBids: 1001 })).toEqual(submitted);
  // The boost box at the user's click (review mode): empty is none; what is not a count is not reported.
  expect(["", " 7 ", "1000", "1001", "3.5", "-1", "abc", "00012"].map(boostTyped)).toEqual([0, 7, 1000, null, null, null, null, 12]);
  // Only a submitted page cost anything.
  expect(withConnects({ page: "not_reviewed" }, { requiredConnects: 16, boostBids: 4 })).toEqual({ page: "not_reviewed" });
});

test("my proposals is read at most once a minute and 50 times a day; a read older than the attempt is never trusted", () => {
  const limits = { gapMs: 60_000, perDay: 50 };
  const now = 1_000_000;
  // Taken after the attempt started: good enough, no new read.
  expect(proposalsReadPlan({ lastReadAt: now - 5_000, readsToday: 3 }, now, now - 10_000, limits)).toBe("cached");
  // Taken before it: a new read, once the minute since the last one has passed.
  expect(proposalsReadPlan({ lastReadAt: now - 5_000, readsToday: 3 }, now, now - 1_000, limits)).toEqual({ waitMs: 55_000 });
  expect(proposalsReadPlan({ lastReadAt: now - 90_000, readsToday: 3 }, now, now, limits)).toEqual({ waitMs: 0 });
  expect(proposalsReadPlan({ lastReadAt: null, readsToday: 0 }, now, 0, limits)).toEqual({ waitMs: 0 });
  expect(proposalsReadPlan({ lastReadAt: now - 90_000, readsToday: 50 }, now, now, limits)).toBe("spent");
});

describe("companion apply logic on the sandbox website's pages", () => {
  const chrome = { base: SANDBOX, signedInAs: "acc_1" };
  const doc = makeDoc({ ciphertext: "~021111111111111111111", questions: ["Why you?"] }) as unknown as JobDocument;
  const href = `${SANDBOX}/nx/proposals/job/~021111111111111111111/apply/`;
  const view = {
    doc,
    connectsRequired: 12,
    connectsAvailable: 40,
    profiles: [
      { profileId: "~01own", label: "Ada — Ada", hourlyRate: 50 },
      { profileId: "~01spec", label: "Ada — Bun specialist", hourlyRate: 70 },
    ],
    questions: [{ position: 0, question: "Why you?" }],
  };
  const sandboxRead = (html: string, opts = before) => readApplyPage(parse(html), href, [SERVER], "text", opts);

  test("the sandbox apply form is filled field by field: profile, rate, duration, boost, cover letter, answer", () => {
    const page = parse(views.applyPage(chrome, view));
    expect(readApplyPage(page, href, [SERVER], "text", before)).toMatchObject({ kind: "form", facts: { requiredConnects: 12, availableConnects: 40 } });
    const result = fillApplyForm(
      page,
      op({
        profileId: "~01spec",
        bid: { hourlyRate: 65, fixedBid: null, timeline: "3 to 6 months", boostBids: 5 },
        answers: [{ position: 0, answer: "Bun." }],
      }),
    );
    expect(result.problems).toEqual([]);
    expect(selectedOf(page, '[data-test="profile-select"]')).toBe("~01spec");
    expect(fieldValue(page, '[data-test="hourly-rate-input"]')).toBe("65.00");
    expect(page.querySelector('[data-test="duration-select"] option[selected]')?.textContent).toBe("3 to 6 months");
    expect(fieldValue(page, "#boost")).toBe("5");
    expect(fieldValue(page, "#question-0")).toBe("Bun.");
    // A profile the form does not offer is a problem, never a silent other choice.
    expect(fillApplyForm(parse(views.applyPage(chrome, view)), op({ profileId: "~01else" })).problems[0]).toBe("The form does not offer profile ~01else");
  });

  test("the sandbox's failure pages map like the real ones", () => {
    const short = views.applyPage(chrome, { ...view, connectsAvailable: 4 });
    expect(sandboxRead(short)).toMatchObject({ kind: "outcome", outcome: { page: "not_enough_connects", required: 12, available: 4 } });
    const posted = views.applyPage(chrome, { ...view, error: "More Connects needed. Needs 24 Connects; 6 available" });
    expect(sandboxRead(posted, after)).toMatchObject({ kind: "outcome", outcome: { page: "not_enough_connects", required: 24, available: 6 } });
    const closed = views.applyRefusedPage(chrome, "This job is no longer available", "This job is no longer available: the client closed it");
    expect(sandboxRead(closed)).toMatchObject({
      kind: "outcome",
      outcome: { page: "job_unavailable", message: "This job is no longer available: the client closed it" },
    });
    const usOnly = views.applyRefusedPage(
      chrome,
      "You are not eligible to apply",
      "This job only accepts freelancers located in the United States; Ada is in DE",
    );
    expect(sandboxRead(usOnly, after)).toMatchObject({ kind: "outcome", outcome: { page: "not_eligible" } });
    const jss = views.applyRefusedPage(chrome, "You are not eligible to apply", "This job requires a Job Success Score of at least 90%; Ada has 80%");
    expect(sandboxRead(jss)).toMatchObject({ kind: "outcome", outcome: { page: "not_eligible" } });
  });

  test("the sandbox's my proposals and profiles pages give proposals (refusals left out) and freelancers", () => {
    const list = parse(
      views.proposalsPage(chrome, [
        {
          applicationId: "sbx_1",
          jobCiphertext: "~021111111111111111111",
          status: "not_enough_connects",
          message: "no",
          submittedAtTs: 1,
          viewed: false,
          replied: false,
        },
        { applicationId: "sbx_2", jobCiphertext: "~022222222222222222222", status: "applied", message: "ok", submittedAtTs: 2, viewed: true, replied: true },
      ]),
    );
    const entries = readProposals(list);
    expect(proposalFor(entries, "~021111111111111111111")).toBeNull();
    // The list the engagement answer carries for the server's outcome check: sent proposals only, never a refusal.
    expect(sentJobs(entries)).toEqual(["~022222222222222222222"]);
    const answer: EngagementAnswer = {
      viewed: true,
      replied: true,
      proposals: { readAt: 1, url: "http://127.0.0.1/sandbox/site/nx/proposals", jobs: sentJobs(entries) },
    };
    expect(Value.Check(CompanionOutcome, { type: "proposal.engagement", result: answer })).toBe(true);
    expect(proposalFor(entries, "~022222222222222222222")).toEqual({
      ciphertext: "~022222222222222222222",
      proposalId: "sbx_2",
      status: "applied",
      viewed: true,
      replied: true,
    });
    const profiles = parse(
      views.profilesPage(chrome, [
        {
          freelancer: { id: "fl_ada", name: "Ada", baseHourlyRate: 50 },
          profiles: [
            { profileId: "~01own", type: "default", name: "Ada", hourlyRate: 50, currency: "USD" },
            { profileId: "~01spec", type: "specialization", name: "Bun specialist", hourlyRate: null, currency: "USD" },
          ],
        },
      ]),
    );
    const freelancers = readFreelancers(profiles);
    expect(freelancers).toEqual([
      {
        id: "fl_ada",
        name: "Ada",
        avatarUrl: null,
        baseHourlyRate: 50,
        profiles: [
          { type: "default", name: "Ada", hourlyRate: 50, currency: "USD", profileId: "~01own" },
          { type: "specialization", name: "Bun specialist", hourlyRate: null, currency: "USD", profileId: "~01spec" },
        ],
      },
    ]);
    expect(Value.Check(CompanionOutcome, { type: "freelancers.list", result: { freelancers } })).toBe(true);
  });
});
