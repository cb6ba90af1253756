import { hash } from "node:crypto";
import type { RandomBytes } from "../domain/ids.js";

/** Name of the dashboard's session cookie. */
export const SESSION_COOKIE = "kw_dashboard_session";
/** Header every state-changing dashboard call carries: the session's CSRF token (on sign-in: any non-empty value). */
export const CSRF_HEADER = "x-keyward-csrf";
/** Everything the dashboard serves lives under this path; the cookie is scoped to it. */
export const DASHBOARD_PATH = "/dashboard";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A fresh session token: 32 random bytes, base64url (43 characters). The browser holds it only in the cookie. */
export function newSessionToken(randomBytes: RandomBytes): string {
  return Buffer.from(randomBytes(32)).toString("base64url");
}

/** True for strings shaped like `newSessionToken`'s; anything else is refused before any lookup. */
export function isSessionToken(value: string): boolean {
  return TOKEN.test(value);
}

/**
 * The CSRF token of a session, derived from its token: the server needs no second stored secret, and a page of
 * another origin can read neither the cookie nor this value (it is only sent in same-origin JSON answers).
 */
export function csrfTokenOf(sessionToken: string): string {
  return hash("sha256", `keyward-dashboard-csrf:${sessionToken}`, "base64url");
}

/**
 * The `Set-Cookie` value that hands the browser its session: HttpOnly, SameSite=Strict, scoped to /dashboard, and
 * `Secure` when Keyward itself serves TLS (KEYWARD_TLS_*), so the browser never sends it over plain HTTP. Without
 * TLS here (plain HTTP, or TLS ending at a proxy) `Secure` would make the browser drop it; see README "Dashboard".
 */
export function sessionCookie(token: string, maxAgeSeconds: number, options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=${token}; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${options.secure ? "; Secure" : ""}`;
}

/** The `Set-Cookie` value that removes the session cookie (with the same attributes it was set with). */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict; Max-Age=0${options.secure ? "; Secure" : ""}`;
}

/** Whether `req` came over a TLS connection Keyward terminates (HTTP/1.1 or HTTP/2). */
export function servedOverTls(req: object): boolean {
  return (req as { socket?: { encrypted?: boolean } | null }).socket?.encrypted === true;
}

/** The session token from a `Cookie` header, or undefined when absent or malformed. */
export function sessionTokenFromCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return isSessionToken(value) ? value : undefined;
  }
  return undefined;
}
