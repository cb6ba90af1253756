import { Code, ConnectError } from "@connectrpc/connect";
import { clientOfAddress, createAttemptThrottle, type AttemptThrottleOptions } from "../domain/attempt-throttle.js";
import type { Clock } from "../domain/clock.js";
import type { AddressRange } from "../domain/ip-allow-list.js";
import { KeywardError } from "../domain/errors.js";
import type { Authenticate } from "../transport/auth.js";
import { createConnectUnaryHandler } from "../transport/connect/handler.js";
import { readBody, type ExchangeRequest, type ExchangeResponse } from "../transport/exchange.js";
import type { Operation } from "../services/operation.js";
import { createPipeline } from "../transport/pipeline.js";
import { REQUEST_ID_HEADER } from "../transport/request-id.js";
import { UnaryCall } from "../transport/unary-call.js";
import { createBundleLoader, type DashboardBundle } from "./bundle.js";
import { crossOriginRefusal, csrfRefusal } from "./guards.js";
import { INDEX_HTML } from "./index-html.js";
import { json, parseSignIn, rpcError, sessionView, tooManySignIns } from "./responses.js";
import { clearedSessionCookie, CSRF_HEADER, DASHBOARD_PATH, servedOverTls, sessionCookie, sessionTokenFromCookies } from "./session-token.js";
import type { RequestDone } from "../observability/request-observer.js";
import type { RequestTallies, RouteTally } from "../observability/route-tally.js";
import { clientAddressOf, type Principal, type RequestOrigin } from "../services/context.js";
import type { DashboardSessions } from "./sessions.js";

const RPC_PREFIX = `${DASHBOARD_PATH}/rpc`;
const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/**
 * Sign-in throttling per client address (IPv6 by /64): 5 failed sign-ins within a minute lock the address out for a
 * minute. Counted in each instance's memory: behind a load balancer an address gets this allowance per instance,
 * which still turns a burst of guesses into a handful per minute.
 */
export const SIGN_IN_THROTTLE: AttemptThrottleOptions = { maxFailures: 5, windowMs: 60_000, lockoutMs: 60_000, maxClients: 10_000 };

export interface DashboardDeps {
  sessions: DashboardSessions;
  /** The bearer authenticator of the API: sign-in accepts exactly the root keys the API accepts. */
  authenticate: Authenticate;
  operations: Operation[];
  maxBytes: number;
  /**
   * Metrics and the request log: dashboard RPCs count under the `dashboard` transport, its page, assets and session
   * endpoints under `dashboard-http`, apart from real clients' traffic.
   */
  tallies: RequestTallies;
  done: RequestDone;
  /** Times sign-in throttling. */
  clock: Clock;
  /** KEYWARD_TRUSTED_PROXIES: sign-in is throttled per client address they forward, as an allow-list judges it. */
  trustedProxies: readonly AddressRange[];
  /** The name of a live root key, for the page's header; undefined when it has none. */
  rootKeyName: (workspaceId: string, rootKeyId: string) => Promise<string | undefined>;
}

/**
 * Serves everything under /dashboard: the page and its assets, the session endpoints (`api/sign-in`, `api/session`,
 * `api/sign-out`) and the API itself over the Connect protocol at `rpc/<service>/<method>`. RPCs run the API's own
 * operations through the same pipeline; only authentication differs (the session cookie stands for its root key),
 * so the dashboard can do exactly what its root key can. Every call but the page itself is refused from another
 * origin; session-bound POSTs also need the session's CSRF token in `x-keyward-csrf`.
 */
export function createDashboardHandler(deps: DashboardDeps) {
  const invoke = createPipeline({ authenticate: (token) => deps.sessions.authenticate(token ?? "") });
  const connect = createConnectUnaryHandler({
    operations: deps.operations, invoke, maxBytes: deps.maxBytes, tallies: deps.tallies, done: deps.done, transport: "dashboard",
  });
  const methodOf = new Map(deps.operations.map((op) => [`${RPC_PREFIX}/${op.method.parent.typeName}/${op.method.name}`, op.method]));
  const loadBundle = createBundleLoader();
  const signInThrottle = createAttemptThrottle(SIGN_IN_THROTTLE);

  /** A refused RPC, answered here with its own request id and reported like the calls the API's handler answers. */
  function refuseRpc(res: ExchangeResponse, path: string, error: ConnectError): void {
    const call = new UnaryCall();
    res.setHeader(REQUEST_ID_HEADER, call.requestId);
    rpcError(res, error);
    call.finishOnce(deps.tallies.of("dashboard", methodOf.get(path)), deps.done, error.code);
  }

  function rpc(req: ExchangeRequest, res: ExchangeResponse, path: string): void {
    const token = sessionTokenFromCookies(req.headers.cookie);
    const refusal = crossOriginRefusal(req.headers) ?? (token === undefined ? undefined : csrfRefusal(req.headers, token));
    if (refusal) return refuseRpc(res, path, new ConnectError(refusal, Code.PermissionDenied));
    if (token === undefined) return refuseRpc(res, path, new ConnectError("Sign in to the dashboard first.", Code.Unauthenticated));
    // The API's Connect handler, seeing the session token where a bearer would be; its pipeline resolves it. The
    // connection goes along so that the audit log records the client's address, as for any API call.
    const view: ExchangeRequest & { socket?: unknown } = {
      url: path.slice(RPC_PREFIX.length),
      method: req.method,
      headers: { ...req.headers, authorization: token },
      socket: (req as { socket?: unknown }).socket,
      on: (event: "data" | "end" | "error", listener: (...args: any[]) => void) => req.on(event as "data", listener),
    };
    if (!connect(view, res)) refuseRpc(res, path, new ConnectError("Only unary Connect calls with JSON or proto bodies are served here.", Code.Unimplemented));
  }

  /**
   * Exchanges a root key for a session. Failed sign-ins are throttled per client address (SIGN_IN_THROTTLE); a locked
   * out address is answered 429 before its key is even read, so the answer tells nothing about the key.
   */
  async function signIn(req: ExchangeRequest, res: ExchangeResponse): Promise<void> {
    if (!req.headers[CSRF_HEADER]) return json(res, 403, { error: { code: "permission_denied", message: `The ${CSRF_HEADER} header is missing.` } });
    // The connection's peer, or the client a trusted proxy names: a forwarding header from anyone else counts for
    // nothing, so a client cannot leave its lockout by claiming another address.
    const client = clientOfAddress(clientAddressOf(req as RequestOrigin, deps.trustedProxies));
    const admission = signInThrottle.admit(client, deps.clock.now());
    if (!admission.admitted) return tooManySignIns(res, admission.retryAfterMs);
    let rootKey: string;
    let principal: Principal;
    try {
      rootKey = parseSignIn(await readBody(req, 16 * 1024));
      principal = await deps.authenticate(`Bearer ${rootKey}`);
    } catch (error) {
      // Only a refused key counts against the address; a malformed body or a server failure was no guess.
      if (!(error instanceof KeywardError && error.kind === "unauthenticated")) signInThrottle.withdrawn(client);
      throw error;
    }
    signInThrottle.succeeded(client);
    const { token, record } = await deps.sessions.signIn(rootKey, principal);
    res.setHeader("set-cookie", sessionCookie(token, Math.floor((record.expiresAt - record.createdAt) / 1000), { secure: servedOverTls(req) }));
    json(res, 200, sessionView(token, record.expiresAt, principal, await deps.rootKeyName(principal.workspaceId, principal.rootKeyId)));
  }

  async function sessionApi(req: ExchangeRequest, res: ExchangeResponse, path: string): Promise<void> {
    const refusal = crossOriginRefusal(req.headers);
    if (refusal) return json(res, 403, { error: { code: "permission_denied", message: refusal } });
    const token = sessionTokenFromCookies(req.headers.cookie);
    try {
      if (path === `${DASHBOARD_PATH}/api/session` && req.method === "GET") {
        if (token === undefined) return json(res, 401, { error: { code: "unauthenticated", message: "Not signed in." } });
        const { record, principal } = await deps.sessions.describe(token);
        return json(res, 200, sessionView(token, record.expiresAt, principal, await deps.rootKeyName(principal.workspaceId, principal.rootKeyId)));
      }
      if (path === `${DASHBOARD_PATH}/api/sign-in` && req.method === "POST") return await signIn(req, res);
      if (path === `${DASHBOARD_PATH}/api/sign-out` && req.method === "POST") {
        if (token !== undefined) {
          const csrf = csrfRefusal(req.headers, token);
          if (csrf) return json(res, 403, { error: { code: "permission_denied", message: csrf } });
          await deps.sessions.signOut(token);
        }
        res.setHeader("set-cookie", clearedSessionCookie({ secure: servedOverTls(req) }));
        return json(res, 200, {});
      }
      return json(res, 404, { error: { code: "not_found", message: "No such dashboard endpoint." } });
    } catch (error) {
      const known = error instanceof KeywardError;
      const status = !known ? 500 : error.kind === "unauthenticated" ? 401 : error.kind === "payload_too_large" ? 413 : error.kind === "invalid" ? 400 : 500;
      // Messages of our own errors name no secret; anything else is not shown.
      const message = known ? error.message : "The dashboard could not complete the request.";
      return json(res, status, { error: { code: known ? error.kind : "internal", message } });
    }
  }

  async function asset(req: ExchangeRequest, res: ExchangeResponse, name: string): Promise<void> {
    let bundle: DashboardBundle;
    try {
      bundle = await loadBundle();
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      return void res.end(`The dashboard could not be built: ${(error as Error).message}`);
    }
    const found = bundle[name as keyof DashboardBundle];
    if (!found) return json(res, 404, { error: { code: "not_found", message: "No such asset." } });
    if (req.headers["if-none-match"] === found.etag) {
      res.writeHead(304, { etag: found.etag });
      return void res.end("");
    }
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body = gzip ? found.gzipped : found.body;
    res.writeHead(200, {
      "content-type": found.contentType,
      "content-length": body.byteLength,
      etag: found.etag,
      "cache-control": "no-cache",
      vary: "accept-encoding",
      ...(gzip && { "content-encoding": "gzip" }),
    });
    res.end(body);
  }

  /**
   * `res` with a fresh request id in `x-request-id`, reporting its status to the request log and metrics (under
   * `dashboard-http` and `route`, one of a fixed few) when the answer is written.
   */
  function observed(res: ExchangeResponse, route: string): ExchangeResponse {
    const call = new UnaryCall();
    const tally: RouteTally = deps.tallies.ofRoute("dashboard-http", route);
    res.setHeader(REQUEST_ID_HEADER, call.requestId);
    return {
      setHeader: (name, value) => res.setHeader(name, value),
      writeHead(status, headers) {
        call.finishOnce(tally, deps.done, status);
        return res.writeHead(status, headers);
      },
      end: (body) => res.end(body),
    };
  }

  return function handleDashboard(req: ExchangeRequest, res: ExchangeResponse): void {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name]);
    if (path.startsWith(`${RPC_PREFIX}/`)) return rpc(req, res, path);
    if (path.startsWith(`${DASHBOARD_PATH}/api/`)) return void sessionApi(req, observed(res, sessionRoute(path)), path);
    if (path === "/") return redirect(observed(res, "root"), DASHBOARD_PATH);
    if (req.method !== "GET" && req.method !== "HEAD") return json(observed(res, "other"), 405, { error: { code: "method_not_allowed", message: "Use GET." } });
    if (path.startsWith(`${DASHBOARD_PATH}/assets/`)) return void asset(req, observed(res, "asset"), path.slice(`${DASHBOARD_PATH}/assets/`.length));
    if (path === DASHBOARD_PATH || path === `${DASHBOARD_PATH}/`) {
      const page = observed(res, "page");
      page.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" });
      return void page.end(INDEX_HTML);
    }
    json(observed(res, "other"), 404, { error: { code: "not_found", message: "No such dashboard page." } });
  };
}

/** The route label of a session endpoint: its own name, or `other` for unknown paths (so the labels stay few). */
function sessionRoute(path: string): string {
  const name = path.slice(`${DASHBOARD_PATH}/api/`.length);
  return name === "sign-in" || name === "session" || name === "sign-out" ? name : "other";
}

function redirect(res: ExchangeResponse, location: string): void {
  res.writeHead(303, { location, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(`See ${location}`);
}

/**
 * Whether a request for `/` comes from a person's browser (a GET that asks for HTML): it is sent to the dashboard.
 * API clients, which ask for JSON or anything, keep the API's JSON 404.
 */
export function wantsDashboard(req: { method?: string; url?: string; headers: { accept?: string } }): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (req.url !== "/") return false;
  return /\btext\/html\b/i.test(req.headers.accept ?? "");
}
