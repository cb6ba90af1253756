import { ENDPOINT_EVENTS, USAGE_EVENTS, WEBHOOK_EVENTS } from "../src/domain/webhooks/events.js";

/** The event catalogue for the picker: usage signals first, then each resource's audited changes. */
export function eventGroups(): { title: string; events: string[] }[] {
  const special = new Set<string>([...USAGE_EVENTS, ...ENDPOINT_EVENTS]);
  const byResource = new Map<string, string[]>();
  for (const event of WEBHOOK_EVENTS) {
    if (special.has(event)) continue;
    const resource = event.slice(0, event.indexOf("."));
    byResource.set(resource, [...(byResource.get(resource) ?? []), event]);
  }
  return [
    { title: "Usage signals", events: [...USAGE_EVENTS] },
    { title: "Endpoint", events: [...ENDPOINT_EVENTS] },
    ...[...byResource].map(([resource, events]) => ({ title: `${resource} changes`, events })),
  ];
}

/** One level as the proto takes it: exactly one of the two set. */
export type CreditLevel = { remaining?: bigint; percent?: number };

/**
 * Credit levels typed as "100, 10%": a number is a remaining balance, a number with % a share of the key's refill
 * amount (without a refill, of the credits it was last given). Only the form is checked here; ranges and duplicates are the server's to name.
 */
export function parseCreditLevels(text: string): { levels: CreditLevel[] } | { error: string } {
  const levels: CreditLevel[] = [];
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const match = /^(\d{1,15})(%?)$/.exec(part);
    if (!match) return { error: `Credit level “${part}” is neither a number of credits (100) nor a percentage (10%).` };
    levels.push(match[2] ? { percent: Number(match[1]) } : { remaining: BigInt(match[1]) });
  }
  return { levels };
}

/** The levels back as text, for the endpoint page. */
export function creditLevelsText(levels: readonly CreditLevel[]): string {
  return levels.map((l) => (l.percent !== undefined ? `${l.percent}%` : `${l.remaining} credits`)).join(", ");
}

/** An endpoint's delivery state in words: active, paused by a caller, or disabled after a day of failures. */
export function webhookState(w: { enabled: boolean; disabledReason?: string }): { label: string; tone: "ok" | "off" | "wait" } {
  if (w.enabled) return { label: "active", tone: "ok" };
  if (w.disabledReason === "failing") return { label: "disabled: failing", tone: "off" };
  return { label: "paused", tone: "wait" };
}

/** What pause, resume, test, rotate and redeliver need (the API checks the same). */
export const UPDATE_WEBHOOK: [string, string] = ["webhook", "update_webhook"];

/** Hours ↔ the API's milliseconds for key.expiring's lead (1 minute to 90 days). */
export const HOUR_MS = 3_600_000;
