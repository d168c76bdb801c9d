/**
 * The local writer's category banks (see local-writer-phrases.ts for the rules every phrase follows): the
 * words that point to a kind of work (store, front end, scraping, …) and, per kind, the working
 * principles, fallback steps, questions, risks and assumptions a letter draws on when the posting is thin.
 */

export type Category = "design" | "ecommerce" | "frontend" | "backend" | "data" | "devops" | "mobile" | "ai" | "writing" | "marketing" | "general";

export interface CategoryBank {
  words: string; // space-separated tokens that point to this category in a job
  work: string;
  thing: string;
  principles: string[]; // how the work would be done, as a plan for this job (no track record)
  steps: string[]; // fallback approach steps in base verb form, in working order: first is a look, last a hand-over
  questions: string[];
  risks: string[]; // completes "the main risk I see is …"
  assumptions: string[]; // completes "I'm assuming …"
}

export const CATEGORIES: Record<Category, CategoryBank> = {
  design: {
    words:
      "logo logos branding brand illustrator photoshop figma graphic graphics illustration flyer banner mockup mockups wireframes identity typography canva indesign packaging icon icons ui ux",
    work: "design work",
    thing: "the current design",
    principles: [
      "I'd start from the brand's story and audience, explore a few directions, and then polish the strongest one.",
      "You'd get clean, organised source files, with vector versions that hold up at any size.",
      "I'd check how the design works small, in one colour and on screen, not just how it looks in a presentation.",
    ],
    steps: [
      "gather your references, audience and anything you already like or dislike",
      "share two or three distinct initial concepts for you to react to",
      "refine the chosen direction through focused revision rounds",
      "deliver final files in the formats you need, with a simple usage sheet",
    ],
    questions: [
      "Are there any colours, fonts or brands you already love or want to avoid?",
      "Where will the design be used most: print, web, social media or packaging?",
    ],
    risks: ["a design that looks good large but falls apart small, so I'd check every concept at small sizes early"],
    assumptions: ["you'll have one person who gives the final feedback on each round, which keeps revisions focused"],
  },
  ecommerce: {
    words: "shopify woocommerce magento bigcommerce ecommerce commerce store checkout liquid cart products etsy storefront",
    work: "e-commerce work",
    thing: "the store",
    principles: [
      "On a store, speed and conversion come first: trimming heavy apps and scripts, cleaning up the theme and keeping checkout smooth.",
      "I'd start with the theme code and installed apps, because that is where most slowdowns and bugs come from.",
      "A live store needs care, so my changes would go to a duplicate theme first and customers never see a half-finished fix.",
    ],
    steps: [
      "audit the theme, installed apps and third-party scripts to find what actually slows the store down",
      "work on a duplicate theme so the live store stays untouched",
      "fix the biggest issues first and measure the result before and after",
      "publish the changes and hand over a short list of what was done",
    ],
    questions: [
      "Could you tell me which pages feel slowest to you, and whether there's a duplicate theme I can work on?",
      "Are there any apps on the store you want to keep no matter what, so I can plan around them?",
    ],
    risks: ["an app or script that other parts of the store quietly depend on, so I'd test every removal on a duplicate theme first"],
    assumptions: ["I'll get collaborator access to the store admin and can duplicate the live theme for testing"],
  },
  frontend: {
    words:
      "react reactjs vue angular svelte nextjs next frontend front css html tailwind javascript typescript dashboard dashboards website landing webflow wordpress responsive components",
    work: "front-end work",
    thing: "the current front end",
    principles: [
      "I'd aim for a clean component structure, predictable state and an interface that stays fast with real data.",
      "I'd keep the components small and typed, so the code stays easy to change after launch.",
      "I'd test the layouts on real phones and slower connections, not just a large desktop screen.",
    ],
    steps: [
      "review the designs and the existing code to agree on the component structure",
      "build the screens as reusable, typed components",
      "connect them to the real data and handle loading and error states",
      "test across browsers and screen sizes and hand over clean, documented code",
    ],
    questions: [
      "Do you already have designs in Figma, or should I work from the existing pages?",
      "Is there existing code I can look at before we start, or is this a fresh project?",
    ],
    risks: ["scope growing screen by screen, so I'd agree on the list of views up front and flag anything new"],
    assumptions: ["the data the front end needs is available from an existing API, or we'll define it together early on"],
  },
  backend: {
    words:
      "api apis backend node nodejs django flask fastapi laravel php rails ruby java spring golang postgres postgresql mysql mongodb database graphql microservices stripe webhooks server",
    work: "back-end and API work",
    thing: "the codebase",
    principles: [
      "I'd keep the back end boring in the best way: clear data models, proper validation and tests around the parts that handle money or user data.",
      "I'd focus on clean API design, sensible error handling and logs you can actually read when something goes wrong.",
      "I'd document each endpoint as it is built, so whoever works on the front end is never guessing.",
    ],
    steps: [
      "go through the existing code and data model and agree on the API contract",
      "implement the endpoints with validation and automated tests",
      "handle errors, retries and logging for the external services involved",
      "deploy to staging, walk you through it and document how to run it",
    ],
    questions: [
      "Could you share access to the current repository before I start, even read-only?",
      "Is there a staging environment I can deploy to, or should I set one up as part of this?",
    ],
    risks: ["hidden assumptions in the existing data, so I'd check real records early rather than trusting the schema alone"],
    assumptions: ["there is a repository and a test or staging environment I can use, so nothing is tried out on production"],
  },
  data: {
    words:
      "scraping scraper scrape scrapy crawler crawl selenium playwright puppeteer beautifulsoup etl pandas excel csv spreadsheet sheets automation automate extraction pipeline data",
    work: "scraping and data automation work",
    thing: "the target sites",
    principles: [
      "I'd make the scraper polite and sturdy: sensible request rates, retries, and clear logs when a page changes.",
      "I'd keep the extraction and the cleaning separate, so a change on one site doesn't break everything else.",
      "You'd get checked data: no silent duplicates, consistent formats and a note on anything that could not be collected.",
    ],
    steps: [
      "check the target pages and confirm exactly which fields you need",
      "write the extraction with retries, rate limits and logging",
      "clean and de-duplicate the results into the format you want",
      "schedule the runs and hand over the code with instructions to run it yourself",
    ],
    questions: [
      "Could you send me a sample of the output you'd like, even a few rows in a spreadsheet?",
      "Is this a one-off collection, or should it run on a schedule?",
    ],
    risks: ["the sites changing their layout or limiting requests, so I'd build in retries, alerts and selectors that are easy to update"],
    assumptions: ["the data is publicly visible without logging in, and collecting it is in line with the sites' terms"],
  },
  devops: {
    words:
      "aws azure gcp docker kubernetes k8s terraform ansible devops ci cd infrastructure migration migrate linux nginx servers cloud helm jenkins ec2 s3 deployment heroku",
    work: "cloud and DevOps work",
    thing: "the current infrastructure",
    principles: [
      "I'd treat the infrastructure as code: everything written down, reviewable and repeatable, not clicked together by hand.",
      "I'd plan any migration around a tested rollback path, so a bad step never means a long outage.",
      "I'd leave monitoring and alerts behind, so you know about a problem before your users do.",
    ],
    steps: [
      "review the current setup, costs and dependencies and write down the target architecture",
      "build the new environment as code and test it with a copy of the workload",
      "plan the cutover with a rollback path and run it at a quiet time",
      "set up monitoring and alerts and document how everything fits together",
    ],
    questions: [
      "Is there a maintenance window when a short cutover would be acceptable, or does this need to be zero-downtime?",
      "How is the current infrastructure documented today: is any of it in code, or was it mostly set up by hand?",
    ],
    risks: ["downtime during the cutover, so I'd rehearse it on a copy first and keep the old environment ready to switch back to"],
    assumptions: ["I'll get access with enough permissions to read the current setup, and we'll agree on changes before anything touches production"],
  },
  mobile: {
    words: "ios android flutter swift kotlin mobile native xcode expo swiftui testflight",
    work: "mobile app work",
    thing: "the app",
    principles: [
      "I'd aim for an app that feels native on both platforms and behaves well on slow networks and older phones.",
      "I'd keep state handling simple and testable, which makes store releases much less stressful.",
    ],
    steps: [
      "go through the screens and flows and agree on what the first release includes",
      "build the features with a clean structure and shared components",
      "test on real devices on both platforms",
      "prepare the store builds and help with the release",
    ],
    questions: [
      "Do you already have designs for the main screens, and which platforms matter most at launch?",
      "Is there an existing back end the app should talk to, or is that part of the job?",
    ],
    risks: ["app store review delays, so I'd submit early builds for testing well before the launch date"],
    assumptions: ["you have, or will create, the developer accounts needed for both stores"],
  },
  ai: {
    words: "ml machine learning llm llms ai gpt openai pytorch tensorflow nlp rag langchain chatbot embeddings vision model models",
    work: "applied AI and machine learning work",
    thing: "your data",
    principles: [
      "I'd aim for an AI feature that holds up in practice: a clear evaluation set, honest metrics and fallbacks for when the model is unsure.",
      "I'd start from a simple baseline and only add complexity where the numbers show it helps.",
    ],
    steps: [
      "look at a sample of your data and agree on how we'll measure success",
      "build a simple baseline and a small evaluation set",
      "iterate on the model or prompts against that evaluation",
      "package it behind a clean interface and document its limits",
    ],
    questions: [
      "How much example data do you have today, and can you share a small sample?",
      "What would a good result look like for you in numbers, for example accuracy or response time?",
    ],
    risks: ["results that look good in a demo but not on real inputs, so I'd measure on your own examples from the start"],
    assumptions: ["you can share representative example data, with anything sensitive removed"],
  },
  writing: {
    words: "writer writing article articles blog copywriting copywriter content proofreading editing ghostwriting ebook newsletter copy script technical",
    work: "writing work",
    thing: "your existing content",
    principles: [
      "I'd research before writing, match the voice of the brand, and keep sentences short enough that people actually read them.",
      "Everything you'd get would be original, edited and ready to publish, with headlines and structure that suit how people skim online.",
    ],
    steps: [
      "read your existing content and agree on the tone, audience and goals",
      "send an outline for the first piece before writing it in full",
      "write and edit the drafts, with one round of revisions included",
      "deliver final copy ready to publish",
    ],
    questions: [
      "Could you share one or two pieces you like the style of, yours or anyone else's?",
      "Who is the main reader you want to reach, and what should they do after reading?",
    ],
    risks: ["a mismatch in tone on the first piece, so I'd start with an outline and a short sample before writing everything"],
    assumptions: ["you'll have someone who knows the subject available for a few quick questions"],
  },
  marketing: {
    words: "seo marketing ads adwords campaign campaigns facebook instagram tiktok social ppc klaviyo mailchimp leads funnel analytics conversion",
    work: "marketing work",
    thing: "your current campaigns",
    principles: [
      "I'd work from data rather than hunches: clear tracking first, then small tests, then scaling what works.",
      "I'd measure the work against the numbers you care about, not vanity metrics.",
    ],
    steps: [
      "review your current setup, tracking and results so far",
      "fix any tracking gaps so every change can be measured",
      "run focused tests on the changes most likely to move your numbers",
      "report results in plain language with clear next steps",
    ],
    questions: [
      "Which number matters most to you right now: traffic, leads or sales?",
      "Could you give me read access to your analytics, so I can see where things stand?",
    ],
    risks: ["changes that are hard to measure, so I'd make sure tracking is right before changing anything else"],
    assumptions: ["your analytics and ad accounts are set up and I can get access to them"],
  },
  general: {
    words: "",
    work: "hands-on project work",
    thing: "the current setup",
    principles: [
      "I'd work in small, visible steps, so you always know what is finished and what comes next.",
      "I'd take time to understand the goal behind each task, which usually saves time later.",
    ],
    steps: [
      "go through the requirements with you and confirm what done looks like",
      "do the work in small milestones you can review along the way",
      "check everything carefully against the requirements",
      "hand over the results with short notes on what was done",
    ],
    questions: [
      "Is there anything you've already tried, or know is a problem, so I can look there first?",
      "Do you have a deadline in mind, or is the quality of the result the bigger priority?",
    ],
    risks: ["requirements that only become clear halfway through, so I'd confirm the details early and check in at each milestone"],
    assumptions: ["you'll be available for a quick question now and then as the work moves along"],
  },
};
