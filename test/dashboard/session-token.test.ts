import { describe, expect, it } from "vitest";
import { crossOriginRefusal, csrfRefusal } from "../../src/dashboard/guards.js";
import { csrfTokenOf, isSessionToken, newSessionToken, sessionTokenFromCookies } from "../../src/dashboard/session-token.js";

const TOKEN = "a".repeat(43);

describe("dashboard session tokens", () => {
  it("a new token is 32 random bytes in base64url", () => {
    const token = newSessionToken((size) => new Uint8Array(size).fill(255));
    expect(token).toBe("_".repeat(42) + "8");
    expect(isSessionToken(token)).toBe(true);
  });

  it("the cookie parser finds the session among other cookies and refuses malformed values", () => {
    expect(sessionTokenFromCookies(`theme=dark; kw_dashboard_session=${TOKEN}; other=1`)).toBe(TOKEN);
    expect(sessionTokenFromCookies("kw_dashboard_session=short")).toBeUndefined();
    expect(sessionTokenFromCookies(`kw_dashboard_session=${TOKEN}x`)).toBeUndefined();
    expect(sessionTokenFromCookies(`xkw_dashboard_session=${TOKEN}`)).toBeUndefined();
    expect(sessionTokenFromCookies(undefined)).toBeUndefined();
  });

  it("the CSRF token is derived from the session token and differs per session", () => {
    expect(csrfTokenOf(TOKEN)).toBe(csrfTokenOf(TOKEN));
    expect(csrfTokenOf(TOKEN)).not.toBe(csrfTokenOf("b".repeat(43)));
    expect(csrfTokenOf(TOKEN)).not.toContain(TOKEN);
  });
});

describe("dashboard request guards", () => {
  it("same-origin, same-host and header-less requests pass; other origins and cross-site fetches do not", () => {
    expect(crossOriginRefusal({ host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080" })).toBeUndefined();
    expect(crossOriginRefusal({ host: "keys.example", origin: "https://keys.example" })).toBeUndefined();
    expect(crossOriginRefusal({ host: "127.0.0.1:8080" })).toBeUndefined();
    expect(crossOriginRefusal({ host: "127.0.0.1:8080", "sec-fetch-site": "same-origin" })).toBeUndefined();
    expect(crossOriginRefusal({ host: "127.0.0.1:8080", origin: "http://127.0.0.1:9090" })).toBe("Requests from another origin are refused.");
    expect(crossOriginRefusal({ host: "127.0.0.1:8080", origin: "null" })).toBe("Requests from another origin are refused.");
    expect(crossOriginRefusal({ origin: "http://127.0.0.1:8080" })).toBe("Requests from another origin are refused.");
    expect(crossOriginRefusal({ host: "a", "sec-fetch-site": "same-site" })).toBe("Cross-site requests are refused (Sec-Fetch-Site: same-site).");
  });

  it("the CSRF header must carry the session's own token", () => {
    expect(csrfRefusal({ "x-keyward-csrf": csrfTokenOf(TOKEN) }, TOKEN)).toBeUndefined();
    expect(csrfRefusal({}, TOKEN)).toBe("The x-keyward-csrf header is missing.");
    expect(csrfRefusal({ "x-keyward-csrf": csrfTokenOf("b".repeat(43)) }, TOKEN)).toBe("The x-keyward-csrf header does not match the session.");
  });
});
