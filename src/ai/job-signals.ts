/**
 * Signs in a job's own text that it is not real work: asks to move off the platform (messaging apps, e-mail,
 * phone), money before work, unpaid "test tasks", renting an account, fake reviews, fraud, easy-money bait,
 * requests for personal data (ID scans, bank logins, SSN), payment in crypto or by cheque, and posts that are only
 * a pile of keywords. The local scorer damps such a job whatever it matches, so keyword-stuffed spam cannot win. Each rule
 * is a pattern with a reason; the tests hold each one to an example and to a benign look-alike that must not trip it.
 */

export interface JobSignal {
  id: string;
  /** Why, in a few words a reason can show. */
  say: string;
}

interface Rule extends JobSignal {
  pattern: RegExp;
  /** Words one of which any match contains: the pattern runs only on text that has one (most jobs have none). */
  needles: string[];
}

const APPS = "telegram|whatsapp|whats app|signal|wechat|skype|discord|viber|line app";

const RULES: Rule[] = [
  {
    id: "off-platform",
    say: "asks to talk off the platform",
    needles: [
      "telegram",
      "whatsapp",
      "whats app",
      "signal",
      "wechat",
      "skype",
      "discord",
      "viber",
      "line app",
      "reply here",
      "off platform",
      "off-platform",
      "not checked",
      "t check",
    ],
    pattern: new RegExp(
      [
        `\\b(?:contact|message|text|dm|add|reach|ping|write to|talk to|send (?:it|them|your \\w+|the \\w+|results?)(?: \\w+){0,3} to)\\s+(?:me|us|our \\w+|my \\w+)?\\s*(?:directly\\s+)?(?:on|via|at|through|in)\\s+(?:my\\s+|our\\s+)?(?:${APPS})\\b`,
        `\\b(?:${APPS})\\s*(?:only|@\\w+|\\+\\d)`,
        `\\bmy (?:${APPS})\\b`,
        `\\b(?:${APPS})\\s+(?:number|id|handle)\\b`,
        "\\b(?:do not|don['’]?t) reply here\\b",
        "\\boff[- ]platform\\b",
        "\\bmessages (?:here )?are not checked\\b",
        "\\bi don['’]?t check (?:messages|upwork)\\b",
      ].join("|"),
    ),
  },
  {
    id: "pay-to-start",
    say: "asks for money before work",
    needles: [" fee", "buy", "purchase", "pay for", "pay a ", "refund", "gift card"],
    pattern:
      /\b(?:pay|paying|must pay|need to pay|required|requires)\b[^.]{0,40}\b(?:registration|onboarding|verification|membership|joining|application|certification|training|activation|access) fee\b|\b(?:registration|onboarding|verification|membership|joining|certification|training|activation|access) fee\b[^.]{0,40}\b(?:required|to start|to join|to access|to get access|before|refund)|\$\d+ (?:registration|onboarding|verification|membership|joining|certification|training|activation|access) fee\b|\b(?:buy|purchase|pay for) (?:our |the |a )?(?:official )?(?:\w+ ){0,2}(?:license|licence|kit|software|course|certification|membership)\b[^.]{0,60}\b(?:before|to start|to join|first|refund)|\b(?:must|need to|have to) (?:first )?(?:buy|purchase|pay for)\b|\bpay a (?:one[- ]time|small|refundable)\b|\brefund(?:ed|able) (?:after|with) (?:your |the )?first\b|\bgift cards?\b/,
  },
  {
    id: "unpaid-test",
    say: "wants an unpaid test task",
    needles: ["unpaid", "free test", "free trial", "free sample", "free spec"],
    pattern:
      /\b(?:unpaid|free) (?:test|trial|sample|spec) (?:task|project|work|assignment)?|\btest (?:task |project |assignment )?is unpaid\b|\btest (?:task|project|assignment)\b[^.]{0,60}\bunpaid\b|\(unpaid\)|\bunpaid\b[^.]{0,40}\btest\b/,
  },
  {
    id: "account-rental",
    say: "wants to rent or use your account",
    needles: ["account", "you do nothing"],
    pattern:
      /\b(?:rent|renting|borrow|share|sharing|buy)\b[^.]{0,30}\b(?:your |an? |the )?(?:verified |freelancer |upwork |old |aged )*accounts?\b|\b(?:use|through) your (?:\w+ )?account\b[^.]{0,80}(?:%|earn|passive|you do nothing|keep \d)|\baccount sharing\b|\byou do nothing\b/,
  },
  {
    id: "fake-reviews",
    say: "asks for reviews",
    needles: ["review"],
    pattern:
      /\b(?:leave|write|post|give)\s+(?:us\s+)?(?:\d+ )?(?:positive |5[- ]star |five[- ]star |fake |honest )?reviews?\b|\bper review\b|\b5[- ]star reviews?\b/,
  },
  {
    id: "fraud",
    say: "describes fraud",
    needles: ["kyc", "fake", "generated documents", "antidetect", "bot farm", "airdrop", "carding", "mule", "stolen", "phishing"],
    pattern:
      /\b(?:bypass(?:ing)? kyc|kyc bypass|fake (?:id|ids|documents|identity)|generated documents|antidetect|bot farm|airdrop farming|carding|money mule|stolen|phishing page)\b/,
  },
  {
    id: "easy-money",
    say: "promises easy money",
    needles: [
      "easy money",
      "passive income",
      "quick and easy",
      "earn ",
      "guaranteed ",
      "no experience",
      "paid in ",
      "will be worth",
      " spot",
      "limited spots",
      "limited seats",
    ],
    pattern:
      /\b(?:easy money|passive income|quick and easy|earn \$?\d[\d,]*(?:\/\w+)? (?:from home|guaranteed|per day easily)|guaranteed (?:income|projects|earnings|\d+\+? projects)|no experience (?:needed|required)[^.]{0,40}(?:earn|money|\$)|paid in (?:our|a new) token|will be worth \d+x|only \d+ spots? left|limited (?:spots|seats))\b/,
  },
  {
    id: "personal-data",
    say: "asks for your ID, bank login or SSN",
    needles: ["passport", "ssn", "social security", "your bank", "your online bank", "your paypal", "driver", "id card", "national id", "your id", "selfie"],
    // "Your" is what tells a request from the work: building a passport-scan upload or a bank-login flow is a job.
    pattern:
      /\b(?:send|provide|share|upload|need|require|requires|attach|submit|give)\b[^.]{0,30}\b(?:copy|scan|photo|picture|image)s? of your (?:\w+ )?(?:id|passport|driver['’]?s? licen[cs]e|national id|id card)\b|\bselfie (?:with|holding) your (?:id|passport)\b|\byour (?:online )?(?:bank(?:ing)?|paypal) (?:login|password|credentials|username and password)\b|\b(?:your )?social security number\b|\byour ssn\b|\bssn (?:required|needed|is required)\b/,
  },
  {
    id: "crypto-or-cheque",
    say: "pays in crypto or by cheque",
    needles: [
      "paid in",
      "paid with",
      "paid via",
      "paid through",
      "paid using",
      "pay you",
      "payment for",
      "payment is",
      "payment will",
      "a check",
      "the check",
      "this check",
      "our check",
      "my check",
      "check,",
      "cheque",
    ],
    // The payment to the freelancer, not a feature: "accept payments in USDT" is work, "you will be paid in USDT" is not.
    pattern:
      /\b(?:you(?:['’]ll| will)? (?:be |get )?paid|we(?:['’]ll| will)? pay you|i(?:['’]ll| will)? pay you|payment (?:for (?:this|the) (?:job|work|task|project) )?(?:is|will be) (?:made |sent )?)\s*(?:in|with|via|through|using) (?:crypto(?:currency)?|usdt|usdc|btc|bitcoin|eth|ethereum|tether|binance pay)\b|\b(?:send|mail|give|post) you a (?:check|cheque)\b|\bdeposit (?:the|this|our|my) (?:check|cheque)\b|\bcash (?:the|this|our|my) (?:check|cheque)\b|\b(?:check|cheque),? (?:and )?you deposit\b/,
  },
  {
    id: "email-phone",
    say: "asks to e-mail or phone off the platform",
    needles: [
      "mail me",
      "mail us",
      "@",
      "call me",
      "call us",
      "text me",
      "text us",
      "phone me",
      "phone us",
      "ring me",
      "sms me",
      "my phone",
      "our phone",
      "my cell",
      "my mobile",
      "our mobile",
    ],
    pattern:
      /\be-?mail (?:me|us) (?:at|on|directly|your)\b|\b(?:contact|reach|write to|message) (?:me|us) (?:directly )?(?:at|on|via) [\w.+-]+@[\w-]+\.|\b(?:call|text|phone|ring|sms) (?:me|us) (?:directly )?(?:at|on)\s*:?\s*\+?\d|\b(?:my|our) (?:phone|cell|mobile)(?: number)?(?: is)?\s*:?\s*\+?\d[\d ().-]{6,}\d/,
  },
];

/**
 * Each needle with the rules it is a needle of (a bit each): most jobs contain none, and looking for each with
 * `includes` is several times faster than one regular expression of them all (a long alternation is tried at
 * every position of the text). One pass over the needles tells which rules to try; a needle whose rules are all
 * to be tried already is skipped.
 */
const NEEDLES: [needle: string, rules: number][] = [
  ...RULES.reduce((m, r, i) => {
    for (const n of r.needles) m.set(n, (m.get(n) ?? 0) | (1 << i));
    return m;
  }, new Map<string, number>()),
];

/** The rules a job's text trips, in table order. */
export function scamSignals(job: { title: string; description: string }): JobSignal[] {
  // One lower-cased string with single spaces: the patterns are written with plain spaces between words.
  const text = `${job.title ?? ""} . ${job.description ?? ""}`
    .slice(0, 20_000)
    .toLowerCase()
    .replace(/\s{2,}|[^\S ]/g, " ");
  let toTry = 0;
  for (const [needle, rules] of NEEDLES) if ((toTry & rules) !== rules && text.includes(needle)) toTry |= rules;
  if (toTry === 0) return [];
  return RULES.filter((r, i) => (toTry & (1 << i)) !== 0 && r.pattern.test(text)).map(({ id, say }) => ({ id, say }));
}

/**
 * Keyword stuffing: a title that is a list of technologies ("React TypeScript Next.js Redux … Expert!!!"), or a
 * description where technology names crowd out the words that would say what the work is.
 */
export function keywordStuffed(job: { title: string }, mentions: { title: number; description: { total: number; distinct: number; words: number } }): boolean {
  const title = typeof job.title === "string" ? job.title : "";
  // A real title names what is to be done and a few tools; a pile names six or more, or shouts ("Expert!!!", "Ninja").
  if (mentions.title >= 6) return true;
  if (mentions.title >= 3 && (/!{2,}|\b(?:guru|ninja|rockstar|wizard)\b/i.test(title) || /\b(?:URGENT|ASAP|NOW)\b/.test(title))) return true;
  const { words } = mentions.description;
  if (words < 12) return false;
  // A real post names a few tools among many words; a stuffed one lists many different ones and little else.
  return mentions.description.distinct >= 8 && mentions.description.total * 3 >= words;
}
