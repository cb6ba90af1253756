import type { IncomingHttpHeaders } from "node:http";
import { CSRF_HEADER, csrfTokenOf } from "./session-token.js";

/**
 * Why a request must not reach the dashboard's endpoints, or undefined when it may. Browsers send `Origin` on every
 * POST and `Sec-Fetch-Site` on every request: a page of another site is refused even before SameSite=Strict keeps
 * its cookie away. Clients that send neither (curl, tests) are let through; they cannot ride a browser's cookie.
 */
export function crossOriginRefusal(headers: IncomingHttpHeaders): string | undefined {
  const site = headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return `Cross-site requests are refused (Sec-Fetch-Site: ${site}).`;
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  const host = headers.host ?? (headers[":authority"] as string | undefined);
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = undefined;
  }
  return host !== undefined && originHost === host ? undefined : "Requests from another origin are refused.";
}

/** Why a session-bound call is refused for CSRF, or undefined when it carries the session's token. */
export function csrfRefusal(headers: IncomingHttpHeaders, sessionToken: string): string | undefined {
  const sent = headers[CSRF_HEADER];
  if (typeof sent !== "string" || sent === "") return `The ${CSRF_HEADER} header is missing.`;
  return sent === csrfTokenOf(sessionToken) ? undefined : `The ${CSRF_HEADER} header does not match the session.`;
}
