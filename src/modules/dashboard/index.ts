import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { AppError } from "../../errors";
import { clientAddressOf } from "../../http/loopback";
import { DASHBOARD_PATH, SESSION_COOKIE } from "./model";
import * as dashboard from "./service";
// Bundled as text by `bun build --compile`, so the binary serves it with no file beside it.
import HTMX_SOURCE from "htmx.org/dist/htmx.min.js" with { type: "text" };
// The dashboard's own script and stylesheet are real files (linted), bundled the same way.
import APP_SCRIPT from "./app.browser.js" with { type: "text" };
import STYLESHEET from "./style.css" with { type: "text" };
// Embedded as a file the same way; a 32×32 icon in the dashboard's accent colour.
import FAVICON_PATH from "./favicon.ico" with { type: "file" };
import * as views from "./views";
import { localeFrom } from "./overview";
import { dashboardActivityRoutes } from "./activity";
import { dashboardFeedRoutes } from "./feeds";
import { dashboardChannelRoutes } from "./channels";
import { dashboardJobRoutes } from "./job";
import { dashboardAutoApplyRoutes } from "./auto-apply";
import { dashboardCompanionRoutes } from "./companion";
import { dashboardInboxRoutes } from "./inbox";
import { dashboardAnalyticsRoutes } from "./analytics";
import { dashboardExperimentRoutes } from "./experiments";
import { dashboardReviewRoutes } from "./review";
import { dashboardAuditRoutes } from "./audit";
import { dashboardTeamRoutes } from "./members";
import { dashboardClientRoutes } from "./clients";
import {
  clearSessionCookie,
  dashboardGuard,
  errorAsPage,
  field,
  FOREIGN_SIGN_IN,
  HIDDEN,
  isForeignSignIn,
  page,
  readCookie,
  redirect,
  setSessionCookie,
  signInToken,
  needs,
} from "./http";

/**
 * The server-rendered dashboard. It lives outside /api and /admin, so the
 * API-key auth and the rate limiter never see it; it signs people in with a
 * session cookie instead. Forms are plain HTML (no JavaScript), so request
 * bodies are read field by field instead of through a TypeBox schema: a bad
 * form should give a page, not the API's JSON 400.
 */
/** An unknown, used or expired member link: what to do instead. */
const deadMemberLinkPage = () =>
  views.errorPage(
    "Link not valid",
    "This link has been used already, has expired or is wrong. Ask an owner or admin of your account for a new invitation, or run `jobpilot member reset --email you@example.com` on the server for a reset link.",
  );

export function dashboardRoutes(deps: Deps) {
  const { signedIn, open } = dashboardGuard(deps);
  /** The clock and the reader's language, for pages that show relative, localised times. */
  const times = (request: Request) => ({ nowTs: deps.clock.now(), locale: localeFrom(request.headers.get("accept-language")) });

  return (
    new Elysia({ name: "dashboard" })
      // Someone who opens the server's address in a browser is after the dashboard (the API lives under /api, its reference at /docs).
      .get("/", ({ set }) => redirect(set, DASHBOARD_PATH), HIDDEN)
      .get(
        "/favicon.ico",
        () => new Response(Bun.file(FAVICON_PATH), { headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" } }),
        HIDDEN,
      )
      // htmx (from npm, embedded in the binary) enhances a few forms to update in place; every page works without it.
      .get(
        `${DASHBOARD_PATH}/htmx.js`,
        ({ set }) => {
          set.headers["content-type"] = "text/javascript; charset=utf-8";
          set.headers["cache-control"] = "public, max-age=86400";
          return HTMX_SOURCE;
        },
        HIDDEN,
      )
      .get(
        `${DASHBOARD_PATH}/app.js`,
        ({ set }) => {
          set.headers["content-type"] = "text/javascript; charset=utf-8";
          set.headers["cache-control"] = "public, max-age=3600";
          return APP_SCRIPT;
        },
        HIDDEN,
      )
      .get(
        `${DASHBOARD_PATH}/style.css`,
        ({ set }) => {
          set.headers["content-type"] = "text/css; charset=utf-8";
          set.headers["cache-control"] = "public, max-age=3600";
          return STYLESHEET;
        },
        HIDDEN,
      )
      .get(
        `${DASHBOARD_PATH}/sign-in`,
        async ({ request, set }) => {
          if (await dashboard.resolveSession(deps, readCookie(request, SESSION_COOKIE))) return redirect(set, DASHBOARD_PATH);
          return page(set, views.signInPage(signInToken(request, set)));
        },
        HIDDEN,
      )
      .post(
        `${DASHBOARD_PATH}/sign-in`,
        async ({ request, set, body }) => {
          if (isForeignSignIn(request, body)) return page(set, views.signInPage(signInToken(request, set), FOREIGN_SIGN_IN), 403);
          let signed: Awaited<ReturnType<typeof dashboard.signInWithKey>>;
          try {
            signed = await dashboard.signInWithKey(deps, field(body, "apiKey"));
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            return page(set, views.signInPage(signInToken(request, set), undefined, { field: "apiKey", message: err.message }), err.status);
          }
          if (!signed) {
            const message = "That API key is not valid: it is unknown, revoked or mistyped.";
            return page(set, views.signInPage(signInToken(request, set), undefined, { field: "apiKey", message }), 401);
          }
          if (signed.session.keyId) deps.keyUsage.touch(signed.session.keyId, deps.clock.now());
          setSessionCookie(set, request, signed.token);
          return redirect(set, DASHBOARD_PATH);
        },
        HIDDEN,
      )
      .post(
        `${DASHBOARD_PATH}/sign-in/password`,
        async ({ request, set, body, server }) => {
          if (isForeignSignIn(request, body)) return page(set, views.signInPage(signInToken(request, set), FOREIGN_SIGN_IN), 403);
          const email = field(body, "email") ?? "";
          try {
            // The client (behind a local proxy, whom it forwards for): the per-address limit counts its failures whatever e-mails it tries.
            const clientAddress = clientAddressOf(server?.requestIP(request)?.address, request.headers);
            const signed = await dashboard.signInWithPassword(deps, { email, password: field(body, "password") ?? "", clientAddress });
            setSessionCookie(set, request, signed.token);
            return redirect(set, DASHBOARD_PATH);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            // A 429 is about neither field, so it stands above the forms as the service wrote it.
            if (err.status === 429) return page(set, views.signInPage(signInToken(request, set), err.message, { email, message: "" }), 429);
            return page(set, views.signInPage(signInToken(request, set), undefined, { field: "password", message: err.message, email }), err.status);
          }
        },
        HIDDEN,
      )
      // Like a sign-in link, opening a member's link only shows the form; the POST uses it up.
      .get(
        `${DASHBOARD_PATH}/set-password`,
        async ({ request, set, query }) => {
          const token = typeof query.token === "string" ? query.token : "";
          const member = token ? await dashboard.memberOfLink(deps, token) : null;
          if (!member) return page(set, deadMemberLinkPage(), 404);
          return page(set, views.setPasswordPage(token, signInToken(request, set), member));
        },
        HIDDEN,
      )
      .post(
        `${DASHBOARD_PATH}/set-password`,
        async ({ request, set, query, body }) => {
          const token = typeof query.token === "string" ? query.token : "";
          const member = token ? await dashboard.memberOfLink(deps, token) : null;
          if (!member) return page(set, deadMemberLinkPage(), 404);
          const csrf = signInToken(request, set);
          const typed = { email: field(body, "email"), name: field(body, "name") };
          if (isForeignSignIn(request, body))
            return page(set, views.setPasswordPage(token, csrf, member, { field: "password", message: FOREIGN_SIGN_IN }, typed), 403);
          const password = field(body, "password") ?? "";
          if (password !== (field(body, "repeat") ?? "")) {
            return page(
              set,
              views.setPasswordPage(token, csrf, member, { field: "repeat", message: "Repeat the password: the two do not match." }, typed),
              400,
            );
          }
          try {
            const signed = await dashboard.setPasswordAndSignIn(deps, token, password, typed);
            setSessionCookie(set, request, signed.token);
            return redirect(set, DASHBOARD_PATH);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            if (err.message.startsWith("token:")) return page(set, deadMemberLinkPage(), 404);
            // "password: at least 10 characters" in the label's words, by its field (the first owner's e-mail and name too).
            const named = /^(email|name):\s*/.exec(err.message);
            const errors = named
              ? { field: named[1] as "email" | "name", message: err.message.replace(named[0], named[1] === "email" ? "Your e-mail: " : "Your name: ") }
              : { field: "password" as const, message: err.message.replace(/^password:\s*/, "New password: ") };
            return page(set, views.setPasswordPage(token, csrf, member, errors, typed), err.status);
          }
        },
        HIDDEN,
      )
      // Opening a link only shows a button; the POST uses it up. So a mail or chat tool that fetches links for a
      // preview cannot burn it, and the 303 after a same-origin POST carries the SameSite=Strict cookie, which a
      // redirect at the end of a click from another site would not.
      .get(`${DASHBOARD_PATH}/link/:token`, ({ request, set, params }) => page(set, views.linkConfirmPage(params.token, signInToken(request, set))), HIDDEN)
      .post(
        `${DASHBOARD_PATH}/link/:token`,
        async ({ request, set, params, body }) => {
          // Checked before the link is used up, so a forged POST cannot burn it either.
          if (isForeignSignIn(request, body)) return page(set, views.linkConfirmPage(params.token, signInToken(request, set), FOREIGN_SIGN_IN), 403);
          const signed = await dashboard.signInWithLink(deps, params.token);
          if (!signed) {
            return page(
              set,
              views.errorPage(
                "Sign-in link not valid",
                "This sign-in link has been used already, has expired or is wrong. Run `jobpilot dashboard link` for a new one, or sign in with an API key.",
              ),
              404,
            );
          }
          setSessionCookie(set, request, signed.token);
          return redirect(set, DASHBOARD_PATH);
        },
        HIDDEN,
      )
      .post(
        `${DASHBOARD_PATH}/sign-out`,
        async ({ request, set, body }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          await dashboard.signOut(deps, session);
          clearSessionCookie(set, request);
          return redirect(set, `${DASHBOARD_PATH}/sign-in`);
        },
        needs("read"),
      )
      // The inbox (inbox.ts) is the landing page; the account's numbers and charts live here.
      .get(
        `${DASHBOARD_PATH}/overview`,
        async ({ request, set }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          return page(set, views.overviewPage(session, await dashboard.overview(deps, session), localeFrom(request.headers.get("accept-language"))));
        },
        HIDDEN,
      )
      .get(
        `${DASHBOARD_PATH}/keys`,
        async ({ request, set }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          return page(set, views.keysPage(session, await dashboard.listKeys(deps, session), {}, times(request)));
        },
        needs("keys"),
      )
      .post(
        `${DASHBOARD_PATH}/keys`,
        async ({ request, set, body }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          try {
            const created = await dashboard.createKey(deps, session, field(body, "label"), field(body, "role"));
            // 200, not a redirect: the new key is shown on this response only and never again.
            return page(set, views.keysPage(session, await dashboard.listKeys(deps, session), { created }, times(request)));
          } catch (err) {
            // A too long label, or a role above the member's own (a 403 naming role): shown by the field.
            if (!(err instanceof AppError) || !(err.code === "bad_request" || (err.code === "forbidden" && err.message.startsWith("role:")))) throw err;
            return page(set, views.keysPage(session, await dashboard.listKeys(deps, session), { message: err.message }, times(request)), err.status);
          }
        },
        needs("keys"),
      )
      // Revoking cannot be undone: the keys page links here, and only this page's form revokes.
      .get(
        `${DASHBOARD_PATH}/keys/:keyId/revoke`,
        async ({ request, set, params }) => {
          const session = await signedIn(request, set);
          if (typeof session === "string") return session;
          const key = (await dashboard.listKeys(deps, session)).find((k) => k.id === params.keyId && k.revokedAtTs === null);
          if (!key) return page(set, views.errorPage("Key not found", "This account has no API key with that id that is still in use.", session), 404);
          return page(set, views.revokeKeyConfirmPage(session, key));
        },
        needs("keys"),
      )
      .post(
        `${DASHBOARD_PATH}/keys/:keyId/revoke`,
        async ({ request, set, body, params }) => {
          const session = await open(request, set, body);
          if (typeof session === "string") return session;
          let found: boolean;
          try {
            found = await dashboard.revokeOwnKey(deps, session, params.keyId);
          } catch (err) {
            // An admin revoking a key they did not make: the 403 page says whom to ask.
            return errorAsPage(err, set, session, "Not allowed");
          }
          if (!found) return page(set, views.errorPage("Key not found", "This account has no API key with that id.", session), 404);
          return redirect(set, `${DASHBOARD_PATH}/keys`);
        },
        needs("keys"),
      )
      .use(dashboardActivityRoutes(deps))
      .use(dashboardFeedRoutes(deps))
      .use(dashboardChannelRoutes(deps))
      .use(dashboardJobRoutes(deps))
      .use(dashboardAutoApplyRoutes(deps))
      .use(dashboardCompanionRoutes(deps))
      .use(dashboardInboxRoutes(deps))
      .use(dashboardAnalyticsRoutes(deps))
      .use(dashboardExperimentRoutes(deps))
      .use(dashboardReviewRoutes(deps))
      .use(dashboardAuditRoutes(deps))
      .use(dashboardTeamRoutes(deps))
      .use(dashboardClientRoutes(deps))
  );
}
