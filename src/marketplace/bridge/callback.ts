import { readCapped, TooLargeError } from "../../lib/read-capped";
import { Elysia, t } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { pathOf } from "../../http/context";
import { signatureHeaders } from "../../http/openapi-document";
import { ErrorBody } from "../../http/schemas";
import { secretKey, SignatureError, verify } from "../../lib/standard-webhooks";
import { ReportedBalance, ReportedConnects, reportedConnects } from "../remote/operations";
import { BRIDGE_CALLBACK_PATH, FinalStatusSchema, toOutcome, type BridgeDeps, type createBridgeDriver } from "./driver";

/** A callback carries one short outcome; anything bigger is not one. */
const MAX_CALLBACK_BYTES = 64 * 1024;

const CallbackBody = t.Object({
  applicationId: t.String({ minLength: 1, maxLength: 200 }),
  status: FinalStatusSchema,
  message: t.Optional(t.String()),
  ...ReportedConnects,
  ...ReportedBalance,
});

type RawBody = { text: string } | { error: "too_large" | "unreadable" };

async function readRaw(request: { body: ReadableStream<Uint8Array> | null }): Promise<RawBody> {
  try {
    return { text: new TextDecoder().decode(await readCapped(request.body, MAX_CALLBACK_BYTES)) };
  } catch (err) {
    return { error: err instanceof TooLargeError ? "too_large" : "unreadable" };
  }
}

/**
 * POST /bridge/callback: the user's submitter reports an outcome it accepted
 * with 202 earlier. No API key: the Standard Webhooks signature (same secret
 * as the requests) is the authentication, so it is checked before anything in
 * the body is believed. The outcome is stored (first one wins) and wakes a
 * submit() waiting for it.
 */
export function bridgeCallbackRoutes(deps: BridgeDeps, driver: ReturnType<typeof createBridgeDriver>) {
  const log = deps.log.child({ component: "bridge" });
  // The signature covers the exact bytes sent, but the app's JSON parser consumes the body before the
  // handler runs. So a copy is taken before routing and the handler verifies that copy.
  const rawBodies = new WeakMap<Request, Promise<RawBody>>();

  return new Elysia()
    .onRequest(({ request }) => {
      if (request.method === "POST" && pathOf(request.url) === BRIDGE_CALLBACK_PATH) rawBodies.set(request, readRaw(request.clone()));
    })
    .post(
      BRIDGE_CALLBACK_PATH,
      async ({ request, set }) => {
        const secret = deps.config.bridgeSecret;
        let usable = !!secret;
        try {
          if (secret) secretKey(secret);
        } catch {
          usable = false;
        }
        if (!secret || !usable) {
          set.status = 404;
          return { error: "The bridge is not configured on this server (JOBPILOT_BRIDGE_SECRET)" };
        }

        const raw = (await rawBodies.get(request)) ?? { error: "unreadable" as const };
        if ("error" in raw) {
          set.status = raw.error === "too_large" ? 413 : 400;
          return { error: raw.error === "too_large" ? `Callback body is larger than ${MAX_CALLBACK_BYTES} bytes` : "Callback body could not be read" };
        }

        try {
          verify(secret, request.headers, raw.text, { nowS: Math.floor(deps.clock.now() / 1000) });
        } catch (err) {
          if (!(err instanceof SignatureError)) throw err;
          log.warn("bridge callback refused", { reason: err.message });
          set.status = 401;
          return { error: `Invalid signature: ${err.message}` };
        }

        let body: unknown;
        try {
          body = JSON.parse(raw.text);
        } catch {
          set.status = 400;
          return { error: "Callback body must be JSON: {applicationId, status, message}" };
        }
        if (!Value.Check(CallbackBody, body)) {
          const first = Value.Errors(CallbackBody, body).First();
          set.status = 400;
          return {
            error: `Invalid callback body${first ? ` at ${first.path || "/"}: ${first.message}` : ""}; expected {applicationId, status, message, connectsRequired?, boostConnects?, connectsAvailable?}`,
          };
        }

        const reply = body as typeof CallbackBody.static;
        const { applicationId, status } = reply;
        const connects = reportedConnects(status, reply);
        const balance = reply.connectsAvailable === undefined ? {} : { connectsAvailable: reply.connectsAvailable };
        const kept = await driver.recordOutcome(applicationId, { ...toOutcome(status, reply.message), ...(connects ? { connects } : {}), ...balance });
        log.info("bridge outcome received", { applicationId, status, kept: kept.status, connects: kept.connects ?? null });
        return { ok: true as const };
      },
      {
        response: { 200: t.Object({ ok: t.Literal(true) }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 413: ErrorBody },
        detail: {
          tags: ["Bridge"],
          security: [],
          operationId: "reportBridgeOutcome",
          summary: "Outcome of a bridge submission (extension)",
          description:
            "Called by your own submitter after it answered a proposal.submit with 202. Signed with Standard Webhooks " +
            "headers (webhook-id, webhook-timestamp, webhook-signature) using JOBPILOT_BRIDGE_SECRET; no API key. " +
            "The signature is checked over the exact bytes before the body is read; the first outcome for an application wins (later ones answer 200 and change nothing). " +
            "An applied outcome may say what it cost: connectsRequired and boostConnects (whole numbers 0–1000; boostConnects 0 when left out), shown in the application's funnel. " +
            "Any outcome may say the freelancer's Connects left after it: connectsAvailable (0–100000), kept as the freelancer's balance for the Connects check of the next submission.",
          // Read and checked by the handler itself (the signature covers the raw bytes), so described here, not as a route schema.
          parameters: signatureHeaders,
          // A TypeBox schema is a JSON Schema; its optional integers just do not line up with the OpenAPI types.
          requestBody: { required: true, content: { "application/json": { schema: CallbackBody as object } } },
          responses: {
            400: {
              description:
                "The body is not JSON, or not {applicationId, status, message, connectsRequired?, boostConnects?, connectsAvailable?}; the error names the field",
            },
            401: { description: "The signature is missing, wrong or outside the 5-minute window" },
            404: { description: "The bridge is not configured on this server (JOBPILOT_BRIDGE_SECRET unset or unusable)" },
            413: { description: "The body is over 64 KiB (or its declared Content-Length over JOBPILOT_MAX_BODY_BYTES)" },
          },
        },
      },
    );
}
