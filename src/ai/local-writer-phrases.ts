/**
 * Phrase banks and word lists for the local writer (./local-writer). A phrase that needs job text is a
 * function of already-cleaned slot values, so no template can leave an unfilled placeholder in a
 * letter. Several variants per part keep letters for different jobs from reading alike; the writer
 * picks among them by a hash of the job. Phrases claim nothing a freelancer could not stand behind:
 * no past work, years, clients, links or numbers. Without a profile the writer knows nothing about the
 * freelancer, so it speaks about its plan for this job ("I'd …"), never a track record ("I've done …",
 * "I usually …"); only the profile's own skills may be named as skills the freelancer has.
 */

/** Values a phrase may use; all are plain text taken from the job and profile after cleaning. */
export interface Slots {
  skills: string; // "React, TypeScript and Node.js"
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
  principles: string[]; // how the work would be done, as a plan for this job (no track record)
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
    principles: [
      "I'd start from the brand's story and audience, explore a few directions, and then polish the strongest one.",
      "You'd get clean, organised source files, with vector versions that hold up at any size.",
      "I'd check how the design works small, in one colour and on screen, not just how it looks in a presentation.",
    ],
    steps: [
      "gather your references, audience and anything you already like or dislike", "share two or three distinct initial concepts for you to react to",
      "refine the chosen direction through focused revision rounds", "deliver final files in the formats you need, with a simple usage sheet",
    ],
    questions: ["Are there any colours, fonts or brands you already love or want to avoid?", "Where will the design be used most: print, web, social media or packaging?"],
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
    principles: [
      "I'd aim for a clean component structure, predictable state and an interface that stays fast with real data.",
      "I'd keep the components small and typed, so the code stays easy to change after launch.",
      "I'd test the layouts on real phones and slower connections, not just a large desktop screen.",
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
    principles: [
      "I'd keep the back end boring in the best way: clear data models, proper validation and tests around the parts that handle money or user data.",
      "I'd focus on clean API design, sensible error handling and logs you can actually read when something goes wrong.",
      "I'd document each endpoint as it is built, so whoever works on the front end is never guessing.",
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
    principles: [
      "I'd make the scraper polite and sturdy: sensible request rates, retries, and clear logs when a page changes.",
      "I'd keep the extraction and the cleaning separate, so a change on one site doesn't break everything else.",
      "You'd get checked data: no silent duplicates, consistent formats and a note on anything that could not be collected.",
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
    principles: [
      "I'd treat the infrastructure as code: everything written down, reviewable and repeatable, not clicked together by hand.",
      "I'd plan any migration around a tested rollback path, so a bad step never means a long outage.",
      "I'd leave monitoring and alerts behind, so you know about a problem before your users do.",
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
    principles: [
      "I'd aim for an app that feels native on both platforms and behaves well on slow networks and older phones.",
      "I'd keep state handling simple and testable, which makes store releases much less stressful.",
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
    principles: [
      "I'd aim for an AI feature that holds up in practice: a clear evaluation set, honest metrics and fallbacks for when the model is unsure.",
      "I'd start from a simple baseline and only add complexity where the numbers show it helps.",
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
    principles: [
      "I'd research before writing, match the voice of the brand, and keep sentences short enough that people actually read them.",
      "Everything you'd get would be original, edited and ready to publish, with headlines and structure that suit how people skim online.",
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
    principles: [
      "I'd work from data rather than hunches: clear tracking first, then small tests, then scaling what works.",
      "I'd measure the work against the numbers you care about, not vanity metrics.",
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
    principles: [
      "I'd work in small, visible steps, so you always know what is finished and what comes next.",
      "I'd take time to understand the goal behind each task, which usually saves time later.",
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
/**
 * Platforms and tools a title names without the job listing them as skills ("Shopify speed optimisation"),
 * spelled as their makers spell them. Words that are also plain English count only when capitalised (AMBIGUOUS_TOOLS).
 */
export const TOOLS = (
  "Shopify|Shopify Plus|WooCommerce|Magento|BigCommerce|Etsy|eBay|Amazon|WordPress|Elementor|Divi|Webflow|Wix|Squarespace|Framer|HubSpot|Salesforce|" +
  "Zapier|Airtable|Klaviyo|Mailchimp|React|React Native|Vue|Vue.js|Nuxt|Angular|Svelte|Next.js|Gatsby|Tailwind|Tailwind CSS|Bootstrap|jQuery|" +
  "JavaScript|TypeScript|Node.js|NestJS|Django|Flask|FastAPI|Laravel|Symfony|PHP|Ruby on Rails|Rails|Ruby|Java|Kotlin|Swift|SwiftUI|Flutter|Dart|" +
  "Golang|Rust|C#|C++|.NET|Python|PostgreSQL|Postgres|MySQL|MongoDB|Redis|Supabase|Firebase|GraphQL|Stripe|PayPal|Twilio|AWS|Azure|GCP|Google Cloud|" +
  "Docker|Kubernetes|Terraform|Ansible|Linux|Nginx|Heroku|Vercel|Netlify|DigitalOcean|Jenkins|GitHub Actions|iOS|Android|Unity|Unreal Engine|Figma|" +
  "Photoshop|Illustrator|InDesign|Canva|Blender|After Effects|Premiere Pro|Excel|Google Sheets|Power BI|Tableau|Looker Studio|Google Ads|" +
  "Google Analytics|GA4|Facebook Ads|Meta Ads|TikTok|Instagram|YouTube|LinkedIn|Selenium|Playwright|Puppeteer|Scrapy|BeautifulSoup|Pandas|" +
  "OpenAI|ChatGPT|LangChain|PyTorch|TensorFlow|Hugging Face|QuickBooks|Xero"
).split("|");
export const AMBIGUOUS_TOOLS = new Set("amazon divi framer react vue angular rails ruby java swift flutter dart rust unity excel canva pandas".split(" "));

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
  (vp) => `So the job is to ${vp}, and I'd be glad to take that on.`,
  (vp) => `You're looking for someone to ${vp}.`,
];
export const ROLE_OPENINGS: Frame[] = [(role) => `You're looking for ${role}.`, (role) => `From your post, you need ${role}.`];
export const TOPIC_OPENINGS: Frame[] = [
  (topic) => `You're looking for help with ${topic}.`,
  (topic) => `You need a hand with ${topic}, and I'd be glad to take it on.`,
  (topic) => `I read your post about ${topic} with interest.`,
];
export const BRIDGES: Line[] = [
  (s) => `It's a clear piece of ${s.work}, and I'd be glad to take it on.`,
  () => "The goal is clear, so I can start with a focused plan rather than a long ramp-up.",
  () => "It's a well-defined job, and I'd like to help you get it done properly.",
  (s) => `${cap(s.work)} like this is satisfying, because the result is easy to see and measure.`,
];

/** "As a Senior React Developer, " before the skills sentence, which always starts with "I". */
export const ROLE_INTROS: Frame[] = [(r) => `As ${r}, `, (r) => `Working as ${r}, `];
/** The profile's own skills that this job needs: the only skills a letter says the freelancer has. */
export const OWN_SKILL_LINES: Frame[] = [
  (x) => `I work with ${x} as part of my core skill set, which lines up with what you've described.`,
  (x) => `I count ${x} among my core skills, and this job leans on exactly that.`,
];
/** The job's key terms the profile does not list: named as the plan, never as experience. */
export const PLAN_LINES: Frame[] = [
  (x) => `I'd approach this with ${x}, keeping every change small, tested and easy for you to review.`,
  (x) => `I'd build the plan around ${x}, following the priorities in your post.`,
  (x) => `I'd centre the work on ${x}, since that is where this job is won or lost.`,
  (x) => `I'd put ${x} at the heart of the plan and check each step with you as I go.`,
];
/** When the job names no platform or tool at all. */
export const PLAIN_PLAN: Line[] = [
  (s) => `I'd treat this as focused ${s.work}: a clear plan first, then small steps you can check.`,
  (s) => `I'd approach this ${s.work} with a plan we agree up front and small steps you can review.`,
];
/** Profile skills the posting mentions without listing them. */
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
/** The bid that will be sent ("50 USD/hour", "a fixed 800 USD"): the only amount a letter names. */
export const BID_LINES: Frame[] = [(b) => `My bid for this job is ${b}.`, (b) => `I've set my bid for this job at ${b}.`];
/** No figures: the client's budget may differ from the bid, and a letter names no amount but the bid. */
export const BUDGET_LINES = [
  "The plan fits your posted budget as I understand the scope, and I'll flag anything that would change that before doing it.",
  "I've taken your posted budget into account, and the plan above fits within it as long as the scope stays as described.",
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
  "I'll keep communication simple: short written updates as I go, and quick answers when you have questions.",
  "I'd rather ask a clarifying question early than guess and redo work later.",
  "You'll get clean, well-organised work that someone else could pick up later without a long handover.",
  "I'll test my work before handing it over, so you're reviewing results rather than hunting for problems.",
  "If priorities shift along the way, I'm happy to adjust the plan with you.",
  "I'd keep everything I touch tidy and documented, so it stays easy to maintain after the job is done.",
  "I'm comfortable working independently, but I'll check in at the points where your input matters.",
  "Everything built or changed for you is yours, with notes on what was done and why.",
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

/** The asked technology is one of the profile's skills. Each starts with "I", so a yes/no question can get "Yes, " in front. */
export const EXPERIENCE_ANSWERS: Answer[] = [
  (s) => `I work with ${s.asked} as part of my core skill set. For ${s.topic} I'd put it to use straight away, starting with ${s.ing}.`,
  (s) => `I count ${s.asked} among my core skills. Here I'd pair it with ${s.related}, beginning with ${s.ing} and then ${s.ing2}.`,
];
/** The asked technology is not on the profile (or there is none): how it fits the plan, no claim of having used it. */
export const PLAN_ANSWERS: Answer[] = [
  (s) => `Here's how ${s.asked} fits into my plan: I'd start by ${s.ing}, then move on to ${s.ing2}, checking each result with you before going further.`,
  (s) => `On ${s.asked}: for ${s.topic} I'd begin with ${s.ing} and then ${s.ing2}, alongside ${s.related}. I'm happy to go through the details on a call.`,
];
/** "Have you done this before?": no technology named, so the answer is the plan for this job. */
export const SIMILAR_WORK_ANSWERS: Answer[] = [
  (s) => `Here's how I'd handle it: I'd start by ${s.ing}, then move on to ${s.ing2}, using ${s.skills}. I'm happy to walk you through the plan in more detail.`,
  (s) => `For this job I'd begin with ${s.ing} and then move on to ${s.ing2}, with ${s.skills} at the centre of the work. I'll check each result with you before going further.`,
];
export const TIMEZONE_ANSWERS: Answer[] = [
  (s) => `I can arrange my working hours to overlap with yours for calls and quick questions, and I'll keep you updated in writing the rest of the time. For ${s.topic}, that means you won't be waiting on me for answers.`,
  () => "I'd plan my day so that part of it overlaps with your business hours, which is when I'd schedule calls and reviews. Between those, I'll send short written updates so nothing waits on a meeting.",
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
  (s) => `I'd start by ${s.ing}, then move on to ${s.ing2}, checking each result with you before going further. I'd use ${s.skills} for this.`,
  (s) => `My approach is to understand the goal first and then work in small, visible steps: here that means ${s.ing}, followed by ${s.ing2}, with ${s.skills} doing the heavy lifting.`,
];
/** With the bid that will be sent; without one, no figure at all (the bid on the proposal says it). */
export const RATE_ANSWERS = {
  bid: [
    (bid: string, s: AnswerSlots) => `My bid for this job is ${bid}, for ${s.topic} as you've described it. If the scope changes, I'll tell you before it affects the cost.`,
    (bid: string, s: AnswerSlots) => `I've bid ${bid} for this. I'd start with ${s.ing} and keep you updated as I go, so there are no surprises on cost.`,
  ],
  budget: [
    (s: AnswerSlots) => `The rate is the one in my bid on this proposal, set with your posted budget in mind. I'd confirm the exact scope of ${s.topic} first, then stick to what we agree.`,
    (s: AnswerSlots) => `My bid on this proposal states the rate, and I've kept your posted budget in mind. Once we confirm the scope, I'll tell you upfront if anything about ${s.topic} would change the cost.`,
  ],
  open: [(s: AnswerSlots) => `The rate is the one in my bid on this proposal. I'd confirm the scope of ${s.topic} first, and tell you upfront if anything would change the cost.`],
};
export const PORTFOLIO_ANSWERS: Answer[] = [
  (s) => `Samples are available on request, and I'd send them to you directly. For ${s.topic}, the most useful proof would be a small first step, ${s.ing}, that you can review before we go further.`,
  (s) => `I can share samples on request in a message. Better still for ${s.topic}: I'd start with ${s.ing}, so you can judge the work on your own project before committing to more.`,
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
