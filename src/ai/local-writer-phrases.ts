/**
 * Phrase banks and word lists for the local writer (./local-writer). A phrase that needs job text is a
 * function of already-cleaned slot values, so no template can leave an unfilled placeholder in a
 * letter. Several variants per part keep letters for different jobs from reading alike; the writer
 * picks among them by a hash of the job. Phrases claim nothing a freelancer could not stand behind:
 * no years, client names, links or numbers.
 */

/** Values a phrase may use; all are plain text taken from the job and profile after cleaning. */
export interface Slots {
  skills: string; // "React, TypeScript and Node.js"
  skill: string; // the most relevant skill, or "the tools this job needs"; only used after "with"/"involving"
  work: string; // "front-end work": the category's kind of work
  thing: string; // "the current front end": what the freelancer would look at first
  topic: string; // "speeding up your Shopify checkout" or "the React dashboard": the job as a noun phrase
}
export type Line = (s: Slots) => string;
type Frame = (text: string) => string;
type StepFrame = (vp: string, ing: string) => string;

export type Category = "design" | "ecommerce" | "frontend" | "backend" | "data" | "devops" | "mobile" | "ai" | "writing" | "marketing" | "general";

export interface CategoryBank {
  words: string; // space-separated tokens that point to this category in a job
  work: string;
  thing: string;
  experience: string[]; // a second experience sentence
  steps: string[]; // fallback approach steps in base verb form, in working order: first is a look, last a hand-over
  questions: string[];
  risks: string[]; // completes "the main risk I see is …"
  assumptions: string[]; // completes "I'm assuming …"
}

export const CATEGORIES: Record<Category, CategoryBank> = {
  design: {
    words: "logo logos branding brand illustrator photoshop figma graphic graphics illustration flyer banner mockup mockups wireframes identity typography canva indesign packaging icon icons ui ux",
    work: "design work",
    thing: "the current design",
    experience: [
      "I like to start from the brand's story and audience, explore a few directions, and then polish the strongest one.",
      "I deliver clean, organised source files, with vector versions that hold up at any size.",
      "I check how a design works small, in one colour and on screen, not just how it looks in a presentation.",
    ],
    steps: [
      "gather your references, audience and anything you already like or dislike", "share two or three distinct initial concepts for you to react to",
      "refine the chosen direction through focused revision rounds", "deliver final files in the formats you need, with a simple usage sheet",
    ],
    questions: ["Are there any colours, fonts or brands you already love or want to avoid?", "Where will the design be used most: print, web, social media or packaging?"],
    risks: ["a design that looks good large but falls apart small, so I check every concept at small sizes early"],
    assumptions: ["you'll have one person who gives the final feedback on each round, which keeps revisions focused"],
  },
  ecommerce: {
    words: "shopify woocommerce magento bigcommerce ecommerce commerce store checkout liquid cart products etsy storefront",
    work: "e-commerce work",
    thing: "the store",
    experience: [
      "Most of my store work is about speed and conversion: trimming heavy apps and scripts, cleaning up the theme and keeping checkout smooth.",
      "I usually start with the theme code and installed apps, because that is where most slowdowns and bugs come from.",
      "I'm careful with live stores: changes go to a duplicate theme first, so customers never see a half-finished fix.",
    ],
    steps: [
      "audit the theme, installed apps and third-party scripts to find what actually slows the store down", "work on a duplicate theme so the live store stays untouched",
      "fix the biggest issues first and measure the result before and after", "publish the changes and hand over a short list of what was done",
    ],
    questions: [
      "Could you tell me which pages feel slowest to you, and whether there's a duplicate theme I can work on?",
      "Are there any apps on the store you want to keep no matter what, so I can plan around them?",
    ],
    risks: ["an app or script that other parts of the store quietly depend on, so I'd test every removal on a duplicate theme first"],
    assumptions: ["I'll get collaborator access to the store admin and can duplicate the live theme for testing"],
  },
  frontend: {
    words: "react reactjs vue angular svelte nextjs next frontend front css html tailwind javascript typescript dashboard dashboards website landing webflow wordpress responsive components",
    work: "front-end work",
    thing: "the current front end",
    experience: [
      "I care about clean component structure, predictable state and interfaces that stay fast with real data.",
      "I keep components small and typed, so the code stays easy to change after launch.",
      "I test layouts on real phones and slower connections, not just a large desktop screen.",
    ],
    steps: [
      "review the designs and the existing code to agree on the component structure", "build the screens as reusable, typed components",
      "connect them to the real data and handle loading and error states", "test across browsers and screen sizes and hand over clean, documented code",
    ],
    questions: ["Do you already have designs in Figma, or should I work from the existing pages?", "Is there existing code I can look at before we start, or is this a fresh project?"],
    risks: ["scope growing screen by screen, so I'd agree on the list of views up front and flag anything new"],
    assumptions: ["the data the front end needs is available from an existing API, or we'll define it together early on"],
  },
  backend: {
    words: "api apis backend node nodejs django flask fastapi laravel php rails ruby java spring golang postgres postgresql mysql mongodb database graphql microservices stripe webhooks server",
    work: "back-end and API work",
    thing: "the codebase",
    experience: [
      "I write back-end code that is boring in the best way: clear data models, proper validation and tests around the parts that handle money or user data.",
      "I focus on clean API design, sensible error handling and logs you can actually read when something goes wrong.",
      "I document endpoints as I build them, so whoever works on the front end is never guessing.",
    ],
    steps: [
      "go through the existing code and data model and agree on the API contract", "implement the endpoints with validation and automated tests",
      "handle errors, retries and logging for the external services involved", "deploy to staging, walk you through it and document how to run it",
    ],
    questions: ["Could you share access to the current repository before I start, even read-only?", "Is there a staging environment I can deploy to, or should I set one up as part of this?"],
    risks: ["hidden assumptions in the existing data, so I'd check real records early rather than trusting the schema alone"],
    assumptions: ["there is a repository and a test or staging environment I can use, so nothing is tried out on production"],
  },
  data: {
    words: "scraping scraper scrape scrapy crawler crawl selenium playwright puppeteer beautifulsoup etl pandas excel csv spreadsheet sheets automation automate extraction pipeline data",
    work: "scraping and data automation work",
    thing: "the target sites",
    experience: [
      "I build scrapers that are polite and sturdy: sensible request rates, retries, and clear logs when a page changes.",
      "I keep the extraction and the cleaning separate, so a change on one site doesn't break everything else.",
      "I always deliver checked data: no silent duplicates, consistent formats and a note on anything that could not be collected.",
    ],
    steps: [
      "check the target pages and confirm exactly which fields you need", "write the extraction with retries, rate limits and logging",
      "clean and de-duplicate the results into the format you want", "schedule the runs and hand over the code with instructions to run it yourself",
    ],
    questions: ["Could you send me a sample of the output you'd like, even a few rows in a spreadsheet?", "Is this a one-off collection, or should it run on a schedule?"],
    risks: ["the sites changing their layout or limiting requests, so I'd build in retries, alerts and selectors that are easy to update"],
    assumptions: ["the data is publicly visible without logging in, and collecting it is in line with the sites' terms"],
  },
  devops: {
    words: "aws azure gcp docker kubernetes k8s terraform ansible devops ci cd infrastructure migration migrate linux nginx servers cloud helm jenkins ec2 s3 deployment heroku",
    work: "cloud and DevOps work",
    thing: "the current infrastructure",
    experience: [
      "I treat infrastructure as code: everything I set up is written down, reviewable and repeatable, not clicked together by hand.",
      "I plan migrations around a tested rollback path, so a bad step never means a long outage.",
      "I like to leave monitoring and alerts behind, so you know about a problem before your users do.",
    ],
    steps: [
      "review the current setup, costs and dependencies and write down the target architecture", "build the new environment as code and test it with a copy of the workload",
      "plan the cutover with a rollback path and run it at a quiet time", "set up monitoring and alerts and document how everything fits together",
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
    experience: [
      "I build apps that feel native on both platforms and behave well on slow networks and older phones.",
      "I keep state handling simple and testable, which makes store releases much less stressful.",
    ],
    steps: [
      "go through the screens and flows and agree on what the first release includes", "build the features with a clean structure and shared components",
      "test on real devices on both platforms", "prepare the store builds and help with the release",
    ],
    questions: ["Do you already have designs for the main screens, and which platforms matter most at launch?", "Is there an existing back end the app should talk to, or is that part of the job?"],
    risks: ["app store review delays, so I'd submit early builds for testing well before the launch date"],
    assumptions: ["you have, or will create, the developer accounts needed for both stores"],
  },
  ai: {
    words: "ml machine learning llm llms ai gpt openai pytorch tensorflow nlp rag langchain chatbot embeddings vision model models",
    work: "applied AI and machine learning work",
    thing: "your data",
    experience: [
      "I focus on AI features that hold up in practice: a clear evaluation set, honest metrics and fallbacks for when the model is unsure.",
      "I start from a simple baseline and only add complexity where the numbers show it helps.",
    ],
    steps: [
      "look at a sample of your data and agree on how we'll measure success", "build a simple baseline and a small evaluation set",
      "iterate on the model or prompts against that evaluation", "package it behind a clean interface and document its limits",
    ],
    questions: ["How much example data do you have today, and can you share a small sample?", "What would a good result look like for you in numbers, for example accuracy or response time?"],
    risks: ["results that look good in a demo but not on real inputs, so I'd measure on your own examples from the start"],
    assumptions: ["you can share representative example data, with anything sensitive removed"],
  },
  writing: {
    words: "writer writing article articles blog copywriting copywriter content proofreading editing ghostwriting ebook newsletter copy script technical",
    work: "writing work",
    thing: "your existing content",
    experience: [
      "I research before I write, match the voice of the brand, and keep sentences short enough that people actually read them.",
      "Everything I deliver is original, edited and ready to publish, with headlines and structure that suit how people skim online.",
    ],
    steps: [
      "read your existing content and agree on the tone, audience and goals", "send an outline for the first piece before writing it in full",
      "write and edit the drafts, with one round of revisions included", "deliver final copy ready to publish",
    ],
    questions: ["Could you share one or two pieces you like the style of, yours or anyone else's?", "Who is the main reader you want to reach, and what should they do after reading?"],
    risks: ["a mismatch in tone on the first piece, so I'd start with an outline and a short sample before writing everything"],
    assumptions: ["you'll have someone who knows the subject available for a few quick questions"],
  },
  marketing: {
    words: "seo marketing ads adwords campaign campaigns facebook instagram tiktok social ppc klaviyo mailchimp leads funnel analytics conversion",
    work: "marketing work",
    thing: "your current campaigns",
    experience: [
      "I work from data rather than hunches: clear tracking first, then small tests, then scaling what works.",
      "I measure my work against the numbers you care about, not vanity metrics.",
    ],
    steps: [
      "review your current setup, tracking and results so far", "fix any tracking gaps so every change can be measured",
      "run focused tests on the changes most likely to move your numbers", "report results in plain language with clear next steps",
    ],
    questions: ["Which number matters most to you right now: traffic, leads or sales?", "Could you give me read access to your analytics, so I can see where things stand?"],
    risks: ["changes that are hard to measure, so I'd make sure tracking is right before changing anything else"],
    assumptions: ["your analytics and ad accounts are set up and I can get access to them"],
  },
  general: {
    words: "",
    work: "hands-on project work",
    thing: "the current setup",
    experience: [
      "I work in small, visible steps, so you always know what is finished and what comes next.",
      "I take time to understand the goal behind a task, which usually saves time later.",
    ],
    steps: [
      "go through the requirements with you and confirm what done looks like", "do the work in small milestones you can review along the way",
      "check everything carefully against the requirements", "hand over the results with short notes on what was done",
    ],
    questions: ["Is there anything you've already tried, or know is a problem, so I can look there first?", "Do you have a deadline in mind, or is the quality of the result the bigger priority?"],
    risks: ["requirements that only become clear halfway through, so I'd confirm the details early and check in at each milestone"],
    assumptions: ["you'll be available for a quick question now and then as the work moves along"],
  },
};

// ---------------------------------------------------------------- word lists

/**
 * Everyday words of job titles and skill labels ("Expert Shopify Developer For Store Migration", "Logo Design"):
 * a Title Case title lower-cases these and keeps other capitalised words, which are more likely names.
 */
export const EVERYDAY_WORDS = new Set(
  ("a an the and or for with to of in on at by from our my your new need needed help expert experienced senior junior lead developer development " +
    "developers engineer engineering designer design redesign logo logos website websites web site sites app apps mobile store stores online shop ecommerce " +
    "e-commerce page pages landing build create fix update migration integration data entry analysis analyst virtual assistant writer writers writing " +
    "content article articles blog copywriter copywriting editor editing video videos marketing manager management specialist consultant social media " +
    "setup custom simple small quick urgent project projects long term ongoing full time part support service services system platform dashboard " +
    "dashboards tool tools automation script scripts scraper scraping bot product products descriptions description research translation translator " +
    "document documents report reports company business brand branding identity modern professional creative responsive fast existing speed page " +
    "optimization graphic graphics science machine learning sheets soup front back end frontend backend full-stack fullstack stack api rest team " +
    "help campaign campaigns lead leads generation email emails support bug bugs issue issues feature features").split(" "),
);
/** Action verbs that start an approach step in a posting ("build", "set up"); longest first, so "set up" wins over "set". */
export const VERBS = [
  "build", "create", "develop", "design", "redesign", "integrate", "migrate", "fix", "set up", "configure", "implement", "optimize", "optimise",
  "improve", "speed up", "automate", "scrape", "extract", "clean up", "clean", "deploy", "write", "test", "refactor", "convert", "connect", "add",
  "update", "upgrade", "audit", "review", "analyze", "analyse", "maintain", "move", "launch", "prepare", "produce", "edit", "research", "train",
  "document", "monitor", "replace", "rebuild", "containerize", "troubleshoot", "debug", "collect", "export", "import", "sync", "schedule",
  "generate", "translate", "draft", "illustrate", "reduce", "deliver", "install", "customize", "customise", "port", "restructure", "streamline",
  "make", "modernize", "secure", "publish", "manage", "proofread", "rewrite", "animate", "fine-tune", "tune", "transfer", "set", "handle", "save",
  "parse", "track", "avoid", "remove",
].sort((a, b) => b.length - a.length);
/** Verbs that are rarely nouns, so a title starting with one is an instruction ("Fix checkout bug"). */
export const CLEAR_VERBS = new Set("build create develop integrate migrate fix set configure implement optimize optimise improve speed automate scrape deploy convert connect refactor add upgrade rebuild redesign write make install customize translate".split(" "));
/** Verbs whose -ing form doubles the last consonant. */
export const DOUBLED = new Set(["set", "debug", "plan", "map", "ship", "run", "cut", "put", "get", "stop", "scan", "log", "tag", "submit", "commit"]);
/** Words a clipped phrase must not end on. */
export const DANGLING = new Set("a an and or the to with for of in on at by from our your my their its this that these those which who is are be as & into using via so but than very also just such like".split(" "));
/** Turning the client's words to face them, and their "you" (the freelancer) into "I". */
export const CLIENT_TO_YOU: Record<string, string> = {
  we: "you", us: "you", our: "your", ours: "yours", ourselves: "yourselves", i: "you", me: "you", my: "your", mine: "yours",
  myself: "yourself", "we're": "you're", "i'm": "you're", "we've": "you've", "i've": "you've", "we'll": "you'll", "i'll": "you'll", "we'd": "you'd", "i'd": "you'd",
};
export const YOU_TO_ME: Record<string, string> = { your: "my", yours: "mine", yourself: "myself", "you're": "I'm", "you've": "I've", "you'll": "I'll", "you'd": "I'd" };
export const SUBJECT_AFTER = new Set(["", "and", "or", "but", "if", "when", "that", "so", "then", "where", "because", "once", "until", "while"]);
/** Words that say nothing about a screening question's subject. */
export const QUESTION_WORDS = new Set(
  ("what which who whom whose when where why how is are was were do does did can could will would should shall may might have has had be been " +
    "you your yours i me my we our us they them it its this that these those there here a an the of to in on at for with by from about into and or " +
    "any some much many more most very really please tell describe explain share list give provide use used using make work worked working know " +
    "think feel like want need get ever before previously yet so if than then also just kind type sort").split(" "),
);
/** Client countries named in a check-in line; others are left out rather than guessed. */
export const COUNTRIES: Record<string, string> = { US: "the US", GB: "the UK", CA: "Canada", AU: "Australia", DE: "Germany", FR: "France", NL: "the Netherlands", IE: "Ireland", NZ: "New Zealand", SG: "Singapore", AE: "the UAE", ES: "Spain", IT: "Italy", SE: "Sweden", CH: "Switzerland" };
/** Verbs that appear after "and" in the phrase banks' steps, for turning a step into its -ing form. */
export const LATER_VERBS = "hand agree measure run help check share gather refine remove walk plan package read look send go iterate report explain keep de-duplicate edit confirm";

// ---------------------------------------------------------------- letter parts

export const GREETINGS = ["Hi,", "Hello,", "Hi there,"];
/** sv: "you need", "you're looking for"; obj: the client's need in their own words, turned to face them. */
export const NEED_OPENINGS: ((sv: string, obj: string) => string)[] = [
  (sv, obj) => `${cap(sv)} ${obj}.`,
  (sv, obj) => `If I've read your post right, ${sv} ${obj}.`,
  (sv, obj) => `From your description, ${sv} ${obj}.`,
  (sv, obj) => `As I understand it, ${sv} ${obj}.`,
];
export const PROBLEM_LINES: Frame[] = [
  (p) => `You mention that ${p}, and that is where I'd focus first.`,
  (p) => `The detail that stands out is that ${p}, so that's where I'd start.`,
  (p) => `I noticed that ${p}; finding the cause of that would be my first priority.`,
];
export const VERB_OPENINGS: Frame[] = [
  (vp) => `You need someone to ${vp}.`,
  (vp) => `So the job is to ${vp}, and that is exactly the kind of task I take on.`,
  (vp) => `You're looking for someone to ${vp}.`,
];
export const ROLE_OPENINGS: Frame[] = [(role) => `You're looking for ${role}.`, (role) => `From your post, you need ${role}.`];
export const TOPIC_OPENINGS: Frame[] = [
  (topic) => `You're looking for help with ${topic}.`,
  (topic) => `You need a hand with ${topic}, and I'd be glad to take it on.`,
  (topic) => `I read your post about ${topic} with interest.`,
];
export const BRIDGES: Line[] = [
  (s) => `That's the kind of ${s.work} I do most weeks, and I'd be glad to take it on.`,
  (s) => `It's close to the ${s.work} I've been doing lately, so I can start without a long ramp-up.`,
  () => "It's a well-defined job, and I'd like to help you get it done properly.",
  (s) => `I enjoy ${s.work} like this because the result is easy to see and measure.`,
];

/** "As a Senior React Developer, " before an experience sentence, which always starts with "I". */
export const ROLE_INTROS: Frame[] = [(r) => `As ${r}, `, (r) => `Working as ${r}, `];
export const SKILL_EXPERIENCE: Line[] = [
  (s) => `I've worked with ${s.skills} on client projects much like this one, so I know where the usual pitfalls are.`,
  (s) => `I use ${s.skills} in my day-to-day work, so this is familiar ground for me.`,
  (s) => `I've delivered work with ${s.skills} before, and this job sits right in that area.`,
  (s) => `I spend most of my working time with ${s.skills}, which lines up well with what you've described.`,
];
export const PLAIN_EXPERIENCE: Line[] = [
  (s) => `I've done a good amount of ${s.work}, and this job sits right in that area.`,
  (s) => `Much of my recent time has gone into ${s.work}, so this is familiar ground.`,
];
export const EXTRA_SKILL_LINES: Frame[] = [(x) => `I also know ${x} well, which you mention in the post.`, (x) => `You also mention ${x}, which I use regularly as well.`];

/** For the user's own "mention …" instructions. */
export const MENTION_OWN: Frame[] = [
  (m) => `I'd also like to highlight ${m}, which is directly relevant here.`,
  (m) => `It's worth mentioning ${m} as well, since it ties into this job.`,
];
export const MENTION_TOPIC: Frame[] = [
  (m) => `I'd also like to highlight my experience with ${m}, which is relevant here.`,
  (m) => `It's worth mentioning my background in ${m} as well.`,
];
export const MENTION_CLAUSE: Frame = (clause) => `I should also mention that ${clause}.`;

export const APPROACH_INTROS = ["Here's how I'd approach it:", "My plan would look like this:", "Roughly, I'd work like this:", "How I'd go about it:"];
export const FIRST_STEP: StepFrame[] = [(vp) => `First, I'd ${vp}.`, (_vp, ing) => `I'd start by ${ing}.`, (vp) => `Step one would be to ${vp}.`];
export const MIDDLE_STEP: StepFrame[] = [(vp) => `Then I'd ${vp}.`, (vp) => `Next, I'll ${vp}.`, (vp) => `After that, I'd ${vp}.`];
export const LAST_STEP: StepFrame[] = [(vp) => `Finally, I'd ${vp}.`, (_vp, ing) => `I'd finish by ${ing}.`, (vp) => `To wrap up, I'll ${vp}.`];
export const SINGLE_STEP: StepFrame[] = [
  (vp) => `My first step would be to ${vp}, and I'd keep you posted as I go.`,
  (_vp, ing) => `I'd start by ${ing}, then check the result with you before moving on.`,
  (vp) => `The first thing I'd do is ${vp}, so we have a solid base to build on.`,
];

export const GENERAL_QUESTIONS: Line[] = [
  () => "Is there anything in the current setup you already know is a problem, so I can look there first?",
  (s) => `What would a great result for ${s.topic} look like to you a month from now?`,
];
export const STEP_QUESTIONS: ((first: string, second: string) => string)[] = [
  (a, b) => `Would you like me to start with ${a}, or is ${b} more urgent for you?`,
  (a, b) => `Which matters more to you first: ${a} or ${b}?`,
];
export const NEXT_STEPS = [
  "If this sounds right, I'm happy to have a short call or keep it in chat, whichever suits you.",
  "Once I have that, I can confirm the plan and get started.",
  "Send me a message whenever it suits you and we can take it from there.",
];
export const RATE_LINES: Frame[] = [(r) => `My rate for this is ${r}.`, (r) => `For this job my rate would be ${r}.`];
export const BUDGET_LINES: Frame[] = [
  (b) => `Your budget of ${b} fits the scope as I understand it, and I'll flag anything that would change that before doing it.`,
  (b) => `I've taken your budget of ${b} into account, and the plan above fits within it as long as the scope stays as described.`,
];
export const TIMELINE_LINES = [
  "On timing, I'd work through those steps in order and share something you can review after each one, rather than one big reveal at the end.",
  "For the timeline, I'd agree on a short milestone for each step, so you see steady progress and can change course early if needed.",
];
export const RISK_FRAMES: Frame[] = [(r) => `The main risk I see is ${r}.`, (r) => `The one thing I'd watch closely is ${r}.`];
export const ASSUMPTION_FRAMES: Frame[] = [
  (a) => `One assumption on my side: ${a}.`,
  (a) => `I'm assuming ${a}; if that's not the case, tell me and I'll adjust the plan.`,
];
export const COUNTRY_LINE: Frame = (place) => `I'm happy to schedule our check-ins around business hours in ${place}.`;
/** Optional sentences added, in hash order, only while a letter is shorter than its effort asks. */
export const FILLERS = [
  "I keep communication simple: short written updates as I go, and quick answers when you have questions.",
  "I'd rather ask a clarifying question early than guess and redo work later.",
  "You'll get clean, well-organised work that someone else could pick up later without a long handover.",
  "I test my own work before handing it over, so you're reviewing results rather than hunting for problems.",
  "If priorities shift along the way, I'm happy to adjust the plan with you.",
  "I'd keep everything I touch tidy and documented, so it stays easy to maintain after the job is done.",
  "I'm comfortable working independently, but I'll check in at the points where your input matters.",
  "Everything I build or change is yours, with notes on what was done and why.",
];
export const SIGN_OFFS = ["Best regards,", "Kind regards,", "Thanks,", "Best,", "Thank you,"];
export const UNSIGNED_ENDINGS = ["Thanks for reading, and I look forward to hearing from you.", "Thank you for your time.", "Looking forward to hearing from you."];

// ---------------------------------------------------------------- screening answers

export interface AnswerSlots extends Slots {
  asked: string; // the technology or subject the question names
  related: string; // another relevant skill from the job
  vp: string; // the first concrete step, base form
  ing: string; // the same step as a gerund
  ing2: string; // the second step as a gerund
}
export type Answer = (s: AnswerSlots) => string;

/** Each starts with "I", so a yes/no question can get "Yes, " in front. */
export const EXPERIENCE_ANSWERS: Answer[] = [
  (s) => `I've worked with ${s.asked} on client projects, usually alongside ${s.related}. For this job that means I can focus on ${s.topic} rather than on learning the tools.`,
  (s) => `I work with ${s.asked} regularly and have paired that with ${s.related} before. I'd put that experience straight to use on ${s.topic}.`,
  (s) => `I use ${s.asked} in much of my ${s.work}, often together with ${s.related}, so I'm on familiar ground with ${s.topic}.`,
];
/** "Have you done this before?": no technology named, so the answer is about the kind of work. */
export const SIMILAR_WORK_ANSWERS: Answer[] = [
  (s) => `Yes, I've done similar ${s.work} before, using ${s.skills}. For this job I'd start by ${s.ing}, then move on to ${s.ing2}.`,
  (s) => `Yes. Jobs like this are a regular part of my ${s.work}, and here I'd begin with ${s.ing} before ${s.ing2}.`,
];
export const TIMEZONE_ANSWERS: Answer[] = [
  (s) => `I can arrange my working hours to overlap with yours for calls and quick questions, and I'll keep you updated in writing the rest of the time. For ${s.topic}, that means you won't be waiting on me for answers.`,
  () => "I plan my day so that part of it overlaps with your business hours, which is when I'd schedule calls and reviews. Between those, I send short written updates so nothing waits on a meeting.",
];
export const AVAILABILITY_ANSWERS: Answer[] = [
  (s) => `I can start as soon as we agree on the scope, beginning with ${s.ing}. I'll keep steady hours on this until it's done and reply to messages quickly.`,
  (s) => `I'm available to start right after we confirm the details. The first thing I'd do is ${s.vp}, and I'll share progress regularly from there.`,
];
export const TIMELINE_ANSWERS: Answer[] = [
  (s) => `From what you've described, I'd work in stages: first ${s.ing}, then ${s.ing2}. I can give you a firm estimate once I've looked at ${s.thing}, and I'll flag early if anything turns out bigger than expected.`,
  (s) => `I'd split it into short milestones, starting with ${s.ing} and then ${s.ing2}, so you see progress at each stage. Once I've seen ${s.thing}, I'll confirm the timeline in writing.`,
];
export const APPROACH_ANSWERS: Answer[] = [
  (s) => `I'd start by ${s.ing}, then move on to ${s.ing2}, checking each result with you before going further. I'd use ${s.skills} for this, the same tools I rely on in similar ${s.work}.`,
  (s) => `My approach is to understand the goal first and then work in small, visible steps: here that means ${s.ing}, followed by ${s.ing2}. My recent projects used ${s.skills} in the same way.`,
];
export const RATE_ANSWERS = {
  hourlyRate: [
    (rate: string, s: AnswerSlots) => `My rate for this job is ${rate}. I track time carefully and share short updates, so you always know where the hours on ${s.topic} went.`,
    (rate: string, s: AnswerSlots) => `For this work I charge ${rate}. I'd start with ${s.ing} and keep you updated on hours as I go.`,
  ],
  budget: [
    (budget: string, s: AnswerSlots) => `Your posted budget of ${budget} looks workable for what you've described. I'd confirm the exact scope of ${s.topic} first, then stick to what we agree.`,
    (budget: string, s: AnswerSlots) => `I'm comfortable working within ${budget} for this. Once we confirm the scope, I'll tell you upfront if anything about ${s.topic} would change that.`,
  ],
  open: [(s: AnswerSlots) => `I'd suggest we confirm the scope first; after that I can give you a clear quote for ${s.topic}, fixed or hourly, whichever you prefer.`],
};
export const PORTFOLIO_ANSWERS: Answer[] = [
  (s) => `I can share relevant samples of my ${s.work} on request, including work with ${s.skill}. I'd send them to you directly, each with a short note on what I did.`,
  (s) => `Samples are available on request; I'd pick the ones closest to ${s.topic}, especially work involving ${s.skill}, and walk you through them.`,
];
export const YES_ANSWERS: Answer[] = [
  (s) => `Yes, that works for me. For this job I'd start by ${s.ing}, and I'm happy to go over the details whenever suits you.`,
  (s) => `Yes. It fits how I'd handle ${s.topic}, and I can confirm any details before we start.`,
];
export const GENERIC_ANSWERS: Answer[] = [
  (s) => `On ${s.asked}: for ${s.topic} I'd rely on ${s.skills} and explain my choices as I go. I'm happy to go into more detail if you'd like.`,
  (s) => `Regarding ${s.asked}, my approach for this job would be to ${s.vp}, using ${s.skills}. I can share more detail once I've seen ${s.thing}.`,
];
export const UNSUBJECTED_ANSWERS: Answer[] = [
  (s) => `Happy to answer that. For ${s.topic} I'd rely on ${s.skills}, starting with ${s.ing}, and I'll keep you updated as I go.`,
];

export function cap(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}
