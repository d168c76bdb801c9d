import { describe, expect, test } from "bun:test";
import { conceptMentions, jobConcepts, mentionsIn } from "../../src/ai/concepts";
import { keywordStuffed, scamSignals } from "../../src/ai/job-signals";

const ids = (title: string, description = "") => scamSignals({ title, description }).map((s) => s.id);

// Each rule: posts that must trip it, and benign look-alikes that must not.
const RULES: Record<string, { trips: string[]; benign: string[] }> = {
  "off-platform": {
    trips: [
      "Easy task – contact me on Telegram @dash_jobs",
      "Don't reply here, message me on WhatsApp",
      "Send your results to our manager on Telegram",
      "WhatsApp only",
    ],
    benign: ["Build a Telegram bot for our shop", "Integrate the WhatsApp Business API into our CRM", "Discord bot with slash commands"],
  },
  "pay-to-start": {
    trips: ["A one-time registration fee of $49 is required", "You must first buy our official starter kit license ($49)", "Payment via gift cards only"],
    benign: ["Integrate Stripe to charge a registration fee to our members", "Set up license key checks for our WordPress plugin"],
  },
  "unpaid-test": {
    trips: ["Complete a test task first. The test is unpaid.", "Test task: build a Shopify app (unpaid) to join", "Unpaid test project before hiring"],
    benign: ["Paid trial task of 2 hours at your rate", "Write unit tests for our payment module"],
  },
  "account-rental": {
    trips: [
      "Need developer to rent account with React profile",
      "We work through your account and you keep 20% of earnings",
      "account sharing, you do nothing",
    ],
    benign: ["Set up IAM roles so we can deploy to our AWS account", "Create user accounts in our admin panel"],
  },
  "fake-reviews": {
    trips: ["Leave 5-star reviews for our plugin, $5 per review", "Write positive reviews on Trustpilot"],
    benign: ["Build a product reviews widget for Shopify", "Code review of our Node.js API"],
  },
  fraud: {
    trips: ["Auto-register accounts with KYC bypass using generated documents", "Playwright bot farm for airdrop farming"],
    benign: ["Implement KYC verification with Onfido", "Farm management dashboard in React"],
  },
  "easy-money": {
    trips: ["Quick and easy passive income", "Guaranteed 5+ projects per month", "Paid in our token – will be worth 100x"],
    benign: ["Passive house energy calculator", "Dashboard showing guaranteed delivery dates"],
  },
  "personal-data": {
    trips: [
      "To get started, send me a scan of your passport and a selfie with your ID",
      "We need a photo of your driver's license for payroll",
      "Share your bank login so we can deposit your salary",
      "Please provide your social security number before the interview",
    ],
    benign: [
      "Build a KYC flow where users upload a passport scan",
      "Integrate Plaid bank login into our budgeting app",
      "Add a password reset page to our Laravel login",
      "Validate SSN format in our HR form (US payroll)",
    ],
  },
  "crypto-or-cheque": {
    trips: [
      "You will be paid in USDT every Friday",
      "We will send you a check, you deposit it and forward the rest",
      "Payment for this job is made via Bitcoin",
      "We send a cheque, you deposit the cheque at your bank",
    ],
    benign: [
      "Build a crypto payment gateway that accepts USDT",
      "Add a check deposit screen to our banking app",
      "Smart contract audit for our ETH token, paid via Upwork milestones",
    ],
  },
  "email-phone": {
    trips: [
      "Email me at hr.jobs@gmail.com with your CV",
      "Call me on +1 415 555 0134 to discuss",
      "Contact us at jobs@quickhire.io",
      "My phone: +44 7700 900123",
    ],
    benign: [
      "The app should email me a daily report of sales",
      "Format phone numbers like +1 415 555 0134 in our CRM",
      "Build a contact form with name, email and phone fields",
      "Call our REST API from the mobile app",
    ],
  },
};

describe("scam signals", () => {
  for (const [rule, { trips, benign }] of Object.entries(RULES)) {
    test(`${rule}: trips on its examples, not on look-alikes`, () => {
      for (const text of trips) expect([text, ids("Job", text).includes(rule)]).toEqual([text, true]);
      for (const text of benign) expect([text, ids("Job", text)]).toEqual([text, []]);
    });
  }

  test("each signal says why in words", () => {
    const [signal] = scamSignals({ title: "React job", description: "Contact me on Telegram." });
    expect(signal).toEqual({ id: "off-platform", say: "asks to talk off the platform" });
  });
});

describe("keyword stuffing", () => {
  const stuffed = (title: string, description = "A short real description of the work.") =>
    keywordStuffed(
      { title },
      {
        title: conceptMentions(title).total,
        description: { ...mentionsIn(jobConcepts({ title: "", description, skills: [] })), words: description.split(/\s+/).length },
      },
    );

  test("a title that is a list of technologies, or shouts, is stuffed", () => {
    expect(stuffed("React TypeScript Next.js Redux React Query Dashboard Admin Panel Expert!!!")).toBe(true);
    expect(stuffed("PageSpeed Guru / Core Web Vitals Ninja / WooCommerce Rockstar wanted NOW")).toBe(true);
  });

  test("a real title naming a few tools is not", () => {
    expect(stuffed("React + TypeScript SaaS dashboard – no Redux experience needed")).toBe(false);
    expect(stuffed("Clinician dashboard for healthcare SaaS (Next.js, React Query, charts)")).toBe(false);
  });

  test("a description listing many different technologies and little else is stuffed; a long real one is not", () => {
    const list = "Kubernetes, Terraform, AWS, EKS, Helm, GitHub Actions, CI/CD, Prometheus, Grafana, Docker, Jenkins, Ansible, GCP, Azure, Python.";
    expect(stuffed("DevOps expert", list)).toBe(true);
    const real = "Build React dashboards with TypeScript for a fintech client. ".repeat(200);
    expect(stuffed("Dashboards", real)).toBe(false);
  });
});
