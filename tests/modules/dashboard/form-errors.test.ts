import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { channelFormErrors } from "../../../src/modules/dashboard/channels-views";
import { FEED_FORM_FIELDS, feedFormErrors } from "../../../src/modules/dashboard/feeds-views";
import { formErrors } from "../../../src/modules/dashboard/form-errors";

// The API's validation messages as dashboard forms show them: by field, in the label's words.

describe("formErrors", () => {
  test("each message goes to the field it starts with, the path replaced by the label; other fields it names are quoted labels", () => {
    const errors = feedFormErrors([
      "minScore must be 5 or lower when profilePrompt is empty",
      "excludedCountries[2] is not a known country: Atlantis",
      "title must be a string of 1 to 200 characters",
      "Feed limit reached: delete one first",
    ]);
    expect(errors.byId.get("minScore")).toEqual(["Minimum score must be 5 or lower when “Profile prompt” is empty"]);
    expect(errors.byId.get("excludedCountries")).toEqual(["Excluded countries (entry 3) is not a known country: Atlantis"]);
    expect(errors.byId.get("title")).toEqual(["Title must be 1 to 200 characters long"]);
    expect(errors.general).toEqual(["Feed limit reached: delete one first"]);
    expect(errors.all.map((e) => e.id)).toEqual(["minScore", "excludedCountries", "title", null]);
  });

  test("the longest path wins: quietHours.timeZone is the time zone, config.token is not config.to", () => {
    const errors = channelFormErrors("ntfy", [
      "quietHours.timeZone is not a known IANA time zone",
      "quietHours.from and quietHours.to must differ",
      "config.token must be printable ASCII without spaces",
    ]);
    expect(errors.byId.get("quietTimeZone")).toEqual(["Time zone is not a known IANA time zone"]);
    expect(errors.byId.get("quietFrom")).toEqual(["Quiet from and “Quiet until” must differ"]);
    expect(errors.byId.get("config_token")).toEqual(["Access token must be printable ASCII without spaces"]);
  });

  test("advice to set an environment variable never reaches the form; the rest of the message does", () => {
    const errors = channelFormErrors("email", [
      "config.smtpUrl cannot be used: 10.0.0.5 is not a public address (private (RFC 1918)); to allow private addresses (e.g. a receiver on your LAN) set JOBPILOT_WEBHOOK_ALLOW_PRIVATE=true, or list the host or its CIDR in JOBPILOT_WEBHOOK_ALLOWLIST; turn on config.allowPrivateNetwork to allow a server on your own network",
    ]);
    expect(errors.byId.get("config_smtpUrl")).toEqual([
      "SMTP URL cannot be used: 10.0.0.5 is not a public address (private (RFC 1918)); turn on “Allow a private-network address for this server” to allow a server on your own network",
    ]);
  });

  test("property: a message about any field of the feed form names no API field, whatever follows the path", () => {
    const paths = FEED_FORM_FIELDS.map((f) => f.path);
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.constantFrom(...paths), fc.stringMatching(/^[a-z ]{0,30}$/), (subject, other, words) => {
        const [message] = formErrors([`${subject} must ${words} ${other}`], FEED_FORM_FIELDS).all.map((e) => e.message);
        for (const path of paths) if (/[A-Z]/.test(path)) expect(message).not.toContain(path);
        expect(message!.startsWith(FEED_FORM_FIELDS.find((f) => f.path === subject)!.label)).toBe(true);
      }),
    );
  });
});
