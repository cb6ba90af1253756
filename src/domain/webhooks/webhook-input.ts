import type { Violation } from "../errors.js";
import { isWebhookEvent } from "./events.js";

/** Default lead of `key.expiring`: one day before `expires`. */
export const DEFAULT_EXPIRING_BEFORE_MS = 86_400_000;

/**
 * Why `url` cannot be an endpoint, or undefined when it can: http or https, a host, no user name or password (a
 * credential in a URL ends up in logs and in listings). Where it points is checked at send time, on the resolved
 * address (private addresses are refused then unless allowed).
 */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not an absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `has scheme ${parsed.protocol.slice(0, -1)}; only http and https are allowed`;
  if (parsed.username !== "" || parsed.password !== "") return "must not carry a user name or password";
  if (parsed.hostname === "") return "has no host";
  return undefined;
}

/** The violations of an event list: unknown names (docs/webhooks.md lists the catalogue) and duplicates. */
export function eventViolations(events: readonly string[], location = "events"): Violation[] {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  events.forEach((event, i) => {
    if (!isWebhookEvent(event)) violations.push({ location: `${location}[${i}]`, message: `unknown event type "${event}"` });
    else if (seen.has(event)) violations.push({ location: `${location}[${i}]`, message: `"${event}" is listed twice` });
    seen.add(event);
  });
  return violations;
}

/** A threshold as the request gives it: exactly one of `remaining` or `percent` (the proto's oneof). */
export type ThresholdInput = { remaining?: number; percent?: number };

/** Violations of credit thresholds: exactly one level each, percent 1..99, remaining >= 0, no duplicates. */
export function thresholdViolations(thresholds: readonly ThresholdInput[], location = "thresholds.credits"): Violation[] {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  thresholds.forEach((t, i) => {
    const at = `${location}[${i}]`;
    if ((t.remaining === undefined) === (t.percent === undefined)) {
      violations.push({ location: at, message: "give exactly one of remaining or percent" });
      return;
    }
    if (t.percent !== undefined && !(Number.isInteger(t.percent) && t.percent >= 1 && t.percent <= 99)) {
      violations.push({ location: `${at}.percent`, message: "must be an integer from 1 to 99" });
    }
    if (t.remaining !== undefined && !(Number.isSafeInteger(t.remaining) && t.remaining >= 0)) {
      violations.push({ location: `${at}.remaining`, message: "must be a non-negative integer" });
    }
    const key = t.percent !== undefined ? `p${t.percent}` : `r${t.remaining}`;
    if (seen.has(key)) violations.push({ location: at, message: "is listed twice" });
    seen.add(key);
  });
  return violations;
}
