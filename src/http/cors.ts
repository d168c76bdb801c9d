import { Elysia } from "elysia";
import { routePolicy } from "./route-policy";

/**
 * CORS preflights for routes whose policy is `anyOrigin` (the API key, not the origin, is the credential, and no
 * cookies are involved). A browser asks OPTIONS before a cross-origin request that sends `x-api-key` or a JSON body,
 * and never sends custom headers with it, so the preflight is public: it is answered 204 without a key, naming the
 * methods and headers the real request may use. Without it the auth plugin answers 401 and the browser never sends
 * the request (a browser companion paired with a server that is not on localhost).
 */
export function corsPreflights(paths: readonly string[], allow: { methods: readonly string[]; headers: readonly string[] }) {
  const headers = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": allow.methods.join(", "),
    "access-control-allow-headers": allow.headers.join(", "),
    "access-control-max-age": "86400",
  };
  const answer = ({ request, set }: { request: Request; set: { status?: number | string; headers: Record<string, string | number> } }) => {
    set.status = 204;
    Object.assign(set.headers, headers);
    // Chrome asks before a page talks to a server on a private address (a jobpilot at home or on a LAN).
    if (request.headers.get("access-control-request-private-network") === "true") set.headers["access-control-allow-private-network"] = "true";
    return "";
  };
  let app = new Elysia().use(routePolicy);
  for (const path of paths) app = app.options(path, answer, { policy: { public: true }, detail: { hide: true } });
  return app;
}
