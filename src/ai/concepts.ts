/**
 * Concepts: what a phrase means, not how it is spelled. The local scorer's words (./stem) meet "WordPress" with
 * "wordpress"; concepts also meet "WP", "Woo", "TSX" and "back office" with what they stand for, keep "React Native"
 * apart from "React", and know that Vue is what a React job is not. Each concept has spellings (token sequences as
 * `tokenize` gives them, so "next.js" is "next js"), what it implies ("TSX" implies React and TypeScript), and the
 * families whose members are alternatives to each other (React, Vue and Angular; Shopify apps and Shopify themes).
 *
 * A scan reads a text's concepts once, longest spelling first, and marks those inside a negation ("not a React
 * project", "no Shopify", "migrating off WooCommerce", "scraping not required"). The table is general knowledge
 * of the trades jobpilot's users work in; docs/feeds-and-scoring.md lists how it is used.
 */
import { tokenize } from "../lib/text";
import { americanSpelling, contentStem, KEEP_S } from "./stem";

export interface Concept {
  id: string;
  /** How a reason names it. */
  say: string;
  /** A named technology (React, Figma) rather than a topic (dashboards, speed). */
  tech: boolean;
  implies: string[];
  families: string[];
}

/** [id, how it reads, tech?, spellings "|"-separated, implies, families]. */
type Row = [string, string, boolean, string, string?, string?];

const ROWS: Row[] = [
  // Web front end.
  ["react", "React", true, "react|reactjs|react js|jsx|react dom|react developer|create react app", "javascript frontend-code", "ui-framework"],
  ["react-native", "React Native", true, "react native|expo|react native developer", "frontend-code", "ui-framework mobile-framework"],
  ["vue", "Vue", true, "vue|vuejs|vue js|vue 3|vue 2|nuxt|nuxtjs|nuxt js|pinia|vuex|quasar", "javascript frontend-code", "ui-framework"],
  ["angular", "Angular", true, "angular|angularjs|angular js|ngrx|angular material", "javascript typescript frontend-code", "ui-framework"],
  ["svelte", "Svelte", true, "svelte|sveltekit|svelte kit", "javascript frontend-code", "ui-framework"],
  ["blazor", "Blazor", true, "blazor|mudblazor", "csharp", "ui-framework"],
  ["ember", "Ember", true, "ember|emberjs|ember js", "javascript", "ui-framework"],
  ["htmx", "HTMX", true, "htmx|alpine js|alpinejs", "", "ui-framework"],
  ["flutter", "Flutter", true, "flutter|dart|flutterflow", "frontend-code", "mobile-framework ui-framework"],
  ["ios-native", "native iOS", true, "swift|swiftui|uikit|objective c|xcode", "frontend-code", "mobile-framework ui-framework"],
  ["android-native", "native Android", true, "kotlin|jetpack compose|android sdk|android studio", "frontend-code", "mobile-framework ui-framework"],
  ["ionic", "Ionic", true, "ionic|capacitor|cordova|xamarin|net maui|maui", "frontend-code", "mobile-framework ui-framework"],
  ["nextjs", "Next.js", true, "next js|nextjs|next 13|next 14|next 15|app router|server components|vercel app router", "react"],
  ["remix", "Remix", true, "remix|react router|react router 7", "react"],
  ["gatsby", "Gatsby", true, "gatsby|gatsbyjs", "react"],
  ["redux", "Redux", true, "redux|rtk|redux toolkit|rtk query", "react"],
  ["react-query", "React Query", true, "react query|tanstack query|swr|zustand|jotai|recoil", "react"],
  ["react-ui", "React component libraries", true, "mui|material ui|chakra ui|ant design|antd|shadcn|shadcn ui|radix|mantine", "react"],
  ["typescript", "TypeScript", true, "typescript|ts|tsx|typed jsx|typed js", ""],
  ["javascript", "JavaScript", true, "javascript|js|es6|ecmascript|vanilla js", ""],
  ["node", "Node.js", true, "node|nodejs|node js|express js|expressjs|nestjs|nest js", "javascript"],
  ["graphql", "GraphQL", true, "graphql|gql|apollo|apollo server|apollo client", ""],
  ["tailwind", "Tailwind", true, "tailwind|tailwindcss|tailwind css", ""],
  [
    "dashboard",
    "dashboards",
    false,
    "dashboard|admin dashboard|admin panel|admin|admin ui|back office|backoffice|control panel|admin console|ops console|reporting console|management console|internal console|console ui|reporting portal|admin portal|internal tool|internal tools|kpi cockpit|cockpit|analytics ui|reporting ui|back office ui",
    "",
  ],
  [
    "charts",
    "charts",
    false,
    "chart|charts|charting|graphs|graphing|data visualization|dataviz|data viz|plotly|nivo|recharts|chart js|chartjs|highcharts|echarts|d3|d3 js|visx|apexcharts",
    "",
  ],
  [
    "data-tables",
    "data tables",
    false,
    "data table|data tables|data grid|data grids|grids|grid views|tabular views|tabular data|ag grid|tanstack table|react table|handsontable",
    "",
  ],
  [
    "forms",
    "complex forms",
    false,
    "complex forms|multi step forms|multistep forms|multi step wizards|wizards|form builder|react hook form|formik|dynamic forms",
    "",
  ],
  ["saas", "SaaS", false, "saas|software as a service|b2b saas|saas product|saas platform|saas company|saas startup|subscription software", ""],
  // Shopify.
  ["shopify", "Shopify", true, "shopify|shopify plus|shopify store|shopify admin|sfy|shopify partner", "", "ecommerce-platform cms"],
  [
    "shopify-app",
    "Shopify apps",
    true,
    "shopify app|shopify apps|sfy app|shopify app developer|shopify app development|shopify public app|shopify custom app|embedded app|app bridge|polaris|shopify cli|theme app extension|theme app extensions|public app|public apps",
    "shopify",
    "shopify-work",
  ],
  ["app-listing", "the App Store listing", false, "app store listing|shopify app store|app listing|app store review|app review", "shopify-app"],
  [
    "shopify-functions",
    "Shopify Functions",
    true,
    "shopify functions|shopify function|discount function|payment customization|delivery customization|cart transform|checkout validation function",
    "shopify-app",
  ],
  [
    "checkout-extension",
    "checkout UI extensions",
    true,
    "checkout ui extension|checkout ui extensions|checkout extension|checkout extensions|checkout extensibility",
    "shopify-app",
  ],
  [
    "shopify-admin-api",
    "the Admin GraphQL API",
    true,
    "admin graphql api|admin graphql|shopify admin api|shopify graphql|shopify api|shopify rest api|bulk operations",
    "shopify-app graphql",
  ],
  [
    "app-billing",
    "app billing",
    true,
    "app billing|billing api|appsubscriptioncreate|app subscription|app subscriptions|usage charges|recurring application charge",
    "shopify-app",
  ],
  [
    "shopify-theme",
    "Shopify themes",
    true,
    "shopify theme|shopify themes|liquid|dawn theme|dawn|theme customization|theme customisation|theme sections|online store 2 0|theme development|theme developer|theme files",
    "shopify frontend-code",
    "shopify-work",
  ],
  [
    "store-setup",
    "store setup",
    false,
    "store setup|store set up|set up my store|set up our store|setup my store|product uploads|product upload|install and configure|app installation|configure apps",
    "",
  ],
  ["webhooks", "webhooks", false, "webhook|webhooks|event callbacks|webhook subscriptions", ""],
  ["woocommerce", "WooCommerce", true, "woocommerce|woo|woo commerce|woocommerce store|woo shop", "wordpress", "ecommerce-platform"],
  ["magento", "Magento", true, "magento|adobe commerce", "", "ecommerce-platform"],
  ["bigcommerce", "BigCommerce", true, "bigcommerce|big commerce", "", "ecommerce-platform"],
  ["saleor", "a headless store", true, "saleor|medusa|medusa js|commercetools|prestashop|opencart|shopware", "", "ecommerce-platform"],
  // WordPress and site speed.
  [
    "wordpress",
    "WordPress",
    true,
    "wordpress|wp|wp admin|wp cli|wordpress multisite|gutenberg|elementor|divi|wpbakery|beaver builder|wordpress site|wp site|wp install|wp blog|wordpress org",
    "",
    "cms",
  ],
  ["webflow", "Webflow", true, "webflow", "", "cms"],
  ["wix", "Wix", true, "wix|squarespace|framer site|ghost cms|duda|weebly", "", "cms"],
  ["drupal", "Drupal", true, "drupal|joomla|craft cms|hubspot cms", "", "cms"],
  [
    "web-performance",
    "site speed",
    false,
    "site speed|page speed|pagespeed|pagespeed insights|google pagespeed insights|psi|website speed|web performance|speed optimization|performance optimization|website optimization|site optimization|page load|page loads|page load time|load time|load times|loading time|slow site|slow website|sluggish|takes ages to load|gtmetrix|lighthouse|ttfb|time to first byte|front end performance|speed up|speed audit|performance tune up|performance audit|wp rocket|perfmatters|nitropack",
    "",
    "site-work",
  ],
  [
    "core-web-vitals",
    "Core Web Vitals",
    false,
    "core web vitals|web vitals|cwv|lcp|inp|cls|fid|largest contentful paint|cumulative layout shift|interaction to next paint",
    "web-performance",
  ],
  [
    "caching",
    "caching",
    false,
    "caching|cache|page caching|page cache|object cache|object caching|redis cache|varnish|memcached|wp rocket|litespeed|litespeed cache|w3 total cache|wp super cache|cloudflare apo|apo|quic cloud",
    "web-performance",
  ],
  [
    "cdn",
    "a CDN",
    false,
    "cdn|cdns|cloudflare|bunny net|bunnycdn|bunny cdn|edge network|edge delivery|edge caching|fastly|cloudfront|akamai|keycdn",
    "web-performance",
  ],
  [
    "image-optimization",
    "image optimization",
    false,
    "image optimization|image compression|compress images|webp|avif|lazy loading|lazy load|shortpixel|imagify|smush|ewww|oversized images|oversized pictures|image sizes",
    "web-performance",
  ],
  [
    "database-cleanup",
    "database clean-up",
    false,
    "database cleanup|database clean up|database optimization|db cleanup|db optimization|revisions|transients|postmeta|wp options|autoloaded options|autoload|database bloat|mysql bloat|sql optimization|slow queries|query monitor",
    "",
  ],
  [
    "hosting-migration",
    "hosting migration",
    false,
    "hosting migration|host migration|server migration|website migration|site migration|migrate hosting|new host|move host|change host|cloudways|runcloud|kinsta|wp engine|wpengine|siteground|bluehost|godaddy|hostinger|rocket net|gridpane|spinupwp",
    "",
  ],
  [
    "web-design",
    "site design and builds",
    false,
    "web design|website design|site design|redesign|new site|new website|site build|site builds|website build|build a website|landing page design|theme design|homepage design",
    "",
    "site-work",
  ],
  // DevOps.
  ["devops", "DevOps", false, "devops|sre|platform engineering|site reliability|devops engineer", ""],
  ["kubernetes", "Kubernetes", true, "kubernetes|k8s|kubectl|eks|gke|aks|openshift|k3s|argocd|argo cd|kustomize|helm", "devops", "orchestration"],
  ["eks", "EKS", true, "eks|amazon eks|aws eks", "kubernetes aws"],
  ["helm", "Helm", true, "helm|helm chart|helm charts", "kubernetes"],
  ["ecs", "ECS", true, "ecs|fargate|nomad|docker swarm", "devops", "orchestration"],
  ["terraform", "Terraform", true, "terraform|opentofu|terragrunt|terraform modules|hcl", "devops iac", "iac-tool"],
  ["pulumi", "Pulumi", true, "pulumi|cloudformation|aws cdk|cdk|bicep", "devops iac", "iac-tool"],
  ["iac", "infrastructure as code", false, "iac|infrastructure as code", "devops"],
  ["aws", "AWS", true, "aws|amazon web services|ec2|s3|rds|lambda|aws lambda|iam|vpc|route 53|cloudwatch", "", "cloud"],
  ["gcp", "Google Cloud", true, "gcp|google cloud|google cloud platform|cloud run|bigquery", "", "cloud"],
  ["azure", "Azure", true, "azure|microsoft azure|azure devops", "", "cloud"],
  [
    "ci-cd",
    "CI/CD",
    false,
    "ci cd|cicd|ci|continuous integration|continuous delivery|continuous deployment|deployment pipeline|deployment pipelines|build pipeline|github actions|gitlab ci|jenkins|circleci|bitbucket pipelines",
    "devops",
  ],
  ["github-actions", "GitHub Actions", true, "github actions|gh actions|github workflows|actions workflows", "ci-cd"],
  [
    "monitoring",
    "monitoring",
    false,
    "monitoring|observability|alerting|prometheus|grafana|alertmanager|loki|datadog|new relic|opentelemetry|dashboards and alerts",
    "",
  ],
  [
    "cloud-cost",
    "cloud cost reduction",
    false,
    "cloud cost|cloud costs|cost reduction|cost optimization|aws bill|cloud bill|finops|rightsizing|right sizing|savings plans|reserved instances|spot instances|reduce costs|cut costs",
    "",
  ],
  ["docker", "Docker", true, "docker|containers|containerization|docker compose|dockerfile", "devops"],
  // Python and data.
  ["python", "Python", true, "python|python3|py|django|flask|fastapi|pandas|asyncio", "", "backend-language"],
  ["php", "PHP", true, "php|laravel|symfony", "", "backend-language"],
  ["ruby", "Ruby", true, "ruby|rails|ruby on rails", "", "backend-language"],
  ["java", "Java", true, "java|spring boot|spring|kotlin backend", "", "backend-language"],
  ["csharp", "C#/.NET", true, "c#|csharp|dotnet|net core|asp net", "", "backend-language"],
  [
    "scraping",
    "web scraping",
    false,
    "scraping|web scraping|scraper|scrapers|scrape|crawler|crawlers|crawling|crawl|spider|spiders|data extraction|extract data|data harvesting|web crawling|scraping scripts|competitor prices|competitor pricing|price monitoring|price tracking|collect data from|pull data from|hidden api|hidden json api|from their websites",
    "",
  ],
  ["scrapy", "Scrapy", true, "scrapy|scrapy spider|scrapy cloud|zyte", "python scraping"],
  ["browser-automation", "Playwright", true, "playwright|selenium|puppeteer|headless browser|headless chrome|undetected chromedriver", "scraping"],
  [
    "python-http",
    "requests and BeautifulSoup",
    true,
    "beautifulsoup|beautiful soup|bs4|lxml|httpx|aiohttp|python requests|requests library|parsel",
    "python scraping",
  ],
  [
    "anti-bot",
    "anti-bot handling",
    false,
    "anti bot|antibot|bot detection|captcha|captchas|recaptcha|hcaptcha|proxy rotation|rotating proxies|residential proxies|proxies|fingerprinting|rate limits|rate limiting|ip bans|blocked requests|datadome|perimeterx|akamai bot manager|cloudflare bypass|cloudflare challenge",
    "scraping",
  ],
  ["scheduling", "scheduled crawlers", false, "scheduled|scheduler|cron|cron jobs|cronjob|daily runs|nightly|every hour|hourly runs|recurring runs", ""],
  [
    "data-pipeline",
    "data pipelines",
    false,
    "data pipeline|data pipelines|etl|elt|data engineering|data ingestion|ingestion pipeline|data flows|data cleaning|clean data|data cleansing|normalization|deduplication",
    "",
  ],
  ["postgresql", "PostgreSQL", true, "postgresql|postgres|psql|timescaledb|supabase", "", "database"],
  ["csv", "CSV", false, "csv|csv files|excel export|spreadsheet export|json export", ""],
  ["airflow", "Airflow", true, "airflow|apache airflow|dag|dags|prefect|dagster|luigi", "data-pipeline"],
  ["mongodb", "MongoDB", true, "mongodb|mongo", "", "database"],
  ["mysql", "MySQL", true, "mysql|mariadb", "", "database"],
  // Design.
  [
    "ux",
    "UX",
    false,
    "ux|user experience|ux design|ux designer|product design|product designer|interaction design|information architecture|user flows|user journeys",
    "",
  ],
  ["ui-design", "UI design", false, "ui|ui design|ui designer|interface design|visual design|app screens|screen designs|mockups|high fidelity|hi fi", ""],
  [
    "user-research",
    "user research",
    false,
    "user research|user interviews|personas|journey map|journey maps|customer interviews|discovery research|research synthesis|jobs to be done|card sorting",
    "ux",
  ],
  ["wireframes", "wireframes", false, "wireframe|wireframes|wireframing|low fidelity|lo fi|low fi|sketches of screens", "ux"],
  ["prototypes", "interactive prototypes", false, "prototype|prototypes|prototyping|clickable prototype|interactive prototype|clickable mockups", "ux"],
  [
    "design-system",
    "design systems",
    false,
    "design system|design systems|component library|ui kit|design tokens|style guide|variables and components",
    "ui-design",
  ],
  ["figma", "Figma", true, "figma|figjam|figma variables|auto layout", "", "design-tool"],
  ["sketch", "Sketch", true, "sketch app|adobe xd|invision|penpot|axure", "", "design-tool"],
  [
    "usability-testing",
    "usability testing",
    false,
    "usability testing|usability test|usability tests|user testing|moderated testing|unmoderated testing|maze|usertesting|a b testing of designs|heuristic evaluation|ux audit",
    "ux",
  ],
  [
    "logo",
    "logos and print",
    false,
    "logo|logos|logo design|branding|brand identity|business cards|flyer|flyers|brochure|print design|poster|packaging design",
    "",
  ],
  [
    "frontend-code",
    "front-end code",
    false,
    "front end code|frontend code|front end development|frontend development|front end developer|frontend developer|html css|write code|implement the design in code|code the design|webflow build",
    "",
    "",
  ],
  // What kind of work it is.
  [
    "role-dev",
    "development work",
    false,
    "development|developer|coding|code|programming|programmer|custom development|software development|dev|plugin development",
    "frontend-code",
  ],
  [
    "role-writing",
    "writing",
    false,
    "ux writing|ux writer|microcopy|content design|technical writing|content writing|blog writing|seo writing|copywriting|copywriter|ghostwriting|ghostwriter|article writing|write articles|write blog articles|blog articles|blog posts|tutorial articles|write tutorials|content writer|technical writer|copy writer",
    "",
  ],
  [
    "role-data-entry",
    "data entry",
    false,
    "data entry|copy paste|copy and paste|copy products|manual entry|typing job|typing|product listing entry|enter records|virtual assistant|admin assistant|administrative support|customer service|order processing|bookkeeping|accounts payable|reconciliation",
    "",
  ],
  ["role-video", "video", false, "ugc|video editing|video editor|reaction videos|tiktok|reels|youtube shorts|voice over|voiceover", ""],
  ["role-design", "design", false, "designer|design role|graphic designer|graphic design|visual designer|design work|design only", ""],
  ["role-translation", "translation", false, "translation|translator|translate|technical translation|localization of documentation|subtitles", ""],
  [
    "role-recruiting",
    "recruiting",
    false,
    "recruiter|recruiting|recruitment|sourcing candidates|talent acquisition|headhunter|headhunting|source engineers",
    "",
  ],
  [
    "role-security",
    "security testing",
    false,
    "penetration testing|penetration test|pentest|pen test|pentesting|ethical hacking|oscp|red team|vulnerability assessment",
    "",
  ],
  [
    "role-qa",
    "QA testing",
    false,
    "qa automation|test automation|end to end test automation|end to end testing|e2e testing|e2e tests|qa engineer|quality assurance|manual testing|test cases|pytest|cypress tests",
    "",
  ],
  ["role-photo", "photo editing", false, "image editing|photo editing|background removal|remove background|photo retouching|retouching|clipping path", ""],
  [
    "role-social",
    "social media growth",
    false,
    "instagram growth|social media growth|auto like|auto follow|followers|likes and follows|growth bot|engagement pods",
    "",
  ],
  [
    "role-marketing",
    "marketing",
    false,
    "market research|competitive analysis|competitor analysis|marketing|seo|seo rankings|keyword research|link building|social media marketing|ppc|google ads|email marketing",
    "",
  ],
  [
    "role-hardware",
    "hardware design",
    false,
    "cad|solidworks|3d printing|injection molding|autocad|fusion 360|pcb design|mechanical design|mechanical engineering|mechanical prototype",
    "",
  ],
  ["role-slides", "presentations", false, "pitch deck|presentation design|powerpoint|keynote slides|slide deck|slides design|google slides", ""],
  [
    "role-analytics",
    "analytics and BI",
    false,
    "data analyst|data analysis|power bi|tableau|looker studio|dax|bi developer|business intelligence|data warehouse|snowflake|dbt|redshift|data engineer|aws glue",
    "",
  ],
  [
    "role-backend",
    "back-end only work",
    false,
    "backend only|back end only|backend developer|back end developer|backend engineer|api developer|backend api",
    "",
  ],
  ["role-teaching", "teaching", false, "tutor|tutoring|teach me|coaching|online course|course creation", ""],
];

export const CONCEPTS = new Map<string, Concept>();
/** First token → spellings starting with it (as token arrays, longest first) → concept id. */
const BY_FIRST = new Map<string, { tokens: string[]; id: string }[]>();

/** A token as the concept table compares it: lower case, American spelling, no plural "s". */
function norm(token: string): string {
  const known = normMemo.get(token);
  if (known !== undefined) return known;
  const t = americanSpelling(token);
  const out = t.length > 3 && t.endsWith("s") && !KEEP_S.has(t) && !/(?:ss|us|is|os)$/.test(t) ? t.slice(0, -1) : t;
  if (token.length <= 30) {
    if (normMemo.size >= 50_000) normMemo.clear();
    normMemo.set(token, out);
  }
  return out;
}
/** Job text repeats the same few thousand words, so normalising each once pays. */
const normMemo = new Map<string, string>();

for (const [id, say, tech, spellings, implies = "", families = ""] of ROWS) {
  CONCEPTS.set(id, { id, say, tech, implies: implies.split(" ").filter(Boolean), families: families.split(" ").filter(Boolean) });
  for (const spelling of spellings.split("|")) {
    const tokens = tokenize(spelling).map(norm);
    if (tokens.length === 0) continue;
    const list = BY_FIRST.get(tokens[0]!) ?? [];
    if (!list.some((s) => s.tokens.join(" ") === tokens.join(" "))) list.push({ tokens, id });
    BY_FIRST.set(tokens[0]!, list);
  }
}
for (const list of BY_FIRST.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);

/** Every concept a concept implies, itself excluded, transitively ("eks" → kubernetes, aws, devops). */
const CLOSURE = new Map<string, string[]>();
for (const id of CONCEPTS.keys()) {
  const seen = new Set<string>();
  const stack = [...CONCEPTS.get(id)!.implies];
  while (stack.length) {
    const next = stack.pop()!;
    if (next === id || seen.has(next) || !CONCEPTS.has(next)) continue;
    seen.add(next);
    stack.push(...CONCEPTS.get(next)!.implies);
  }
  CLOSURE.set(id, [...seen]);
}
export function impliedBy(id: string): string[] {
  return CLOSURE.get(id) ?? [];
}

/** Two concepts are alternatives when they share a family: React and Vue, Shopify apps and Shopify themes. */
export function rivals(a: string, b: string): boolean {
  if (a === b) return false;
  const fa = CONCEPTS.get(a)?.families ?? [];
  const fb = CONCEPTS.get(b)?.families ?? [];
  return fa.some((f) => fb.includes(f));
}

// ---------------------------------------------------------------- scanning

/** Words that open a negation in job or prompt text. */
const NEGATORS = new Set(["no", "not", "without", "non", "never", "nor", "none", "cannot", "excluding", "except", "avoid"]);
const NEGATED_AUX = new Set(["don", "doesn", "didn", "isn", "aren", "won", "wouldn", "can", "shouldn", "wasn"]);
/** After these a "not" is no negation: "not only React", "not just a dashboard". */
const NOT_A_NEGATION = new Set(["only", "just", "necessarily", "merely", "simply", "limited", "exclusively", "sure", "bad"]);
/** Moving away from something: "migrating off Shopify", "moving away from WooCommerce". */
/** Words that leave what follows them: "replace Terraform with Pulumi", "retire our scraper stack". */
const REPLACING = new Set([
  "replace",
  "replacing",
  "retire",
  "retiring",
  "sunset",
  "sunsetting",
  "deprecate",
  "deprecating",
  "drop",
  "dropping",
  "ditch",
  "ditching",
  "remove",
  "removing",
]);
const LEAVING = new Set([
  "move",
  "moving",
  "moved",
  "migrate",
  "migrating",
  "migrated",
  "migration",
  "switch",
  "switching",
  "switched",
  "transition",
  "transitioning",
  "port",
  "porting",
  "get",
  "getting",
  "away",
  "leaving",
  "leave",
  "off",
]);
/** A negation lasts this many content words (stopwords do not count), or to a word that turns the sentence ("to", "but"). */
const SCOPE_WORDS = 3;
const SCOPE_END = new Set([
  "to",
  "into",
  "but",
  "however",
  "instead",
  "rather",
  "though",
  "although",
  "while",
  "whereas",
  "yet",
  "so",
  "because",
  "onto",
  "towards",
]);
/** "X not required", "X isn't needed": the negation comes after. */
/** Every word the scan must look at even when it starts no concept. */
const SPECIAL = new Set([...NEGATORS, "t", "off", "from", "with", "instead", ...REPLACING, ...SCOPE_END]);
const POSTFIX =
  /^(?:(?:not|isn t|aren t|is not|are not|no longer)\s+(?:required|needed|necessary|wanted|a requirement|involved|part of|used|relevant)\b|(?:only\s+)?(?:developers?|devs?|engineers?|experts?|freelancers?|people|agencies|specialists?)?\s*(?:please\s+)?(?:don t|do not|need not|shouldn t|should not) apply)/;
/**
 * A text's clauses as `tokenize` would give their words, in one pass (tokenising each clause apart costs a
 * normalisation each). A clause ends at sentence and clause marks, commas and dashes; not at the dot in "Next.js".
 */
const TOKEN_OR_BREAK = /[\p{L}\p{N}]+[+#]*|[;!?\n\r()[\]{}]|[.:](?=\s|$)|,|\s[-–—|/]+\s/gu;
const ASCII = /^[\x00-\x7f]*$/;
function clausesOf(text: string): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  const lower = text.toLowerCase();
  // NFKC changes nothing in ASCII text, which most job text is.
  for (const word of (ASCII.test(lower) ? lower : lower.normalize("NFKC")).match(TOKEN_OR_BREAK) ?? []) {
    // Lower-cased, a word starts with a–z, a digit or a non-ASCII letter; every break starts otherwise.
    const c = word.charCodeAt(0);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c > 0x7f) current.push(word);
    else if (current.length) {
      out.push(current);
      current = [];
    }
  }
  if (current.length) out.push(current);
  return out;
}

export interface ConceptHit {
  /** Found outside a negation in the title or a skill tag. */
  strong: boolean;
  /** Mentions outside a negation in the description. */
  desc: number;
  /** Mentions inside a negation anywhere in the text. */
  negated: number;
  /** Negated in the title or description (prose), not only in tags. */
  negatedInText: boolean;
  /** Found outside a negation in the title. */
  inTitle: boolean;
  /** Negated in the title itself ("NOT a designer role – …"). */
  negatedInTitle: boolean;
}
export type ConceptReading = Map<string, ConceptHit>;

function hitOf(reading: ConceptReading, id: string): ConceptHit {
  let hit = reading.get(id);
  if (!hit) reading.set(id, (hit = { strong: false, desc: 0, negated: 0, negatedInText: false, inTitle: false, negatedInTitle: false }));
  return hit;
}

/** Reads one field into `reading`. `strong`: title or skill tag; `prose`: written text (title or description), not a tag. */
export function scanConcepts(text: string, reading: ConceptReading, strong: boolean, prose: boolean): number {
  let words = 0;
  for (const raw of clausesOf(text.slice(0, 60_000))) {
    words += raw.length;
    const tokens = raw.map(norm);
    let scope = 0; // content words left in the current negation
    let leaving = false; // the negation is "moving off": what the clause moves to may keep it ("from CRA to Next.js")
    const found: { id: string; negated: boolean; leaving: boolean; end: number }[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = raw[i]!;
      const spellings = BY_FIRST.get(tokens[i]!);
      // Most words start no concept and steer no negation: skip them quickly.
      if (!spellings && !SPECIAL.has(t)) {
        if (scope > 0 && contentStem(t)) scope--;
        continue;
      }
      const next = raw[i + 1] ?? "";
      if ((NEGATORS.has(t) && !NOT_A_NEGATION.has(next)) || (t === "t" && NEGATED_AUX.has(raw[i - 1] ?? "") && !NOT_A_NEGATION.has(next))) {
        scope = SCOPE_WORDS;
        leaving = false;
        continue;
      }
      if ((t === "off" || t === "from") && next !== "the" && raw.slice(Math.max(0, i - 3), i).some((w) => LEAVING.has(w))) {
        scope = SCOPE_WORDS;
        leaving = true;
        continue;
      }
      if (REPLACING.has(t)) {
        scope = SCOPE_WORDS;
        leaving = true;
        continue;
      }
      if (t === "with" && leaving) scope = 0;
      if (t === "instead" && next === "of") {
        scope = SCOPE_WORDS;
        leaving = false;
        i++;
        continue;
      }
      if (SCOPE_END.has(t)) scope = 0;
      let matched: { tokens: string[]; id: string } | undefined;
      for (const spelling of spellings ?? []) {
        if (spelling.tokens.every((s, k) => tokens[i + k] === s)) {
          matched = spelling;
          break;
        }
      }
      if (matched) {
        found.push({ id: matched.id, negated: scope > 0, leaving: scope > 0 && leaving, end: i + matched.tokens.length });
        i += matched.tokens.length - 1;
        if (scope > 0) scope--;
      } else if (scope > 0 && contentStem(t)) scope--;
    }
    // "Migrate from Create React App to Next.js" leaves a tool, not React: Next.js implies it.
    for (const f of found) {
      if (f.leaving && found.some((g) => !g.negated && impliedBy(g.id).includes(f.id))) f.negated = false;
    }
    for (const [k, f] of found.entries()) {
      const after = raw.slice(f.end, f.end + 6).join(" ");
      const negated = f.negated || POSTFIX.test(after.replace(/^(?:skills?|experience|knowledge|work)\s+/, "")) || leftFor(raw, found, k);
      const hit = hitOf(reading, f.id);
      if (negated) {
        hit.negated++;
        if (prose) hit.negatedInText = true;
        if (prose && strong) hit.negatedInTitle = true;
      } else if (strong) {
        hit.strong = true;
        if (prose) hit.inTitle = true;
      } else hit.desc++;
    }
  }
  return words;
}

/** "WordPress to Shopify store migration", "React to Angular": a technology followed by "to" and an alternative is being left. */
function leftFor(raw: string[], found: { id: string; end: number }[], k: number): boolean {
  const f = found[k]!;
  const to = raw.indexOf("to", f.end);
  if (to < 0 || to - f.end > 2 || raw.slice(f.end, to).includes("from")) return false;
  const next = found[k + 1];
  return !!next && next.end - to <= 4 && rivals(f.id, next.id);
}

export interface JobLike {
  title: string;
  description: string;
  skills: string[];
}

/** A job's concepts: title and tags count strongly, the description by its mentions. */
export function jobConcepts(job: JobLike): ConceptReading {
  return readJobConcepts(job).reading;
}

/** The same, with the number of words in the description. */
export function readJobConcepts(job: JobLike): { reading: ConceptReading; descriptionWords: number } {
  const reading: ConceptReading = new Map();
  scanConcepts(typeof job.title === "string" ? job.title : "", reading, true, true);
  for (const skill of Array.isArray(job.skills) ? job.skills.slice(0, 200) : []) {
    if (typeof skill === "string") scanConcepts(skill.slice(0, 200), reading, true, false);
  }
  const descriptionWords = scanConcepts(typeof job.description === "string" ? job.description : "", reading, false, true);
  return { reading, descriptionWords };
}

/** How a hit counts on its own: prose that negates a technology ("migrate off React") outweighs a tag naming it. */
function level(hit: ConceptHit): "strong" | "desc" | null {
  // What the client writes against a technology ("not a React project", "React devs please don't apply") outweighs
  // a passing mention of it; only naming it in the title as well keeps it wanted.
  if (hit.negatedInText && !hit.inTitle) return null;
  return hit.strong ? "strong" : hit.desc > 0 ? "desc" : null;
}

/** Whether a job reading has a concept outside a negation, directly or through what its concepts imply. */
export function present(reading: ConceptReading, id: string): "strong" | "desc" | "implied" | null {
  const hit = reading.get(id);
  // "Checkout extension … not Shopify": what implies a technology the job rules out does not count either.
  const ruledOut = (c: string): boolean => impliedBy(c).some((x) => negatedIn(reading, x));
  const own = hit && !ruledOut(id) ? level(hit) : null;
  if (own) return own;
  if (hit?.negatedInText) return null;
  for (const [other, h] of reading) if (level(h) && impliedBy(other).includes(id) && !ruledOut(other)) return "implied";
  return null;
}

/** Implied by a concept the job names in its title or tags ("Flutter developer" implies front-end code). */
export function impliedStrongly(reading: ConceptReading, id: string): boolean {
  for (const [other, h] of reading) if (h.strong && level(h) === "strong" && impliedBy(other).includes(id)) return true;
  return false;
}

/** Negated in the job's prose and not also wanted there. */
export function negatedIn(reading: ConceptReading, id: string): boolean {
  const hit = reading.get(id);
  return !!hit && hit.negatedInText && level(hit) === null;
}

/** How many concept mentions a reading's description has, and how many different concepts (roles left out). */
export function mentionsIn(reading: ConceptReading): { total: number; distinct: number } {
  let total = 0;
  let distinct = 0;
  for (const [id, hit] of reading) {
    if (id.startsWith("role-") || hit.desc === 0) continue;
    total += hit.desc;
    distinct++;
  }
  return { total, distinct };
}

/** The same for one text, such as a title. */
export function conceptMentions(text: string): { total: number; distinct: number } {
  const reading: ConceptReading = new Map();
  scanConcepts(text, reading, false, false);
  return mentionsIn(reading);
}
