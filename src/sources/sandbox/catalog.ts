/**
 * Data, not logic: the static word lists and text templates of the sandbox job
 * generator (niches, countries, names, phrasings). It is long because it is a
 * table; there is nothing here to split by responsibility, so it stays one
 * file over the usual 400 lines.
 * Placeholders in braces ({skill}, {product}, …) are filled by the generator.
 * Category names and slugs follow the marketplace's own taxonomy so category
 * filters and displays look like the real thing.
 */

export interface Niche {
  key: string;
  group: [name: string, urlSlug: string];
  category: [name: string, urlSlug: string];
  occupation: string;
  /** Relative share of jobs. */
  weight: number;
  /** Software work: adds engineering-style requirements. */
  tech: boolean;
  /** Intermediate-tier USD ranges; the generator scales them by tier. */
  hourly: [number, number];
  fixed: [number, number];
  /** First entry is the primary skill and is always attached. */
  skills: string[];
  products: string[];
  titles: string[];
  problems: string[];
  tasks: string[];
  deliverables: string[];
  extras: string[];
  questions: string[];
}

const DEV: [string, string] = ["Web, Mobile & Software Dev", "web-mobile-software-dev"];
const WEB: [string, string] = ["Web Development", "web-development"];
const MOBILE: [string, string] = ["Mobile Development", "mobile-development"];
const DATA: [string, string] = ["Data Science & Analytics", "data-science-analytics"];
const DESIGN: [string, string] = ["Design & Creative", "design-creative"];

export const NICHES: Niche[] = [
  {
    key: "react",
    group: DEV,
    category: WEB,
    occupation: "Front-End Development",
    weight: 8,
    tech: true,
    hourly: [25, 60],
    fixed: [300, 4000],
    skills: ["React", "Next.js", "TypeScript", "JavaScript", "Tailwind CSS", "Redux", "HTML5", "CSS"],
    products: ["customer dashboard", "SaaS web app", "booking platform", "marketing site", "internal admin panel"],
    titles: [
      "React developer needed for our {product}",
      "Next.js expert to rebuild our {product}",
      "Senior React + TypeScript engineer for ongoing front-end work",
      "Fix performance issues in our Next.js {product}",
      "Front-end developer (React) to implement Figma designs",
    ],
    problems: [
      "Our {product} was built in a hurry two years ago and it shows: pages load slowly, state is scattered across components and every new feature breaks something else. We want an experienced {skill} developer to clean it up while we keep shipping.",
      "We are launching a new {product} for our customers. The designs are finished in Figma and the API is ready, so what we need is someone to turn the screens into a polished, responsive front end.",
      "We have an existing {skill} codebase of about sixty components and a small in-house team that is stretched thin. We need a reliable contractor to take over a backlog of UI tickets and help us move faster going forward.",
    ],
    tasks: [
      "Build reusable, typed components in {skill}",
      "Connect the UI to our REST and GraphQL endpoints",
      "Improve Lighthouse scores and Core Web Vitals",
      "Write unit tests with Jest and React Testing Library",
      "Migrate old class components to hooks",
      "Set up server-side rendering and routing in Next.js",
    ],
    deliverables: [
      "Clean, typed code delivered as pull requests to our GitHub repository",
      "A deployed preview on Vercel for every milestone",
      "Short written notes on any architectural decisions",
    ],
    extras: ["Experience with Storybook", "Familiarity with accessibility (WCAG 2.1)", "Some backend knowledge with Node.js"],
    questions: [
      "Share a link to a {skill} project you built and describe your part in it.",
      "How do you approach state management in a large React application?",
    ],
  },
  {
    key: "node",
    group: DEV,
    category: WEB,
    occupation: "Back-End Development",
    weight: 6,
    tech: true,
    hourly: [30, 70],
    fixed: [400, 5000],
    skills: ["Node.js", "TypeScript", "Express", "NestJS", "PostgreSQL", "MongoDB", "REST API", "GraphQL"],
    products: ["REST API", "payment service", "multi-tenant backend", "webhook integration", "Stripe billing flow"],
    titles: [
      "Node.js backend developer for our {product}",
      "Build a {product} with Node.js and PostgreSQL",
      "TypeScript / NestJS engineer to extend our API",
      "Experienced Node.js developer to debug memory leaks",
      "Backend developer to integrate third-party APIs",
    ],
    problems: [
      "Our {product} runs on {skill} and has grown faster than our team. Response times spike under load and a few endpoints time out during peak hours. We need someone who has profiled and tuned Node services in production.",
      "We need a {product} that our mobile app and partners can call. The data model is sketched out; we need an engineer to design the endpoints, write the code and document it properly.",
      "We are replacing a fragile set of scripts with a proper {product}. The current setup is frustrating to maintain and nobody on the team wants to touch it anymore.",
    ],
    tasks: [
      "Design and implement endpoints in {skill}",
      "Model the database schema and write migrations",
      "Add authentication (JWT/OAuth) and role checks",
      "Write integration tests and set up CI",
      "Document the API with OpenAPI",
      "Add logging, metrics and error tracking",
    ],
    deliverables: [
      "Source code with tests in our repository",
      "OpenAPI documentation for every endpoint",
      "A short runbook for deploying and operating the service",
    ],
    extras: ["Experience with Redis and background job queues", "Docker and AWS experience", "Knowledge of Prisma or Drizzle ORM"],
    questions: [
      "What is the largest Node.js service you have worked on, and how did you keep it fast?",
      "Which ORM or query builder do you prefer with PostgreSQL, and why?",
    ],
  },
  {
    key: "laravel",
    group: DEV,
    category: WEB,
    occupation: "Full Stack Development",
    weight: 4,
    tech: true,
    hourly: [20, 50],
    fixed: [200, 3000],
    skills: ["PHP", "Laravel", "MySQL", "Vue.js", "Livewire", "REST API", "JavaScript"],
    products: ["CRM", "client portal", "inventory system", "membership site", "invoicing tool"],
    titles: [
      "Laravel developer to add features to our {product}",
      "PHP/Laravel expert to fix bugs in an existing {product}",
      "Upgrade Laravel 8 app to Laravel 11",
      "Full-stack Laravel + Vue.js developer for {product}",
    ],
    problems: [
      "We have a Laravel-based {product} that has been running for five years. The original developer moved on and we need someone to pick it up, fix a list of bugs and add a few features our staff keep asking for.",
      "Our {product} is built on Laravel with a MySQL database. It works, but it is on an old framework version and we want to upgrade it safely before adding anything new.",
    ],
    tasks: [
      "Fix reported bugs and write regression tests",
      "Upgrade the framework and dependencies",
      "Build new admin screens with Livewire or Vue.js",
      "Optimise slow MySQL queries",
      "Add a REST API for our mobile app",
      "Set up queues and scheduled tasks",
    ],
    deliverables: ["Working code merged into our Git repository", "A staging deployment we can test", "Notes on anything that needs attention later"],
    extras: ["Experience with Laravel Nova or Filament", "Knowledge of Tailwind CSS", "Server administration on DigitalOcean or Forge"],
    questions: ["Which Laravel version have you upgraded from and to, and what broke along the way?"],
  },
  {
    key: "wordpress",
    group: DEV,
    category: WEB,
    occupation: "CMS Development",
    weight: 7,
    tech: true,
    hourly: [15, 45],
    fixed: [100, 1500],
    skills: ["WordPress", "WooCommerce", "Elementor", "PHP", "CSS", "Web Design", "WordPress Plugin"],
    products: ["company website", "WooCommerce store", "blog", "landing page", "membership site"],
    titles: [
      "WordPress developer to redesign our {product}",
      "Fix and speed up our WordPress {product}",
      "Elementor expert needed for a new {product}",
      "WooCommerce developer for checkout customisation",
      "Ongoing WordPress maintenance and updates",
    ],
    problems: [
      "Our {product} runs on {skill} and has become slow and hard to edit. Some plugins conflict with each other and the mobile layout is broken on several pages.",
      "We are refreshing our brand and need the {product} rebuilt in Elementor to match the new look. Content is mostly ready; we need a developer with a good eye for detail.",
      "We need a dependable person to keep our {product} updated, backed up and secure every month, and to handle small change requests from the marketing team.",
    ],
    tasks: [
      "Rebuild page templates with Elementor",
      "Clean up and update plugins",
      "Improve page speed and Core Web Vitals",
      "Customise WooCommerce checkout and emails",
      "Make every page fully responsive",
      "Set up backups and security hardening",
    ],
    deliverables: [
      "A finished site on our staging server",
      "A short video walkthrough of how to edit pages",
      "A list of installed plugins and why each is needed",
    ],
    extras: ["Basic SEO knowledge", "Experience with custom post types and ACF", "Design sense for layouts and typography"],
    questions: ["Share two WordPress sites you built or rebuilt recently.", "Which page builder do you prefer and why?"],
  },
  {
    key: "shopify",
    group: DEV,
    category: ["Ecommerce Development", "ecommerce-development"],
    occupation: "Ecommerce Website Development",
    weight: 5,
    tech: true,
    hourly: [20, 55],
    fixed: [150, 2500],
    skills: ["Shopify", "Liquid", "Shopify Apps", "JavaScript", "Ecommerce Website", "Conversion Rate Optimization"],
    products: ["Shopify store", "product page", "theme", "checkout flow", "subscription setup"],
    titles: [
      "Shopify expert to customise our {product}",
      "Increase conversion rate of our Shopify {product}",
      "Shopify developer for theme changes and app integration",
      "Build a custom section for our Shopify theme",
      "Migrate our store from WooCommerce to Shopify",
    ],
    problems: [
      "We sell skincare products on {skill} and get good traffic, but our conversion rate dropped after the last theme update. We want someone who understands both Liquid and how shoppers behave.",
      "We need several custom sections added to our {product} and a couple of apps integrated properly. Our current theme has been edited by three different people and is a bit of a mess.",
    ],
    tasks: [
      "Customise theme sections in Liquid",
      "Integrate review and upsell apps",
      "Improve mobile speed scores",
      "Set up product filters and collections",
      "Fix layout bugs on product pages",
      "Configure analytics and conversion tracking",
    ],
    deliverables: ["Theme changes on a duplicate theme for review", "Documentation of every customisation", "Before/after speed report"],
    extras: ["Shopify Plus experience", "Klaviyo integration experience", "Experience with headless Shopify"],
    questions: ["Share a Shopify store where your work improved conversions, with numbers if possible."],
  },
  {
    key: "flutter",
    group: DEV,
    category: MOBILE,
    occupation: "Mobile App Development",
    weight: 4,
    tech: true,
    hourly: [20, 55],
    fixed: [500, 8000],
    skills: ["Flutter", "Dart", "Firebase", "iOS", "Android", "Mobile App Development"],
    products: ["fitness tracking app", "delivery app", "MVP app", "booking app", "companion app for our hardware"],
    titles: [
      "Flutter developer to build our {product}",
      "Finish an existing Flutter {product}",
      "Flutter + Firebase developer for MVP",
      "Cross-platform mobile developer (Flutter) needed",
    ],
    problems: [
      "We want to launch a {product} on both iOS and Android with one codebase. We picked {skill} because of its performance, and the designs are ready in Figma.",
      "A previous agency built about seventy percent of our {product} in {skill} and then disappeared. We need someone to review the code, finish the missing screens and get it into the stores.",
    ],
    tasks: [
      "Implement screens from Figma in {skill}",
      "Connect to Firebase for auth and data",
      "Add push notifications and deep links",
      "Fix crashes reported in Crashlytics",
      "Prepare builds for the App Store and Google Play",
      "Write widget and integration tests",
    ],
    deliverables: ["Source code in our repository", "TestFlight and internal Play builds for each milestone", "Store-ready release builds"],
    extras: ["Experience with Riverpod or Bloc", "Published apps you can show", "Native iOS or Android knowledge"],
    questions: ["Which Flutter apps have you published? Please include store links."],
  },
  {
    key: "react-native",
    group: DEV,
    category: MOBILE,
    occupation: "Mobile App Development",
    weight: 4,
    tech: true,
    hourly: [25, 60],
    fixed: [500, 8000],
    skills: ["React Native", "JavaScript", "TypeScript", "Expo", "iOS", "Android", "Redux"],
    products: ["marketplace app", "social app", "health app", "loyalty app", "event app"],
    titles: [
      "React Native developer for our {product}",
      "Senior React Native engineer to improve app performance",
      "Build a {product} in React Native with Expo",
      "React Native expert to fix iOS build issues",
    ],
    problems: [
      "Our {product} is built in {skill} and has around 20,000 monthly users. Scrolling is janky on older Android phones and the app takes too long to start. We need someone who has profiled React Native apps before.",
      "We are a small startup building a {product}. We have a web version in React and want a mobile app that shares as much logic as possible, so {skill} with Expo feels like the right fit.",
    ],
    tasks: [
      "Build new screens in {skill}",
      "Improve startup time and list performance",
      "Upgrade React Native and native dependencies",
      "Integrate in-app purchases",
      "Set up OTA updates with Expo",
      "Fix native build problems on iOS and Android",
    ],
    deliverables: ["Pull requests with tests", "Builds on TestFlight and Google Play internal testing", "A short performance report"],
    extras: ["Native module experience (Swift/Kotlin)", "Experience with Reanimated", "Background in React for web"],
    questions: ["How do you diagnose slow lists or slow startup in a React Native app?"],
  },
  {
    key: "ios",
    group: DEV,
    category: MOBILE,
    occupation: "iOS Development",
    weight: 2.5,
    tech: true,
    hourly: [35, 80],
    fixed: [600, 9000],
    skills: ["Swift", "SwiftUI", "iOS", "Xcode", "Core Data", "App Store"],
    products: ["iPhone app", "Apple Watch companion", "meditation app", "budget tracker", "photo editing app"],
    titles: [
      "iOS developer (Swift/SwiftUI) for our {product}",
      "Native iOS engineer to rebuild our {product} in SwiftUI",
      "Swift developer to fix crashes and publish update",
    ],
    problems: [
      "Our {product} is written in UIKit and we want to move it to SwiftUI gradually without breaking anything for current users.",
      "We need a native {product} built in {skill}. It needs offline storage, widgets and smooth animations, so a cross-platform tool is not what we want here.",
    ],
    tasks: [
      "Build screens in SwiftUI",
      "Set up offline storage with Core Data",
      "Add widgets and notifications",
      "Fix crash reports",
      "Handle App Store submission and review",
    ],
    deliverables: ["Xcode project in our repository", "TestFlight builds per milestone", "App Store release"],
    extras: ["HealthKit or StoreKit experience", "Experience with Combine", "UI design skills"],
    questions: ["Link one or two iOS apps you built that are live on the App Store."],
  },
  {
    key: "android",
    group: DEV,
    category: MOBILE,
    occupation: "Android Development",
    weight: 2.5,
    tech: true,
    hourly: [30, 70],
    fixed: [600, 8000],
    skills: ["Kotlin", "Android", "Jetpack Compose", "Java", "Android Studio", "Firebase"],
    products: ["Android app", "field service app", "kiosk app", "point-of-sale app", "IoT controller app"],
    titles: ["Kotlin developer for native {product}", "Android developer to migrate Java code to Kotlin", "Jetpack Compose expert for new {product} screens"],
    problems: [
      "Our {product} is still mostly Java and XML layouts. We want to migrate to {skill} and Jetpack Compose screen by screen while keeping releases going.",
      "We need a native {product} that talks to our Bluetooth devices. Reliability matters more than looks here.",
    ],
    tasks: [
      "Migrate screens to Jetpack Compose",
      "Convert Java classes to {skill}",
      "Implement Bluetooth communication",
      "Improve battery usage",
      "Publish to Google Play",
    ],
    deliverables: ["Gradle project in our repository", "Signed release builds", "Test coverage for core logic"],
    extras: ["Bluetooth Low Energy experience", "Experience with Room and WorkManager", "Kotlin Multiplatform knowledge"],
    questions: ["What is your experience with Jetpack Compose in production apps?"],
  },
  {
    key: "data-analysis",
    group: DATA,
    category: ["Data Analysis & Testing", "data-analysis-testing"],
    occupation: "Data Analysis",
    weight: 5,
    tech: true,
    hourly: [25, 70],
    fixed: [150, 3000],
    skills: ["Python", "pandas", "SQL", "Data Analysis", "Microsoft Excel", "Tableau", "Data Visualization"],
    products: ["sales data", "customer churn data", "marketing funnel", "inventory records", "survey results"],
    titles: [
      "Data analyst to analyze our {product}",
      "Python/pandas expert to clean and analyze {product}",
      "SQL + Tableau dashboard for {product}",
      "Build automated weekly reports from {product}",
    ],
    problems: [
      "We have three years of {product} spread across spreadsheets and a Postgres database. Nobody has had time to look at it properly and we suspect there are clear patterns we are missing.",
      "Our team spends every Monday building the same report by hand. We want the {product} pulled with SQL, cleaned with {skill} and turned into a dashboard that updates itself.",
    ],
    tasks: [
      "Clean and merge data with {skill} and pandas",
      "Write SQL queries for the key metrics",
      "Build a dashboard in Tableau or Looker Studio",
      "Explain findings in plain language",
      "Automate the weekly refresh",
    ],
    deliverables: ["Jupyter notebooks or scripts we can re-run", "A dashboard with the agreed metrics", "A short written summary of findings"],
    extras: ["Statistics background", "Experience with BigQuery", "Forecasting experience"],
    questions: ["Describe a data analysis where your findings changed a business decision."],
  },
  {
    key: "ml",
    group: DATA,
    category: ["AI & Machine Learning", "ai-machine-learning"],
    occupation: "Machine Learning",
    weight: 4,
    tech: true,
    hourly: [40, 120],
    fixed: [800, 12000],
    skills: ["Machine Learning", "Python", "scikit-learn", "PyTorch", "TensorFlow", "Deep Learning", "Computer Vision"],
    products: ["demand forecasting model", "image classification model", "recommendation engine", "fraud detection model", "document classifier"],
    titles: [
      "Machine learning engineer to build a {product}",
      "Improve accuracy of our {product}",
      "Computer vision expert for defect detection",
      "ML engineer to deploy a {product} to production",
    ],
    problems: [
      "We collect a lot of data but still make decisions by gut feeling. We want a {product} built with proper machine learning techniques that our operations team can actually trust.",
      "We have a prototype {product} trained in a notebook. Accuracy is decent, but it has never been deployed and retraining is manual. We need help taking it to production.",
    ],
    tasks: [
      "Explore the data and define a baseline",
      "Train and evaluate models with PyTorch or scikit-learn",
      "Set up a reproducible training pipeline",
      "Serve the model behind an API",
      "Monitor model drift",
    ],
    deliverables: ["Training code and a model card", "An inference API with a Dockerfile", "An evaluation report with clear metrics"],
    extras: ["MLOps experience (MLflow, SageMaker)", "Published research or Kaggle results", "Experience with time series"],
    questions: ["Describe a machine learning model you took from prototype to production.", "How would you measure whether the model is good enough to ship?"],
  },
  {
    key: "scraping",
    group: DATA,
    category: ["Data Extraction/ETL", "data-extraction-etl"],
    occupation: "Data Extraction",
    weight: 5,
    tech: true,
    hourly: [15, 45],
    fixed: [100, 1500],
    skills: ["Data Scraping", "Python", "Scrapy", "Selenium", "Beautiful Soup", "Data Mining", "Playwright"],
    products: ["real estate listings", "product prices", "business directory", "job postings", "public tender notices"],
    titles: [
      "Scrape {product} from several websites",
      "Python developer for daily data scraping of {product}",
      "Build a scraper for {product} and export to Google Sheets",
      "Fix our broken Scrapy spiders",
    ],
    problems: [
      "We track {product} across about ten websites and currently copy everything by hand. We need a reliable scraper that runs every day and handles pagination and logins.",
      "Our existing spiders for {product} stopped working after the sites changed their layout. We need someone to fix them and make them easier to maintain.",
    ],
    tasks: [
      "Write scrapers with Scrapy or Playwright",
      "Handle pagination, logins and rate limits",
      "Clean and de-duplicate records",
      "Export to CSV and Google Sheets",
      "Schedule daily runs and alert on failures",
    ],
    deliverables: ["Scraper source code with a README", "A sample export of the first full run", "A scheduled job on our server"],
    extras: ["Experience with rotating proxies", "Knowledge of headless browsers", "Experience with Apify"],
    questions: ["Which sites with anti-bot protection have you scraped and how did you handle it?"],
  },
  {
    key: "devops",
    group: ["IT & Networking", "it-networking"],
    category: ["DevOps & Solution Architecture", "devops-solution-architecture"],
    occupation: "DevOps Engineering",
    weight: 5,
    tech: true,
    hourly: [40, 110],
    fixed: [500, 8000],
    skills: ["AWS", "Docker", "Kubernetes", "Terraform", "DevOps", "CI/CD", "Linux System Administration", "GitHub Actions"],
    products: ["staging environment", "Kubernetes cluster", "CI/CD pipeline", "AWS account setup", "monitoring stack"],
    titles: [
      "DevOps engineer to set up our {product}",
      "AWS + Terraform expert for infrastructure as code",
      "Kubernetes specialist to stabilise our cluster",
      "Migrate our app from Heroku to AWS",
      "Set up CI/CD with GitHub Actions and Docker",
    ],
    problems: [
      "Our infrastructure was clicked together in the {skill} console over several years. Nobody knows exactly what runs where, and our costs keep growing. We want everything described in Terraform and cleaned up.",
      "Deploys are manual and take an afternoon. We want a proper {product} so developers can ship several times a day without fear.",
      "Our {product} goes down a few times a month and we only find out when customers complain. We need better alerting and a more resilient setup.",
    ],
    tasks: [
      "Write infrastructure as code with Terraform",
      "Containerise services with Docker",
      "Set up deployments on Kubernetes or ECS",
      "Build CI/CD pipelines",
      "Set up monitoring, logs and alerts",
      "Reduce our monthly cloud bill",
    ],
    deliverables: ["Terraform modules and pipelines in our repository", "Architecture diagram and runbook", "A handover call with the team"],
    extras: ["AWS certification", "Experience with SOC 2 audits", "Datadog or Grafana experience"],
    questions: ["What is the largest AWS environment you have managed?", "How would you migrate a live app with zero downtime?"],
  },
  {
    key: "uiux",
    group: DESIGN,
    category: ["Product Design", "product-design"],
    occupation: "UX/UI Design",
    weight: 5,
    tech: false,
    hourly: [25, 80],
    fixed: [300, 5000],
    skills: ["Figma", "UI/UX Design", "User Interface Design", "Prototyping", "Web Design", "Mobile App Design"],
    products: ["SaaS dashboard", "mobile app", "onboarding flow", "design system", "checkout experience"],
    titles: [
      "UI/UX designer for our {product}",
      "Figma designer to redesign our {product}",
      "Product designer to create a {product} in Figma",
      "UX audit of our {product}",
    ],
    problems: [
      "Users sign up for our product but many give up during the {product}. We want a designer to find out why and propose a simpler experience.",
      "We are building a new {product} and need high-fidelity screens in {skill} that our developers can implement without guessing.",
    ],
    tasks: [
      "Review the current {product} and map user flows",
      "Create wireframes and clickable prototypes in {skill}",
      "Design high-fidelity screens for desktop and mobile",
      "Build a component library",
      "Run quick usability tests",
    ],
    deliverables: ["A well-organised Figma file with components", "A clickable prototype", "Handoff notes for developers"],
    extras: ["Experience designing for B2B SaaS", "Illustration or motion skills", "Basic front-end knowledge"],
    questions: ["Share two case studies that show your process, not only the final screens."],
  },
  {
    key: "logo",
    group: DESIGN,
    category: ["Branding & Logo Design", "branding-logo-design"],
    occupation: "Brand Identity Design",
    weight: 4,
    tech: false,
    hourly: [15, 50],
    fixed: [50, 1500],
    skills: ["Logo Design", "Brand Identity Design", "Adobe Illustrator", "Graphic Design", "Adobe Photoshop"],
    products: ["coffee brand", "tech startup", "bakery", "consulting firm", "fitness studio"],
    titles: [
      "Logo design for a new {product}",
      "Brand identity package for our {product}",
      "Graphic designer for logo refresh and brand guidelines",
      "Modern minimalist logo needed",
    ],
    problems: [
      "We are opening a {product} and need a logo and a simple visual identity that works on signage, packaging and social media.",
      "Our {product} has used the same logo for ten years. We want a refresh that keeps some recognition but feels modern.",
    ],
    tasks: [
      "Present three initial logo concepts",
      "Refine the chosen concept",
      "Define colours and typography",
      "Prepare files for print and web",
      "Create a one-page brand guide",
    ],
    deliverables: ["Vector files (AI, SVG, PDF) and PNGs", "A brand guidelines PDF", "Social media profile images"],
    extras: ["Packaging design experience", "Hand lettering", "Experience with brand strategy"],
    questions: ["Link your portfolio with at least three logo projects."],
  },
  {
    key: "video",
    group: DESIGN,
    category: ["Video & Animation", "video-animation"],
    occupation: "Video Editing",
    weight: 4,
    tech: false,
    hourly: [15, 50],
    fixed: [50, 2000],
    skills: ["Video Editing", "Adobe Premiere Pro", "After Effects", "DaVinci Resolve", "YouTube", "Motion Graphics"],
    products: ["YouTube channel", "product launch video", "podcast clips", "online course", "TikTok and Reels content"],
    titles: [
      "Video editor for our {product}",
      "Edit weekly videos for a {product}",
      "Motion graphics for a {product}",
      "Short-form video editor (Reels, TikTok, Shorts)",
    ],
    problems: [
      "We publish two long-form videos a week on our {product} and need an editor who can keep the pace up without losing quality.",
      "We recorded raw footage for our {product} and need it cut into an engaging story with captions, music and simple animations.",
    ],
    tasks: [
      "Edit raw footage in Premiere Pro or DaVinci Resolve",
      "Add captions, music and sound design",
      "Create simple motion graphics and lower thirds",
      "Colour correct footage",
      "Export versions for each platform",
    ],
    deliverables: ["Final videos in 4K and vertical versions", "Project files", "Thumbnails for each video"],
    extras: ["Experience growing a YouTube channel", "Thumbnail design skills", "Animation skills"],
    questions: ["Share two videos you edited that are similar in style to what we need."],
  },
  {
    key: "writing",
    group: ["Writing", "writing"],
    category: ["Content Writing", "content-writing"],
    occupation: "Content Writing",
    weight: 5,
    tech: false,
    hourly: [15, 60],
    fixed: [50, 1500],
    skills: ["Content Writing", "Copywriting", "Blog Writing", "SEO Writing", "Article Writing", "Proofreading"],
    products: ["B2B SaaS blog", "product descriptions", "email newsletter", "case studies", "website copy"],
    titles: [
      "Content writer for our {product}",
      "Copywriter to rewrite our {product}",
      "Long-form blog writer (SEO) for a tech company",
      "Ghostwriter for LinkedIn posts and newsletter",
    ],
    problems: [
      "Our {product} has not been updated in months and organic traffic is flat. We need a writer who can research topics properly and write in a clear, friendly voice.",
      "We want our {product} to sound less like a brochure and more like a person talking. Conversions are going down and we think the copy is part of the problem.",
    ],
    tasks: [
      "Write {n} well-researched articles per month",
      "Interview our team for expert quotes",
      "Optimise articles for target keywords",
      "Edit and proofread existing content",
      "Suggest new topics based on search data",
    ],
    deliverables: ["Drafts in Google Docs", "Meta titles and descriptions", "A monthly content calendar"],
    extras: ["Experience writing for developers", "Knowledge of Surfer or Clearscope", "Basic WordPress skills"],
    questions: ["Please share two writing samples that are not AI-generated.", "Which topics do you know well enough to write about without much research?"],
  },
  {
    key: "translation",
    group: ["Translation", "translation"],
    category: ["Translation & Localization Services", "translation-localization-services"],
    occupation: "Translation",
    weight: 3,
    tech: false,
    hourly: [15, 45],
    fixed: [50, 2000],
    skills: ["Translation", "English", "Spanish", "German", "French", "Localization", "Proofreading"],
    products: ["user manual", "mobile app strings", "marketing website", "legal contract", "e-learning course"],
    titles: [
      "English to Spanish translator for our {product}",
      "Native German speaker to localize {product}",
      "French translation and proofreading of {product}",
      "Translate {product} into several European languages",
    ],
    problems: [
      "We are expanding into new markets and need our {product} translated by a native speaker, not a machine. Tone and terminology matter a lot to us.",
      "Our {product} was machine-translated last year and customers noticed. We need a professional to review and fix it.",
    ],
    tasks: [
      "Translate about {n},000 words",
      "Keep terminology consistent with our glossary",
      "Proofread the final text in context",
      "Flag cultural issues",
      "Work in our translation tool (Crowdin or Lokalise)",
    ],
    deliverables: ["Translated files in the original format", "An updated glossary", "Notes on any unclear source text"],
    extras: ["Certified translator", "Experience with software localization", "Industry-specific terminology"],
    questions: ["What is your native language, and which translation tools do you use?"],
  },
  {
    key: "seo",
    group: ["Sales & Marketing", "sales-marketing"],
    category: ["Digital Marketing", "digital-marketing"],
    occupation: "Search Engine Optimization",
    weight: 5,
    tech: false,
    hourly: [20, 70],
    fixed: [150, 3000],
    skills: [
      "SEO",
      "Search Engine Optimization",
      "Google Analytics",
      "Keyword Research",
      "On-Page SEO",
      "Link Building",
      "Google Ads",
      "Social Media Marketing",
    ],
    products: ["e-commerce site", "local business website", "SaaS website", "blog", "Google Ads account"],
    titles: [
      "SEO expert to grow organic traffic for our {product}",
      "Technical SEO audit for our {product}",
      "Google Ads specialist to manage campaigns",
      "Marketing consultant for a growing {product}",
    ],
    problems: [
      "Our {product} ranks on page two for most of the keywords that matter to us. We want an experienced specialist to find the quick wins and build a long-term plan.",
      "We spend a lot on paid ads and want to depend less on them. A good organic strategy for our {product} is the goal.",
    ],
    tasks: [
      "Run a technical audit and fix issues",
      "Do keyword research and map pages to keywords",
      "Improve on-page content and internal links",
      "Set up Google Analytics tracking",
      "Report progress every month",
    ],
    deliverables: ["An audit report with priorities", "A keyword map", "Monthly reports with rankings and traffic"],
    extras: ["Experience with Ahrefs or Semrush", "Local SEO experience", "Content strategy skills"],
    questions: ["Share a site whose traffic you grew, with before/after numbers."],
  },
  {
    key: "va",
    group: ["Admin Support", "admin-support"],
    category: ["Virtual Assistance", "virtual-assistance"],
    occupation: "Virtual Assistance",
    weight: 5,
    tech: false,
    hourly: [10, 25],
    fixed: [50, 800],
    skills: ["Virtual Assistance", "Data Entry", "Email Management", "Google Sheets", "Customer Service", "Calendar Management", "Microsoft Excel"],
    products: ["inbox", "CRM", "online store", "podcast", "real estate listings"],
    titles: [
      "Virtual assistant to manage our {product} and calendar",
      "Data entry assistant for {product}",
      "Part-time executive assistant for a busy founder",
      "Customer support assistant for our {product}",
    ],
    problems: [
      "I run a small business and spend too much of my day on admin. I need an organised assistant to take over our {product}, scheduling and routine follow-ups.",
      "We have a backlog of data entry for our {product} and need a careful, fast person to work through it over the next few weeks.",
    ],
    tasks: [
      "Manage the {product} and flag what needs my attention",
      "Schedule meetings across time zones",
      "Update records in Google Sheets or our CRM",
      "Answer routine customer emails",
      "Prepare simple weekly reports",
    ],
    deliverables: ["Daily summary of completed tasks", "Up-to-date spreadsheets", "Documented processes for recurring tasks"],
    extras: ["Experience with HubSpot or Salesforce", "Bookkeeping basics", "Social media scheduling"],
    questions: ["Which tools have you used as a virtual assistant?", "What hours (in your time zone) are you available?"],
  },
  {
    key: "go",
    group: DEV,
    category: ["Other - Software Development", "other-software-development"],
    occupation: "Back-End Development",
    weight: 2.5,
    tech: true,
    hourly: [40, 100],
    fixed: [800, 10000],
    skills: ["Go", "Golang", "gRPC", "PostgreSQL", "Microservices", "Redis", "Kafka"],
    products: ["event ingestion service", "billing microservice", "API gateway", "CLI tool", "real-time notification service"],
    titles: [
      "Go developer for a high-throughput {product}",
      "Golang engineer to build our {product}",
      "Senior Go backend developer (microservices)",
      "Rewrite Python service in Go",
    ],
    problems: [
      "Our {product} handles tens of thousands of events per second and the current Python version cannot keep up. We want it rewritten in {skill} with proper tests.",
      "We are building a new {product} as a set of small services that talk over gRPC. We need an experienced Go engineer to lay down the foundations.",
    ],
    tasks: [
      "Design and implement the service in {skill}",
      "Define protobuf contracts and gRPC endpoints",
      "Write table-driven tests and benchmarks",
      "Add tracing and metrics",
      "Containerise and deploy",
    ],
    deliverables: ["Service code with tests and benchmarks", "Dockerfile and deployment manifests", "Design notes"],
    extras: ["Kafka or NATS experience", "Kubernetes operators", "Open-source Go contributions"],
    questions: ["Link a Go project (open source or a code sample) you are proud of."],
  },
  {
    key: "rust",
    group: DEV,
    category: ["Other - Software Development", "other-software-development"],
    occupation: "Systems Programming",
    weight: 1.5,
    tech: true,
    hourly: [50, 130],
    fixed: [1000, 15000],
    skills: ["Rust", "Systems Programming", "WebAssembly", "Tokio", "Linux", "C++"],
    products: ["trading engine", "WebAssembly module", "embedded firmware", "high-performance parser", "blockchain indexer"],
    titles: ["Rust developer for a {product}", "Senior Rust engineer to optimise our {product}", "Port C++ library to Rust", "Rust + WebAssembly developer"],
    problems: [
      "We need a {product} where latency and memory safety both matter. We chose {skill} and need someone who writes idiomatic, well-tested async code.",
      "Our {product} is written in C++ and crashes occasionally in ways that are hard to reproduce. We want to port the core to {skill} step by step.",
    ],
    tasks: [
      "Implement the core in {skill}",
      "Use Tokio for async I/O where it fits",
      "Write property-based tests and fuzzing",
      "Profile and optimise hot paths",
      "Document the public API",
    ],
    deliverables: ["A crate with docs and tests", "Benchmarks against the current version", "CI configuration"],
    extras: ["Unsafe Rust and FFI experience", "Low-latency networking background", "Contributions to Rust crates"],
    questions: ["Which async runtime have you used in production Rust code, and what problems did you hit?"],
  },
  {
    key: "ai",
    group: DEV,
    category: ["AI Apps & Integration", "ai-apps-integration"],
    occupation: "AI Integration",
    weight: 6,
    tech: true,
    hourly: [40, 120],
    fixed: [500, 10000],
    skills: ["OpenAI API", "LLM", "LangChain", "Python", "Prompt Engineering", "RAG", "Vector Database", "ChatGPT"],
    products: ["customer support chatbot", "document Q&A assistant", "AI sales agent", "contract review tool", "content generation pipeline"],
    titles: [
      "AI engineer to build a {product} with LLMs",
      "Integrate the OpenAI API into our {product}",
      "RAG pipeline for our internal documents",
      "LLM developer to improve answer quality of our chatbot",
      "Build an AI agent that automates our workflow",
    ],
    problems: [
      "We want a {product} that answers questions using our own documents and help-center articles, with sources, and knows when to hand over to a human.",
      "We built a first {product} on the {skill} but answers are inconsistent and costs are higher than expected. We need someone who has shipped LLM features to real users.",
    ],
    tasks: [
      "Design the retrieval pipeline (chunking, embeddings, a vector database)",
      "Write and evaluate prompts",
      "Build an evaluation set and measure quality",
      "Integrate with our existing app via an API",
      "Add guardrails and cost monitoring",
    ],
    deliverables: ["Working code in our repository", "An evaluation report", "Documentation for prompts and configuration"],
    extras: ["Experience fine-tuning open models", "Knowledge of pgvector or Pinecone", "Front-end skills for a chat UI"],
    questions: [
      "Describe an LLM feature you shipped to production and how you measured its quality.",
      "How would you reduce hallucinations in a document assistant?",
    ],
  },
];

/** Client countries as the marketplace writes them, with ISO-3 codes (some sources print those instead). */
export interface Country {
  name: string;
  iso3: string;
  weight: number;
  /** [city, UTC offset in hours, time-zone label] */
  cities: [string, number, string][];
}

const ET = "Eastern Time (US & Canada)";
const CT = "Central Time (US & Canada)";
const MT = "Mountain Time (US & Canada)";
const PT = "Pacific Time (US & Canada)";
export const COUNTRIES: Country[] = [
  {
    name: "United States",
    iso3: "USA",
    weight: 40,
    cities: [
      ["New York", -5, ET],
      ["San Francisco", -8, PT],
      ["Austin", -6, CT],
      ["Miami", -5, ET],
      ["Chicago", -6, CT],
      ["Seattle", -8, PT],
      ["Denver", -7, MT],
      ["Boston", -5, ET],
      ["Los Angeles", -8, PT],
    ],
  },
  {
    name: "United Kingdom",
    iso3: "GBR",
    weight: 8,
    cities: [
      ["London", 0, "London"],
      ["Manchester", 0, "London"],
      ["Edinburgh", 0, "Edinburgh"],
      ["Bristol", 0, "London"],
    ],
  },
  {
    name: "Canada",
    iso3: "CAN",
    weight: 6,
    cities: [
      ["Toronto", -5, ET],
      ["Vancouver", -8, PT],
      ["Vaughan", -5, ET],
      ["Montreal", -5, ET],
      ["Calgary", -7, MT],
    ],
  },
  {
    name: "Australia",
    iso3: "AUS",
    weight: 5,
    cities: [
      ["Sydney", 10, "Sydney"],
      ["Melbourne", 10, "Melbourne"],
      ["Brisbane", 10, "Brisbane"],
      ["Perth", 8, "Perth"],
    ],
  },
  {
    name: "Germany",
    iso3: "DEU",
    weight: 4,
    cities: [
      ["Berlin", 1, "Berlin"],
      ["Munich", 1, "Berlin"],
      ["Hamburg", 1, "Berlin"],
    ],
  },
  {
    name: "India",
    iso3: "IND",
    weight: 3.5,
    cities: [
      ["Bengaluru", 5.5, "Chennai, Kolkata, Mumbai, New Delhi"],
      ["Mumbai", 5.5, "Chennai, Kolkata, Mumbai, New Delhi"],
      ["New Delhi", 5.5, "Chennai, Kolkata, Mumbai, New Delhi"],
    ],
  },
  {
    name: "Netherlands",
    iso3: "NLD",
    weight: 2.5,
    cities: [
      ["Amsterdam", 1, "Amsterdam"],
      ["Rotterdam", 1, "Amsterdam"],
      ["Utrecht", 1, "Amsterdam"],
    ],
  },
  {
    name: "France",
    iso3: "FRA",
    weight: 2.2,
    cities: [
      ["Paris", 1, "Paris"],
      ["Lyon", 1, "Paris"],
    ],
  },
  {
    name: "Israel",
    iso3: "ISR",
    weight: 2,
    cities: [
      ["Tel Aviv", 2, "Jerusalem"],
      ["Haifa", 2, "Jerusalem"],
    ],
  },
  {
    name: "United Arab Emirates",
    iso3: "ARE",
    weight: 2,
    cities: [
      ["Dubai", 4, "Abu Dhabi, Muscat"],
      ["Abu Dhabi", 4, "Abu Dhabi, Muscat"],
    ],
  },
  { name: "Singapore", iso3: "SGP", weight: 1.8, cities: [["Singapore", 8, "Singapore"]] },
  {
    name: "Switzerland",
    iso3: "CHE",
    weight: 1.5,
    cities: [
      ["Zurich", 1, "Bern"],
      ["Geneva", 1, "Bern"],
    ],
  },
  {
    name: "Ireland",
    iso3: "IRL",
    weight: 1.2,
    cities: [
      ["Dublin", 0, "Dublin"],
      ["Cork", 0, "Dublin"],
    ],
  },
  {
    name: "Spain",
    iso3: "ESP",
    weight: 1.2,
    cities: [
      ["Madrid", 1, "Madrid"],
      ["Barcelona", 1, "Madrid"],
    ],
  },
  {
    name: "Sweden",
    iso3: "SWE",
    weight: 1,
    cities: [
      ["Stockholm", 1, "Stockholm"],
      ["Gothenburg", 1, "Stockholm"],
    ],
  },
  {
    name: "Italy",
    iso3: "ITA",
    weight: 1,
    cities: [
      ["Milan", 1, "Rome"],
      ["Rome", 1, "Rome"],
    ],
  },
  {
    name: "Saudi Arabia",
    iso3: "SAU",
    weight: 1,
    cities: [
      ["Riyadh", 3, "Riyadh"],
      ["Jeddah", 3, "Riyadh"],
    ],
  },
  {
    name: "New Zealand",
    iso3: "NZL",
    weight: 0.9,
    cities: [
      ["Auckland", 12, "Auckland, Wellington"],
      ["Wellington", 12, "Auckland, Wellington"],
    ],
  },
  { name: "Denmark", iso3: "DNK", weight: 0.8, cities: [["Copenhagen", 1, "Copenhagen"]] },
  {
    name: "Poland",
    iso3: "POL",
    weight: 0.8,
    cities: [
      ["Warsaw", 1, "Warsaw"],
      ["Krakow", 1, "Warsaw"],
    ],
  },
  { name: "Hong Kong", iso3: "HKG", weight: 0.8, cities: [["Hong Kong", 8, "Hong Kong"]] },
  {
    name: "Brazil",
    iso3: "BRA",
    weight: 0.8,
    cities: [
      ["Sao Paulo", -3, "Brasilia"],
      ["Rio de Janeiro", -3, "Brasilia"],
    ],
  },
  { name: "Norway", iso3: "NOR", weight: 0.7, cities: [["Oslo", 1, "Oslo"]] },
  {
    name: "Belgium",
    iso3: "BEL",
    weight: 0.7,
    cities: [
      ["Brussels", 1, "Brussels"],
      ["Antwerp", 1, "Brussels"],
    ],
  },
  {
    name: "South Africa",
    iso3: "ZAF",
    weight: 0.7,
    cities: [
      ["Cape Town", 2, "Pretoria"],
      ["Johannesburg", 2, "Pretoria"],
    ],
  },
  { name: "Mexico", iso3: "MEX", weight: 0.7, cities: [["Mexico City", -6, "Guadalajara, Mexico City"]] },
  {
    name: "Pakistan",
    iso3: "PAK",
    weight: 0.6,
    cities: [
      ["Karachi", 5, "Islamabad, Karachi"],
      ["Lahore", 5, "Islamabad, Karachi"],
    ],
  },
  { name: "Japan", iso3: "JPN", weight: 0.6, cities: [["Tokyo", 9, "Osaka, Sapporo, Tokyo"]] },
  { name: "Austria", iso3: "AUT", weight: 0.6, cities: [["Vienna", 1, "Vienna"]] },
  {
    name: "Portugal",
    iso3: "PRT",
    weight: 0.6,
    cities: [
      ["Lisbon", 0, "Lisbon"],
      ["Porto", 0, "Lisbon"],
    ],
  },
  { name: "Qatar", iso3: "QAT", weight: 0.5, cities: [["Doha", 3, "Doha"]] },
  { name: "Nigeria", iso3: "NGA", weight: 0.5, cities: [["Lagos", 1, "West Central Africa"]] },
];

/** Company names are PREFIX + CORE + " " + KIND; the domain is the same words run together. */
export const NAME_PREFIX = [
  "North",
  "Blue",
  "Bright",
  "Silver",
  "Cedar",
  "Summit",
  "Harbor",
  "Pixel",
  "Iron",
  "Maple",
  "Clear",
  "Nova",
  "Atlas",
  "True",
  "Green",
  "Swift",
  "Lumen",
  "Oak",
  "Red",
  "Stone",
];
export const NAME_CORE = ["wind", "peak", "line", "field", "bridge", "path", "wave", "craft", "point", "stack", "forge", "leaf", "gate", "light", "works"];
export const NAME_KIND = [
  "Labs",
  "Digital",
  "Media",
  "Health",
  "Studio",
  "Group",
  "Partners",
  "Analytics",
  "Commerce",
  "Software",
  "Logistics",
  "Ventures",
  "Co",
  "Solutions",
  "Learning",
  "Realty",
];
export const DOMAIN_TLDS = [".com", ".com", ".com", ".io", ".co"];

/** [profile industry as the marketplace lists it, phrase used in job text] */
export const INDUSTRIES: [string, string][] = [
  ["Tech & IT", "software"],
  ["Marketing & Advertising", "marketing"],
  ["Retail & Consumer Goods", "e-commerce"],
  ["Health & Fitness", "health and fitness"],
  ["Real Estate", "real estate"],
  ["Education", "education"],
  ["Finance & Accounting", "fintech"],
  ["Media & Entertainment", "media"],
  ["Travel & Hospitality", "travel"],
  ["Manufacturing & Construction", "manufacturing"],
  ["Legal", "legal services"],
  ["Nonprofit", "nonprofit"],
  ["Food & Beverage", "food and beverage"],
  ["Logistics & Transportation", "logistics"],
];

export const FIRST_NAMES = [
  "David",
  "Maria",
  "Ahmed",
  "Olena",
  "Chen",
  "Priya",
  "Lucas",
  "Fatima",
  "Ivan",
  "Sofia",
  "Kwame",
  "Hana",
  "Diego",
  "Aisha",
  "Tomasz",
  "Mei",
  "Rahul",
  "Elena",
  "Joseph",
  "Nadia",
];
export const CONTACT_NAMES = ["anna", "mark", "sarah", "tom", "lisa", "james", "emma", "daniel", "team", "careers"];
export const CODEWORDS = ["pineapple", "blue lagoon", "orbit", "maple syrup", "lighthouse", "pepper"];

export const INTROS = [
  "{company} is a {size} {industry} company based in {city}, {country}.",
  "We're a {industry} team of about {team} people, working mostly remotely out of {city}.",
  "Hi! I run a {industry} business in {city} and I'm looking for help with a project that has been on my list for a while.",
  "We are {company}, a {industry} company serving customers across {countryIn} and beyond.",
  "Hello, and thanks for taking the time to read this post.",
];
export const SCOPE_HEADINGS = ["What you'll do:", "Scope of work:", "Responsibilities:", "What we need:", "The work:"];
export const REQUIREMENT_HEADINGS = ["Requirements:", "What we're looking for:", "Must have:", "About you:"];
export const DELIVERABLE_HEADINGS = ["Deliverables:", "What we expect at the end:", "Expected output:"];
export const EXTRA_HEADINGS = ["Nice to have:", "Bonus points:", "Pluses:"];

export const REQUIREMENTS_ANY = [
  "Strong written English; most of our communication is async in Slack",
  "A portfolio or links to similar work",
  "Good communication and regular progress updates",
  "At least {overlap} hours of overlap with {city} business hours",
  "Ability to work independently and ask questions early",
];
export const REQUIREMENTS_TECH = [
  "{years}+ years of professional experience with {skill}",
  "Comfortable with Git, pull requests and code review",
  "Solid understanding of {skill2}",
  "Experience writing automated tests",
];
export const REQUIREMENTS_OTHER = [
  "{years}+ years of experience in a similar role",
  "Proven experience with {skill} and {skill2}",
  "Attention to detail and the ability to follow a brief",
];

export const BUDGET_LINES_HOURLY = [
  "We expect roughly {hours} hours per week to start with.",
  "Please quote your hourly rate; we are flexible for the right person.",
  "This is an hourly contract with weekly time tracking.",
];
export const BUDGET_LINES_FIXED = [
  "The budget is fixed for the first milestone; more milestones will follow if it goes well.",
  "Please include a rough timeline and a fixed quote in your proposal.",
  "We will pay per milestone on delivery.",
];
export const TIMELINE_LINES = [
  "We'd like to get going within the next week.",
  "Ideally the first version is ready in {weeks} weeks.",
  "There's no hard deadline, but we want steady progress.",
  "We need this wrapped up quickly, so please only apply if you can start right away.",
];
export const CLOSINGS = [
  "To apply, tell us briefly about a similar project you delivered and what you would do differently now.",
  'Please start your proposal with the words "{codeword}" so we know you read the whole post.',
  "We're going to review proposals over the next few days and talk to a short list.",
  "If this goes well there is plenty of ongoing work for the right freelancer.",
  "Trust and clear communication matter more to us than the lowest price.",
  "Generic copy-paste proposals will be ignored.",
  "Looking forward to working with you!",
];
export const EMAIL_LINES = [
  "Send samples to hiring@{domain} and mention this post.",
  "You can also email questions to {contact}@{domain} before applying.",
  "Please send a short CV to jobs@{domain} as well.",
  "Portfolio links can go to {contact}@{domain}.",
];

export const GENERIC_QUESTIONS = [
  "Describe your recent experience with similar projects",
  "How soon could you start?",
  "What is your availability (hours per week) for this project?",
  "Please share links to 2-3 relevant samples of your work.",
  "What questions do you have about the project?",
  "What would your estimated timeline be for the first milestone?",
];

export const FEEDBACK_TO_FREELANCER = [
  "Great work, delivered on time and communicated clearly.",
  "Very professional, would hire again.",
  "Solid job; a few revisions were needed but the result is good.",
  "Excellent skills and fast turnaround.",
  "Did what was asked, though deadlines slipped a little.",
];
export const FEEDBACK_TO_CLIENT = [
  "Clear requirements and quick payments. Highly recommended client.",
  "Great client to work with, very responsive.",
  "Requirements changed a few times but overall a good experience.",
  "A pleasure to work with; looking forward to the next project.",
];
