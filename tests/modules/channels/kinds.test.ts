import { describe, expect, test } from "bun:test";
import { CHANNEL_KINDS } from "../../../src/modules/channels/kinds/index";
import { CHANNEL_TYPES, ChannelTypeSchema, listInWords } from "../../../src/modules/channels/model";
import { KINDS_IN_TEXT } from "../../../src/modules/dashboard/channels-views";

// Each kind is one object (kinds/<type>.ts); these keep its parts in agreement with one another, so a kind
// added or changed in one place and not the other fails here rather than in a user's form.
describe("channel kinds", () => {
  test("there is one kind per channel type, in the types' order", () => {
    expect(Object.keys(CHANNEL_KINDS)).toEqual([...CHANNEL_TYPES]);
  });

  test("each kind's dashboard form has exactly its config's fields, and marks exactly its secret ones", () => {
    for (const type of CHANNEL_TYPES) {
      const kind = CHANNEL_KINDS[type];
      const fields = kind.form.fields;
      expect(
        fields.map((f) => f.name),
        type,
      ).toEqual(Object.keys(kind.configSchema.properties));
      expect(
        fields.filter((f) => f.isSecret).map((f) => f.name),
        type,
      ).toEqual([...kind.secretFields]);
    }
  });

  test("a kind with a user-chosen server names its field and has the private-network opt-in; the others have neither", () => {
    const sample = {
      ntfy: { serverUrl: "https://ntfy.example.com", topic: "t", token: null },
      email: { smtpUrl: "smtp://mail.example.com", from: "", to: "" },
    };
    for (const type of CHANNEL_TYPES) {
      const kind = CHANNEL_KINDS[type];
      const hasOptIn = "allowPrivateNetwork" in kind.configSchema.properties;
      expect(kind.destination !== undefined, type).toBe(hasOptIn);
    }
    expect(CHANNEL_KINDS.ntfy.destination!(sample.ntfy)).toEqual({ field: "config.serverUrl", url: "https://ntfy.example.com/" });
    expect(CHANNEL_KINDS.email.destination!(sample.email)).toEqual({ field: "config.smtpUrl", url: "http://mail.example.com/" });
  });

  test("the lists of kinds in words are built from the kinds", () => {
    expect(listInWords(["a"])).toBe("a");
    expect(listInWords(["a", "b"], "and")).toBe("a and b");
    expect(ChannelTypeSchema.description).toBe("Where alerts go: telegram, slack, discord, ntfy or email.");
    expect(KINDS_IN_TEXT).toBe("Telegram, Slack, Discord, ntfy or e-mail");
  });
});
