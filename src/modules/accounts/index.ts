import { Elysia, t } from "elysia";
import type { Deps } from "../../deps";
import { authContext } from "./auth-context";
import { errorResponses } from "../../http/schemas";
import { AccountView, CreateAccountBody, CreateKeyBody, CreatedAccount, CreatedKey, GrantCreditsBody, KeyView, WhoAmI } from "./model";
import * as accounts from "./service";

/** GET /api/v1/account (extension): the caller's account and key, handy to check a key works. */
export function accountRoutes(deps: Deps) {
  return new Elysia().use(authContext).get("/api/v1/account", ({ auth }) => accounts.whoAmI(deps, auth), {
    response: { 200: WhoAmI, ...errorResponses(401, 429, 500) },
    detail: {
      tags: ["Account"],
      operationId: "getAccount",
      summary: "The calling key's account (extension)",
      description: "Credits, kind and rate-limit settings.",
    },
  });
}

const adminTags = ["Admin"];
const adminSecurity = [{ adminToken: [] }];
const AccountIdParams = t.Object({ accountId: t.String({ maxLength: 100 }) });

/** /admin/* account management, the HTTP twin of the `account`, `key` and `credits` CLI commands. */
export function accountAdminRoutes(deps: Deps) {
  return new Elysia({ prefix: "/admin" })
    .get("/accounts", async () => ({ accounts: await accounts.listAccounts(deps) }), {
      response: { 200: t.Object({ accounts: t.Array(t.Composite([AccountView, t.Object({ activeKeys: t.Integer() })])) }), ...errorResponses(401) },
      detail: {
        tags: adminTags,
        security: adminSecurity,
        operationId: "listAccounts",
        summary: "List accounts",
        description: "Every account with its credits and the number of active API keys.",
      },
    })
    .post(
      "/accounts",
      async ({ body, set }) => {
        const created = await accounts.createAccount(deps, body);
        set.status = 201;
        return created;
      },
      {
        body: CreateAccountBody,
        response: { 201: CreatedAccount, ...errorResponses(400, 401) },
        detail: {
          tags: adminTags,
          security: adminSecurity,
          operationId: "createAccount",
          summary: "Create an account and its first API key (shown once)",
          description: "The answer holds the whole key; only its hash is stored, so it cannot be shown again.",
        },
      },
    )
    .post(
      "/accounts/:accountId/keys",
      async ({ params, body, set }) => {
        const created = await accounts.createKey(deps, params.accountId, body.label);
        set.status = 201;
        return created;
      },
      {
        params: AccountIdParams,
        body: CreateKeyBody,
        response: { 201: CreatedKey, ...errorResponses(400, 401, 404, 409) },
        detail: {
          tags: adminTags,
          security: adminSecurity,
          operationId: "createKey",
          summary: "Create an API key (shown once)",
          description: "409 when the account already has as many active keys as it may.",
        },
      },
    )
    .get("/accounts/:accountId/keys", async ({ params }) => ({ keys: await accounts.listKeys(deps, params.accountId) }), {
      params: AccountIdParams,
      response: { 200: t.Object({ keys: t.Array(KeyView) }), ...errorResponses(401, 404) },
      detail: {
        tags: adminTags,
        security: adminSecurity,
        operationId: "listKeys",
        summary: "List an account's API keys",
        description: "Prefixes, labels, last use and revocation; never the keys themselves.",
      },
    })
    .post("/accounts/:accountId/credits", ({ params, body }) => accounts.grantCredits(deps, params.accountId, body.amount, body.note), {
      params: AccountIdParams,
      body: GrantCreditsBody,
      response: { 200: t.Object({ balance: t.Integer() }), ...errorResponses(400, 401, 404) },
      detail: {
        tags: adminTags,
        security: adminSecurity,
        operationId: "grantCredits",
        summary: "Grant (or correct) credits",
        description: "A negative amount corrects the balance down (400 if it would go below 0; 0 is a 400). Answers the new balance.",
      },
    })
    .delete("/keys/:keyId", ({ params }) => accounts.revokeKey(deps, params.keyId), {
      params: t.Object({ keyId: t.String({ maxLength: 100 }) }),
      response: { 200: t.Object({ key: KeyView, alreadyRevoked: t.Boolean() }), ...errorResponses(401, 404) },
      detail: {
        tags: adminTags,
        security: adminSecurity,
        operationId: "revokeKey",
        summary: "Revoke an API key",
        description: "The key is refused from the next request on. Revoking a revoked key answers it again with alreadyRevoked true.",
      },
    });
}
