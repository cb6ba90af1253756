import { crossedLevels, percentBase } from "../../domain/webhooks/credit-crossing.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import { latestRefillBoundary, type RefillRule } from "../../domain/refill-calendar.js";
import type { WebhookEvent } from "./messages.js";
import type { WebhookIndex } from "./webhook-index.js";

/** What a verification knows when it is decided: the whole input of the usage signals. */
export interface VerificationSignal {
  key: KeyRecord;
  /** The key's identity, when it has one: a balance it shares may be what ran out. */
  identity?: IdentityRecord;
  code: string;
  now: number;
  cost: number;
  /** The key's balance after the step (unchanged when refused); absent without credits. */
  remaining?: number;
  /** The limits judged, as verification has them (mapped only when a signal fires). */
  limits: readonly { applied: { name: string; limit: number; duration: number }; result: { exceeded: boolean; reset: number } }[];
}

/** A standalone check that was refused, as runLimits judged it. */
export interface RatelimitSignal {
  workspaceId: string;
  namespaceId: string;
  namespace: string;
  identifier: string;
  limit: number;
  duration: number;
  reset: number;
  now: number;
}

/** Remembered "already sent" keys, bounded: past this many the set starts over (the store's unique ids still dedupe). */
const SEEN_LIMIT = 50_000;

/**
 * Usage signals from results the request already has, costing the verification only map lookups: nothing is read
 * or awaited here, and an event goes to `emit`, which stores it in the background. A signal that must fire once per
 * window or exhaustion gets a deterministic message id (dedupeKey), so instances racing on it store it once; the
 * in-process `seen` set makes the refusals after the first free.
 */
export function createUsageSignals(deps: { index: WebhookIndex; emit(event: WebhookEvent, only?: readonly { id: string }[]): void }) {
  const seen = new Set<string>();
  const firstTime = (key: string): boolean => {
    if (seen.has(key)) return false;
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(key);
    return true;
  };

  function verified(s: VerificationSignal): void {
    const { key } = s;
    const ws = key.workspaceId;
    if (s.code === "VALID" && s.remaining !== undefined) {
      const base = percentBase(key.credits);
      if (!deps.index.mayBeLow(ws, s.remaining, base)) return;
      for (const webhook of deps.index.subscribers(ws, "key.credits.low", key.apiId)) {
        for (const threshold of crossedLevels(webhook.thresholds.credits, { after: s.remaining, cost: s.cost, base })) {
          deps.emit({
            type: "key.credits.low", workspaceId: ws, time: s.now, apiId: key.apiId,
            data: { keyId: key.id, apiId: key.apiId, remaining: s.remaining, threshold },
          }, [webhook]);
        }
      }
    } else if (s.code === "USAGE_EXCEEDED" && deps.index.wants(ws, "key.credits.exhausted")) {
      // One per refill period, write of the key (its revision) and balance: a refill, an update of the key or of its
      // credits (updateCredits writes the record too) re-arms it, on every instance once it reads the record again.
      // With a balance shared by its identity, so do the identity's refills and writes (updateIdentity).
      const shared = s.identity?.credits ? s.identity : undefined;
      const period = Math.max(refillPeriodOf(key.credits?.refill, s.now), refillPeriodOf(shared?.credits?.refill, s.now));
      const changed = Math.max(key.updatedAt ?? key.createdAt, key.credits?.changedAt ?? 0, shared ? shared.updatedAt ?? shared.createdAt : 0);
      const sharedPart = shared ? `\n${shared.id}\n${shared.revision ?? 0}` : "";
      const dedupeKey = `exhausted\n${key.id}\n${period}\n${key.revision ?? 0}\n${s.remaining ?? 0}${sharedPart}`;
      if (firstTime(dedupeKey)) {
        deps.emit({
          type: "key.credits.exhausted", workspaceId: ws, time: s.now, apiId: key.apiId, dedupeKey,
          dedupeTime: Math.max(period, changed),
          data: { keyId: key.id, apiId: key.apiId, remaining: s.remaining ?? 0 },
        });
      }
    } else if (s.code === "RATE_LIMITED" && deps.index.wants(ws, "key.ratelimited")) {
      for (const { applied: limit, result } of s.limits) {
        if (!result.exceeded) continue;
        const windowStart = result.reset - limit.duration;
        const dedupeKey = `ratelimited\n${key.id}\n${limit.name}\n${windowStart}`;
        if (!firstTime(dedupeKey)) continue;
        deps.emit({
          type: "key.ratelimited", workspaceId: ws, time: s.now, apiId: key.apiId, dedupeKey, dedupeTime: windowStart,
          data: { keyId: key.id, apiId: key.apiId, limit: { name: limit.name, limit: limit.limit, duration: limit.duration }, reset: result.reset },
        });
      }
    }
  }

  function ratelimitRefused(s: RatelimitSignal): void {
    if (!deps.index.wants(s.workspaceId, "ratelimit.exceeded")) return;
    const windowStart = s.reset - s.duration;
    const dedupeKey = `exceeded\n${s.namespaceId}\n${s.identifier}\n${windowStart}`;
    if (!firstTime(dedupeKey)) return;
    deps.emit({
      type: "ratelimit.exceeded", workspaceId: s.workspaceId, time: s.now, dedupeKey, dedupeTime: windowStart,
      data: { namespaceId: s.namespaceId, namespace: s.namespace, identifier: s.identifier, limit: s.limit, duration: s.duration, reset: s.reset },
    });
  }

  return { verified, ratelimitRefused };
}

export type UsageSignals = ReturnType<typeof createUsageSignals>;

/** The start of the refill period `now` is in; 0 without a refill. */
function refillPeriodOf(rule: RefillRule | undefined, now: number): number {
  return rule ? latestRefillBoundary(rule, now) : 0;
}
