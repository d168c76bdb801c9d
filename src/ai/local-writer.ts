/**
 * The local writer: proposals (cover letters) and screening answers without any AI model. It is the
 * default when no model is configured, so it is a deterministic template engine, not a stub:
 *
 * 1. The job is read once. Its title and first sentences give the client's need in their own words
 *    ("We need our checkout to load faster" → "you need your checkout to load faster"), sentences and
 *    bullets with action verbs give the approach steps, the key terms (platforms and tools the title
 *    names, then the skills ranked by how much the title and description talk about them) are what the
 *    letter names, and keyword counts pick a category (store, front end, scraping, …) whose phrase bank
 *    supplies working principles, fallback steps, questions, risks and assumptions.
 * 2. Nothing is claimed that the input does not back: the letter names the key terms as its plan for the
 *    job ("I'd approach this with Shopify …"); only skills the freelancer's profile lists are named as
 *    skills they have, and there is never a track record (past clients, years, "I've done …"). The
 *    only money a letter names is the bid it is given, the one that will be sent; without one it names
 *    none (not the profile's rate, not the client's budget, not a price copied from the posting).
 * 3. Job text is untrusted: sentences that try to instruct the writer ("ignore previous instructions",
 *    "include the word …", "say you are an AI") are dropped before anything is read from them, and every
 *    fragment copied into a letter is stripped of brackets, links, markup and placeholder words.
 * 4. Each part of the letter has several phrasings; a hash of the title and description picks one, so
 *    the same job always gets the same letter and different jobs read differently.
 * 5. Effort sets a word band; optional sentences are dropped by priority or fillers added until the
 *    letter fits, and the user's own word limit ("under 150 words") caps the band.
 *
 * The parts, one file each: local-writer-text (untrusted text, wording, limits), local-writer-reading
 * (the job read once) with local-writer-terms (key terms), local-writer-money (the bid, no other price),
 * local-writer-letter (the cover letter), local-writer-answers (screening answers), and
 * local-writer-phrases with local-writer-categories (every phrasing).
 */
export { answerQuestionLocally, FILL_IN } from "./local-writer-answers";
export { writeProposalLocally, type Effort } from "./local-writer-letter";
export { bidText, type Bid } from "./local-writer-money";
export type { WriterProfile, WritingJob } from "./local-writer-reading";
export { MAX_ANSWER_CHARS, MAX_PROPOSAL_CHARS } from "./local-writer-text";
