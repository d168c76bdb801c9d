/**
 * Technical screening questions the local writer can answer on substance ("How would you handle rate
 * limits when scraping?"): a question that matches a topic gets that topic's answer, the practice a careful
 * freelancer would describe. Answers are plans ("I'd …"), name no tool the job or profile does not (the
 * claim check holds a planned technology to those) and no numbers, so they fit any job the question comes with.
 */
import type { AnswerSlots } from "./local-writer-phrases";

export interface Topic {
  name: string;
  test: RegExp;
  answer: (s: AnswerSlots) => string;
}

/** Most specific first: a question about API errors that mentions slowness is about errors, not page speed. */
export const TOPICS: Topic[] = [
  {
    name: "rate limits",
    test: /\brate[- ]?limit|\bthrottl|\b(?:get(?:ting)?|being) (?:blocked|banned)|\bcaptchas?\b|\bip bans?\b|\banti-?bot/i,
    answer: () =>
      "For rate limits, I'd throttle requests per site with a randomised delay, back off and retry when a site answers with an error or a 'too many requests' status, and skip pages that have not changed since the last run. I'd log every retry, so you can see early if a site starts pushing back.",
  },
  {
    name: "duplicates",
    test: /\bduplicat|\bde-?dup/i,
    answer: () =>
      "To avoid duplicates, I'd give every record a stable key, such as the listing's own ID or its address, and check it before saving, so a daily run updates existing rows instead of adding new ones. I'd also keep the date each record was first and last seen, which makes removed listings easy to spot.",
  },
  {
    name: "layout changes",
    test: /\b(?:layout|structure|html|markup|selectors?)\b[^?]*\bchang|\bchang\w*\b[^?]*\b(?:layout|structure|html|markup)\b|\bbreak\w*\b[^?]*\b(?:site|page)s?\b[^?]*\bchang/i,
    answer: () =>
      "I'd keep each site's selectors in one place and check every run against a few fields that must always be there, so a run that suddenly finds no prices or addresses sends an alert instead of silently saving empty rows. When a page layout changes, only that site's selectors need updating.",
  },
  {
    name: "state management",
    test: /\bstate[- ]management\b|\bmanag\w* (?:the )?state\b|\bglobal state\b|\bredux\b|\bzustand\b|\bmobx\b/i,
    answer: () =>
      "In a large app I'd keep server data in a data-fetching layer with caching rather than a global store, keep state local to the component that owns it wherever possible, and reserve a small global store for what is truly shared, such as the signed-in user and active filters. That keeps components easy to test and stops one change from re-rendering the whole app.",
  },
  {
    name: "API errors",
    test: /\b(?:api|request|network|server|backend)s?\b[^?]*\b(?:errors?|fail\w*|timeouts?|slow|down)\b|\berrors?\b[^?]*\b(?:api|requests?|ui|interface|loading)\b|\bloading states?\b/i,
    answer: () =>
      "Every request would get three states in the interface: loading, shown after a short delay so fast calls don't flicker; an error, with a clear message and a retry button; and the data itself. Slow calls get a timeout and a retry with back-off, and errors are logged, so we can see which endpoints fail and how often.",
  },
  {
    name: "database migration",
    test: /\bdowntime\b|\bmigrat\w*\b[^?]*\b(?:database|data|db)\b|\b(?:database|db)\b[^?]*\bmigrat/i,
    answer: () =>
      "I'd copy the database to the new server ahead of time and keep it in sync with the old one, rehearse the switch on a staging copy with a fresh backup in hand, then cut over in a short, agreed window and point the services at the new database. The old database stays untouched until you're happy, so switching back is always possible.",
  },
  {
    name: "secrets",
    test: /\bsecrets?\b|\bcredentials?\b|\bapi keys?\b|\benv(?:ironment)? (?:variables?|vars?)\b/i,
    answer: () =>
      "I'd keep secrets out of the code and the repository entirely: they live in the pipeline's encrypted secret store or the cloud provider's secret manager, reach each environment at deploy time, and each service gets access only to what it needs. Keys get rotated whenever someone leaves or anything may have leaked.",
  },
  {
    name: "page speed",
    test: /\bpage ?speed\b|\bload(?:ing)? (?:times?|speed)\b|\bweb vitals\b|\bspeed score\b|\bsite speed\b|\bperformance\b|\bfaster\b/i,
    answer: () =>
      "I'd measure first, on a real phone as well as with a lab test, then work from the biggest wins down: compress and lazy-load images, defer or remove scripts that block rendering, and drop the apps or plugins that load code on every page. I'd measure again after each change, so you can see what each one bought.",
  },
  {
    name: "security",
    test: /\bsecur(?:e|ity)\b|\bvulnerab|\bhack(?:ed|ers?)?\b|\bsafe(?:ly)?\b[^?]*\b(?:data|payments?)\b/i,
    answer: () =>
      "To keep it secure, I'd keep anything sensitive on the server side: card details go straight to the payment provider and never touch the app or your database, the app holds only short-lived tokens, and every request is checked on the server for who is asking, with inputs validated there too. Dependencies stay up to date, and secrets stay out of the code.",
  },
  {
    name: "mobile layout",
    test: /\bresponsive\b|\bmobile[- ]friendly\b|\bbreakpoints?\b|\b(?:on|for) (?:mobile|phones?|tablets?|small screens)\b/i,
    answer: () =>
      "I'd fix the layout at the common screen widths, starting with the pages that get the most visits, and test on real phones as well as in the browser's device view, since menus, forms and images are where mobile layouts tend to break.",
  },
  {
    name: "small sizes",
    test: /\bsmall (?:sizes?|scale)\b|\bfavicons?\b|\blegib|\bscal(?:e|es|ing) down\b/i,
    answer: () =>
      "I'd check every concept at favicon and social-avatar size and in a single colour from the first round, and simplify detail that fills in when small, such as thin lines and tight lettering. Where it helps, I'd add a simplified mark for small uses alongside the full logo.",
  },
  {
    name: "email delivery",
    test: /\b(?:e-?mails?|mail)\b[^?]*\b(?:send\w*|deliver\w*|arriv\w*|stopp\w*|spam|not)\b|\bcontact form\b/i,
    answer: () =>
      "I'd first check whether the form still submits, then look at the site's mail log and the form plugin's settings, since after an update the usual cause is mail sent without a proper mail server or sender address. Routing mail through an authenticated SMTP service with correct sender records normally fixes it for good.",
  },
  {
    name: "search engines",
    test: /\bseo\b|\bsearch engines?\b|\brank(?:ing)? (?:on|in) google\b/i,
    answer: () =>
      "I'd start with the technical basics: fast pages, a clear title and description for each page, proper headings, a sitemap, and redirects for any changed addresses, so nothing you rank for today is lost. After that come content and internal links for the searches your customers actually make.",
  },
  {
    name: "testing",
    test: /^(?![^?]*\btools?\b)[^?]*\b(?:how|approach|strategy|process|ensure|make sure)\b[^?]*\btest(?:s|ing)?\b/i,
    answer: () =>
      "I'd cover the logic that matters most with unit tests, add integration tests where parts of the system meet, such as the API calls, and keep a few end-to-end checks for the main user flows. Each change gets tested before it reaches you, so you're reviewing results rather than hunting for bugs.",
  },
  {
    name: "communication",
    test: /\bcommunicat\w*\b|\bhow often\b[^?]*\b(?:update|hear|report)|\b(?:progress|status) (?:updates?|reports?)\b|\bkeep (?:me|us) (?:updated|posted|informed)\b/i,
    answer: (s) =>
      `You'd get a short written update at the end of each working day on ${s.topic}: what's done, what's next and anything I need from you. For decisions that need a conversation, I'm happy to set up a quick call.`,
  },
];
