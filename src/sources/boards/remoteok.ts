/**
 * Remote OK (https://remoteok.com/api): one JSON array with the newest ~100
 * jobs, no paging. Element 0 is the legal notice (`{legal, last_updated}`),
 * not a job. Terms: send a User-Agent, link back to the job with a normal
 * link and credit "Remote OK" — every document keeps the job URL and ends
 * with "Source: Remote OK — <url>".
 */
import type { JobDocument } from "../document";
import type { JobSource, PollContext, PollResult } from "../source";
import { boardDocument, describeJob, inlineText, mailtoAddress, singleCountry } from "./html";
import { intervalOf, joinUrl, pollJson, uniqueDocuments } from "./http";

export const REMOTEOK_NAME = "remoteok";
const BOARD = "Remote OK";
const DEFAULT_BASE_URL = "https://remoteok.com";
const DEFAULT_INTERVAL_MS = 60 * 60_000;
const MIN_INTERVAL_MS = 5 * 60_000;

type Raw = Record<string, unknown>;

export function createRemoteOkSource(opts: { baseUrl?: string; intervalMs?: number; userAgent?: string } = {}): JobSource {
  const url = joinUrl(opts.baseUrl ?? DEFAULT_BASE_URL, "/api");
  return {
    name: REMOTEOK_NAME,
    intervalMs: intervalOf(opts.intervalMs, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS),
    async poll(ctx: PollContext): Promise<PollResult> {
      const got = await pollJson(ctx, REMOTEOK_NAME, url, opts.userAgent);
      if ("result" in got) return got.result;
      const body = got.body;
      if (!Array.isArray(body)) throw new Error(`${REMOTEOK_NAME}: expected a JSON array from ${url}, got ${typeof body}`);
      const docs = uniqueDocuments(body, toDocument);
      ctx.log.debug("remoteok polled", { items: body.length, docs: docs.length });
      return { docs, state: got.state };
    },
  };
}

/** One element of the API array → a web job document; null for the legal notice and items without an id or title. */
export function toDocument(raw: unknown): JobDocument | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const r = raw as Raw;
  if ("legal" in r) return null;
  const rawId = typeof r.id === "number" && Number.isSafeInteger(r.id) ? String(r.id) : typeof r.id === "string" ? r.id.trim() : "";
  const title = inlineText(r.position);
  if (rawId === "" || title === "") return null;

  const url = httpUrl(r.url) ?? `https://remoteok.com/remote-jobs/${encodeURIComponent(rawId)}`;
  const company = inlineText(r.company);
  const location = inlineText(r.location);
  const applyUrl = httpUrl(r.apply_url);
  const contactEmail = mailtoAddress(r.apply_url);
  return boardDocument({
    source: REMOTEOK_NAME,
    key: rawId,
    url,
    title,
    description: describeJob({
      html: typeof r.description === "string" ? r.description : "",
      details: [
        company && `Company: ${company}`,
        location && `Location: ${location}`,
        salaryLine(r.salary_min, r.salary_max),
        applyUrl && applyUrl !== url && `Apply: ${applyUrl}`,
        contactEmail && `Apply by e-mail: ${contactEmail}`,
      ],
      boardName: BOARD,
      url,
    }),
    tags: r.tags,
    publishTime: publishTimeOf(r.date, r.epoch),
    company,
    country: singleCountry(location),
    location,
    contactEmail,
  });
}

function httpUrl(v: unknown): string | undefined {
  return typeof v === "string" && /^https?:\/\//i.test(v.trim()) ? v.trim() : undefined;
}

/** ISO date first, else the epoch seconds. */
function publishTimeOf(date: unknown, epoch: unknown): string | undefined {
  if (typeof date === "string" && Number.isFinite(Date.parse(date))) return new Date(Date.parse(date)).toISOString();
  if (typeof epoch === "number" && Number.isFinite(epoch) && epoch > 0) return new Date(epoch * 1000).toISOString();
  return undefined;
}

/** Remote OK uses 0 for "not given". */
function salaryLine(min: unknown, max: unknown): string | undefined {
  const lo = typeof min === "number" && min > 0 ? min : null;
  const hi = typeof max === "number" && max > 0 ? max : null;
  const fmt = (n: number) => `$${n.toLocaleString("en-US")}`;
  if (lo !== null && hi !== null) return `Salary: ${fmt(lo)}–${fmt(hi)} a year`;
  if (lo !== null || hi !== null) return `Salary: ${fmt((lo ?? hi)!)} a year`;
  return undefined;
}
