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

export { CATEGORIES, type Category, type CategoryBank } from "./local-writer-categories";

// ---------------------------------------------------------------- word lists

/**
 * Everyday words of job titles and skill labels ("Expert Shopify Developer For Store Migration", "Logo Design"):
 * a Title Case title lower-cases these and keeps other capitalised words, which are more likely names.
 */
export const EVERYDAY_WORDS = new Set(
  (
    "a an the and or for with to of in on at by from our my your new need needed help expert experienced senior junior lead developer development " +
    "developers engineer engineering designer design redesign logo logos website websites web site sites app apps mobile store stores online shop ecommerce " +
    "e-commerce page pages landing build create fix update migration integration data entry analysis analyst virtual assistant writer writers writing " +
    "content article articles blog copywriter copywriting editor editing video videos marketing manager management specialist consultant social media " +
    "setup custom simple small quick urgent project projects long term ongoing full time part support service services system platform dashboard " +
    "dashboards tool tools automation script scripts scraper scraping bot product products descriptions description research translation translator " +
    "document documents report reports company business brand branding identity modern professional creative responsive fast existing speed page " +
    "optimization graphic graphics science machine learning sheets soup front back end frontend backend full-stack fullstack stack api rest team " +
    "help campaign campaigns lead leads generation email emails support bug bugs issue issues feature features assistance administrative " +
    "calendar customer care communication inbox cleaning formatting typing transcription proofreading bookkeeping accounting sales outreach " +
    "recruiting planning scheduling illustration animation photography photo audio podcast user interface experience interaction prototyping " +
    "wireframing wireframes print packaging presentation presentations slides spreadsheet spreadsheets"
  ).split(" "),
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
  "build",
  "create",
  "develop",
  "design",
  "redesign",
  "integrate",
  "migrate",
  "fix",
  "set up",
  "configure",
  "implement",
  "optimize",
  "optimise",
  "improve",
  "speed up",
  "automate",
  "scrape",
  "extract",
  "clean up",
  "clean",
  "deploy",
  "write",
  "test",
  "refactor",
  "convert",
  "connect",
  "add",
  "update",
  "upgrade",
  "audit",
  "review",
  "analyze",
  "analyse",
  "maintain",
  "move",
  "launch",
  "prepare",
  "produce",
  "edit",
  "research",
  "train",
  "document",
  "monitor",
  "replace",
  "rebuild",
  "containerize",
  "troubleshoot",
  "debug",
  "collect",
  "export",
  "import",
  "sync",
  "schedule",
  "generate",
  "translate",
  "draft",
  "illustrate",
  "reduce",
  "deliver",
  "install",
  "customize",
  "customise",
  "port",
  "restructure",
  "streamline",
  "make",
  "modernize",
  "secure",
  "publish",
  "manage",
  "proofread",
  "rewrite",
  "animate",
  "fine-tune",
  "tune",
  "transfer",
  "set",
  "handle",
  "save",
  "parse",
  "track",
  "avoid",
  "remove",
  "repair",
  "present",
  "provide",
  "propose",
  "suggest",
  "recommend",
  "ensure",
  "submit",
  "supply",
  "send",
].sort((a, b) => b.length - a.length);
/** Verbs that are rarely nouns, so a title starting with one is an instruction ("Fix checkout bug"). */
export const CLEAR_VERBS = new Set(
  "build create develop integrate migrate fix set configure implement optimize optimise improve speed automate scrape deploy convert connect refactor add upgrade rebuild redesign write make install customize translate".split(
    " ",
  ),
);
/** Verbs whose -ing form doubles the last consonant. */
export const DOUBLED = new Set(["set", "debug", "plan", "map", "ship", "run", "cut", "put", "get", "stop", "scan", "log", "tag", "submit", "commit"]);
/** Words a clipped phrase must not end on. */
export const DANGLING = new Set(
  "a an and or the to with for of in on at by from our your my their its this that these those which who is are be as & into using via so but than very also just such like".split(
    " ",
  ),
);
/** Turning the client's words to face them, and their "you" (the freelancer) into "I". */
export const CLIENT_TO_YOU: Record<string, string> = {
  we: "you",
  us: "you",
  our: "your",
  ours: "yours",
  ourselves: "yourselves",
  i: "you",
  me: "you",
  my: "your",
  mine: "yours",
  myself: "yourself",
  "we're": "you're",
  "i'm": "you're",
  "we've": "you've",
  "i've": "you've",
  "we'll": "you'll",
  "i'll": "you'll",
  "we'd": "you'd",
  "i'd": "you'd",
};
export const YOU_TO_ME: Record<string, string> = {
  your: "my",
  yours: "mine",
  yourself: "myself",
  "you're": "I'm",
  "you've": "I've",
  "you'll": "I'll",
  "you'd": "I'd",
};
export const SUBJECT_AFTER = new Set(["", "and", "or", "but", "if", "when", "that", "so", "then", "where", "because", "once", "until", "while"]);
/** Words that say nothing about a screening question's subject. */
export const QUESTION_WORDS = new Set(
  (
    "what which who whom whose when where why how is are was were do does did can could will would should shall may might have has had be been " +
    "you your yours i me my we our us they them it its this that these those there here a an the of to in on at for with by from about into and or " +
    "any some much many more most very really please tell describe explain share list give provide use used using make work worked working know " +
    "think feel like want need get ever before previously yet so if than then also just kind type sort u ur"
  ).split(" "),
);
/** Client countries named in a check-in line; others are left out rather than guessed. */
export const COUNTRIES: Record<string, string> = {
  US: "the US",
  GB: "the UK",
  CA: "Canada",
  AU: "Australia",
  DE: "Germany",
  FR: "France",
  NL: "the Netherlands",
  IE: "Ireland",
  NZ: "New Zealand",
  SG: "Singapore",
  AE: "the UAE",
  ES: "Spain",
  IT: "Italy",
  SE: "Sweden",
  CH: "Switzerland",
};
/** Verbs that appear after "and" in the phrase banks' steps, for turning a step into its -ing form. */
export const LATER_VERBS =
  "hand agree measure run help check share gather refine remove walk plan package read look send go iterate report explain keep de-duplicate edit confirm";

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
export const EXTRA_SKILL_LINES: Frame[] = [
  (x) => `I also know ${x} well, which you mention in the post.`,
  (x) => `You also mention ${x}, which I use regularly as well.`,
];

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
export const UNSIGNED_ENDINGS = [
  "Thanks for reading, and I look forward to hearing from you.",
  "Thank you for your time.",
  "Looking forward to hearing from you.",
];

// ---------------------------------------------------------------- screening answers

export interface AnswerSlots extends Slots {
  asked: string; // the technology or subject the question names
  related: string; // another relevant skill from the job
  vp: string; // the first concrete step, base form
  ing: string; // the same step as a gerund
  ing2: string; // the second step as a gerund
}
export type Answer = (s: AnswerSlots) => string;

/** The asked technology is one of the profile's skills: the claim, then the plan. Each starts with "I", so a yes/no question can get "Yes, " in front. */
export const EXPERIENCE_ANSWERS: ((s: AnswerSlots) => [own: string, plan: string])[] = [
  (s) => [`I work with ${s.asked} as part of my core skill set.`, `For ${s.topic} I'd put it to use straight away, starting with ${s.ing}.`],
  (s) => [`I count ${s.asked} among my core skills.`, `Here I'd pair it with ${s.related}, beginning with ${s.ing} and then ${s.ing2}.`],
];
/** "Have you done this before?": no technology named, so the answer is the plan for this job. */
export const SIMILAR_WORK_ANSWERS: Answer[] = [
  (s) =>
    `Here's how I'd handle it: I'd start by ${s.ing}, then move on to ${s.ing2}, using ${s.skills}. I'm happy to walk you through the plan in more detail.`,
  (s) =>
    `For this job I'd begin with ${s.ing} and then move on to ${s.ing2}, with ${s.skills} at the centre of the work. I'll check each result with you before going further.`,
];
export const TIMELINE_ANSWERS: Answer[] = [
  (s) =>
    `From what you've described, I'd work in stages: first ${s.ing}, then ${s.ing2}. I can give you a firm estimate once I've looked at ${s.thing}, and I'll flag early if anything turns out bigger than expected.`,
  (s) =>
    `I'd split it into short milestones, starting with ${s.ing} and then ${s.ing2}, so you see progress at each stage. Once I've seen ${s.thing}, I'll confirm the timeline in writing.`,
];
export const APPROACH_ANSWERS: Answer[] = [
  (s) => `I'd start by ${s.ing}, then move on to ${s.ing2}, checking each result with you before going further. I'd use ${s.skills} for this.`,
  (s) => `I'd work in small, visible steps: here that means ${s.ing}, followed by ${s.ing2}, with ${s.skills} doing the heavy lifting.`,
];
/** With the bid that will be sent; without one, no figure at all (the bid on the proposal says it). */
export const RATE_ANSWERS = {
  bid: [
    (bid: string, s: AnswerSlots): [string, string] => [
      `I've bid ${bid} for ${s.topic} as you've described it.`,
      "If the scope changes, I'll tell you before it affects the cost.",
    ],
    (bid: string, s: AnswerSlots): [string, string] => [
      `I've bid ${bid} for this.`,
      `I'd start with ${s.ing} and keep you updated as I go, so there are no surprises on cost.`,
    ],
  ],
  budget: [
    (s: AnswerSlots) =>
      `The rate is the one in my bid on this proposal, set with your posted budget in mind. I'd confirm the exact scope of ${s.topic} first, then stick to what we agree.`,
    (s: AnswerSlots) =>
      `My bid on this proposal states the rate, and I've kept your posted budget in mind. Once we confirm the scope, I'll tell you upfront if anything about ${s.topic} would change the cost.`,
  ],
  open: [
    (s: AnswerSlots) =>
      `The rate is the one in my bid on this proposal. I'd confirm the scope of ${s.topic} first, and tell you upfront if anything would change the cost.`,
  ],
};
export const YES_ANSWERS: Answer[] = [
  (s) => `Yes, that works for me. For this job I'd start by ${s.ing}, and I'm happy to go over the details whenever suits you.`,
  (s) => `Yes. It fits how I'd handle ${s.topic}, and I can confirm any details before we start.`,
];
export const GENERIC_ANSWERS: Answer[] = [
  (s) => `On ${s.asked}: for ${s.topic} I'd rely on ${s.skills} and explain my choices as I go. I'm happy to go into more detail if you'd like.`,
  (s) => `Regarding ${s.asked}, my approach for this job would be to ${s.vp}, using ${s.skills}. I can share more detail once I've seen ${s.thing}.`,
];
export const UNSUBJECTED_ANSWERS: Answer[] = [(s) => `For ${s.topic} I'd rely on ${s.skills}, starting with ${s.ing}, and I'll keep you updated as I go.`];

export function cap(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}
