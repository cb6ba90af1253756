import type { Clock } from "../../domain/clock.js";
import { DEFAULT_EXPIRING_BEFORE_MS } from "../../domain/webhooks/webhook-input.js";
import type { ExpiringKey, KeyExpiryScan, WebhookRecord } from "../../store/ports/webhooks.js";
import type { WebhookEvent } from "./messages.js";
import type { WebhookIndex } from "./webhook-index.js";

const PAGE = 1000;
/** How far back the first scan after a start looks: expiries while no instance ran are still reported. */
const FIRST_LOOKBACK_MS = 86_400_000;

/**
 * `key.expired` and `key.expiring` from a periodic scan of keys by expiry (an index range, so a scan reads only the
 * keys expiring since the last one). Message ids derive from the key and its expiry, so overlapping scans, restarts
 * and several instances report each expiry once. Runs only while some endpoint wants one of the two events.
 */
export function createExpiryScan(deps: {
  keys: KeyExpiryScan; index: WebhookIndex; clock: Clock; emit(event: WebhookEvent, only?: readonly { id: string }[]): void;
}) {
  let last: number | undefined;

  async function each(from: number, to: number, visit: (key: ExpiringKey) => void): Promise<void> {
    for (let after = from; ;) {
      const page = await deps.keys.expiringBetween(after, to, PAGE);
      page.forEach(visit);
      if (page.length < PAGE) return;
      after = page[page.length - 1].expires;
    }
  }

  const leadOf = (w: WebhookRecord) => w.thresholds.expiringBeforeMs ?? DEFAULT_EXPIRING_BEFORE_MS;

  async function run(): Promise<void> {
    const now = deps.clock.now();
    const from = last ?? now - FIRST_LOOKBACK_MS;
    const expired = deps.index.everyone("key.expired");
    if (expired.length > 0) {
      await each(from, now, (key) => {
        const to = deps.index.subscribers(key.workspaceId, "key.expired", key.apiId).filter((w) => w.createdAt <= key.expires);
        if (to.length === 0) return;
        deps.emit({
          type: "key.expired", workspaceId: key.workspaceId, time: key.expires, apiId: key.apiId,
          dedupeKey: `expired\n${key.id}\n${key.expires}`, dedupeTime: key.expires,
          data: { keyId: key.id, apiId: key.apiId, expires: key.expires },
        }, to);
      });
    }
    const leads = new Set(deps.index.everyone("key.expiring").map(leadOf));
    for (const lead of leads) {
      await each(from + lead, now + lead, (key) => {
        const to = deps.index.subscribers(key.workspaceId, "key.expiring", key.apiId)
          .filter((w) => leadOf(w) === lead && w.createdAt <= key.expires - lead);
        if (to.length === 0) return;
        deps.emit({
          type: "key.expiring", workspaceId: key.workspaceId, time: key.expires - lead, apiId: key.apiId,
          dedupeKey: `expiring\n${key.id}\n${key.expires}\n${lead}`, dedupeTime: key.expires - lead,
          data: { keyId: key.id, apiId: key.apiId, expires: key.expires },
        }, to);
      });
    }
    last = now;
  }

  return { run };
}
