import type { PageQuery } from "../ports/pages.js";
import type { ExpiringKey, KeyExpiryScan, Settlement, WebhookMessageRecord, WebhookMessageStore, WebhookRecord, WebhookStore } from "../ports/webhooks.js";
import type { CollectionSpec, Doc, Journal, Mutation } from "./journal.js";
import { expiryHour } from "./keys.js";
import type { KeyRecord } from "../ports/key-records.js";

const WEBHOOKS = "webhooks";
const MESSAGES = "webhook_messages";
const STATE = "webhook_state";
/** The one document of STATE: where the audit fan-out stopped. */
const CURSOR_ID = "audit_cursor";

export const webhooksCollection: CollectionSpec = { indexes: { workspace: (d) => d.workspaceId } };

/** Pending messages (what the dispatcher polls), messages by endpoint (listDeliveries), finished ones (pruning). */
export const webhookMessagesCollection: CollectionSpec = {
  indexes: {
    pending: (d) => (d.status === "pending" ? "pending" : undefined),
    webhook: (d) => d.webhookId,
    finished: (d) => (d.status === "pending" ? undefined : "finished"),
  },
};

export const webhookStateCollection: CollectionSpec = {};

/** WebhookStore over a journal holding `webhooksCollection` as "webhooks". */
export function webhookStoreOver(journal: Journal): WebhookStore {
  const get = (workspaceId: string, id: string) => {
    const doc = journal.get<WebhookRecord>(WEBHOOKS, id);
    return doc?.workspaceId === workspaceId ? doc : undefined;
  };
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: WEBHOOKS, doc: record }]),
    get: async (workspaceId, id) => get(workspaceId, id),
    list: async (workspaceId, page: PageQuery) =>
      journal.scan<WebhookRecord>(WEBHOOKS, { index: { name: "workspace", value: workspaceId }, after: page.after, limit: page.limit }),
    all: async (page) => journal.scan<WebhookRecord>(WEBHOOKS, { after: page.after, limit: page.limit }),
    async replace(record) {
      if (!get(record.workspaceId, record.id)) return false;
      await journal.commit([{ op: "put", collection: WEBHOOKS, doc: record }]);
      return true;
    },
    async delete(workspaceId, id) {
      if (!get(workspaceId, id)) return false;
      await journal.commit([{ op: "delete", collection: WEBHOOKS, id }]);
      return true;
    },
  };
}

/**
 * WebhookMessageStore over the journal. Every method reads and commits in one synchronous stretch, so a claim, a
 * settle or a deduplicating insert is atomic against every other call of this process (the only one: LOCK file).
 */
export function webhookMessageStoreOver(journal: Journal): WebhookMessageStore {
  const put = (doc: WebhookMessageRecord): Mutation => ({ op: "put", collection: MESSAGES, doc });
  /** Owners that took leases from this store since it opened. */
  const granted = new Set<string>();
  return {
    enqueue(messages, options = {}) {
      const fresh = new Map<string, WebhookMessageRecord>();
      for (const message of messages) if (!journal.get(MESSAGES, message.id)) fresh.set(message.id, message);
      const mutations: Mutation[] = [...fresh.values()].map((doc) => ({ op: "insert", collection: MESSAGES, doc }));
      if (options.cursor !== undefined) mutations.push({ op: "put", collection: STATE, doc: { id: CURSOR_ID, value: options.cursor } as Doc });
      return mutations.length === 0 ? Promise.resolve() : journal.commit(mutations);
    },
    cursor: async () => journal.get<{ id: string; value: string }>(STATE, CURSOR_ID)?.value,
    async claimDue(owner, now, leaseMs, limit) {
      const due = journal.scan<WebhookMessageRecord>(MESSAGES, {
        index: { name: "pending", value: "pending" },
        // One process holds the journal (LOCK file): a lease this store did not grant is a previous process's, dead.
        filter: (m) => m.nextAttemptAt <= now && (m.leaseUntil === undefined || m.leaseUntil <= now || !granted.has(m.leaseOwner!)),
        limit,
      });
      if (due.length === 0) return [];
      granted.add(owner);
      const leased = due.map((m) => ({ ...m, leaseOwner: owner, leaseUntil: now + leaseMs }));
      await journal.commit(leased.map(put));
      return leased;
    },
    async settle(id, owner, settlement) {
      const stored = journal.get<WebhookMessageRecord>(MESSAGES, id);
      if (!stored || stored.leaseOwner !== owner) return false;
      await journal.commit([put(settled(stored, settlement))]);
      return true;
    },
    get: async (workspaceId, id) => {
      const doc = journal.get<WebhookMessageRecord>(MESSAGES, id);
      return doc?.workspaceId === workspaceId ? doc : undefined;
    },
    async listByWebhook(workspaceId, webhookId, query) {
      const all = journal.scan<WebhookMessageRecord>(MESSAGES, {
        index: { name: "webhook", value: webhookId },
        filter: (m) => m.workspaceId === workspaceId && (query.status === undefined || m.status === query.status) &&
          (query.before === undefined || m.id < query.before),
      });
      return all.reverse().slice(0, query.limit);
    },
    async retry(workspaceId, id, now) {
      const stored = journal.get<WebhookMessageRecord>(MESSAGES, id);
      if (stored?.workspaceId !== workspaceId) return false;
      await journal.commit([put(retried(stored, now))]);
      return true;
    },
    async prune(before) {
      const old = journal.scan<WebhookMessageRecord>(MESSAGES, {
        index: { name: "finished", value: "finished" },
        filter: (m) => (m.finishedAt ?? 0) < before,
        limit: 10_000,
      });
      if (old.length > 0) await journal.commit(old.map((m) => ({ op: "delete", collection: MESSAGES, id: m.id })));
      return old.length;
    },
  };
}

/** The message after an attempt's outcome: lease freed, the attempt at the head of its short history. */
export function settled(stored: WebhookMessageRecord, s: Settlement): WebhookMessageRecord {
  const { leaseOwner: _o, leaseUntil: _u, ...rest } = stored;
  return {
    ...rest,
    status: s.status,
    attempts: s.attempts,
    nextAttemptAt: s.nextAttemptAt,
    history: s.attempt ? [s.attempt, ...stored.history].slice(0, HISTORY) : stored.history,
    ...(s.deliveredAt !== undefined && { deliveredAt: s.deliveredAt }),
    ...(s.finishedAt !== undefined && { finishedAt: s.finishedAt }),
  };
}

/** Pending again and due now, lease freed (a redeliver). */
export function retried(stored: WebhookMessageRecord, now: number): WebhookMessageRecord {
  const { leaseOwner: _o, leaseUntil: _u, finishedAt: _f, ...rest } = stored;
  return { ...rest, status: "pending", nextAttemptAt: now };
}

/** Attempts kept per message: enough to read a failure's story, bounded whatever the endpoint does. */
export const HISTORY = 5;

/** KeyExpiryScan over the keys' `expiresHour` index: the hours from `from` to `to`, each bucket filtered. */
export function keyExpiryScanOver(journal: Journal): KeyExpiryScan {
  return {
    async expiringBetween(from, to, limit) {
      const found: ExpiringKey[] = [];
      for (let hour = expiryHour(from); hour <= expiryHour(to) && found.length < limit; hour++) {
        const keys = journal.scan<KeyRecord>("keys", {
          index: { name: "expiresHour", value: String(hour) },
          filter: (k) => k.expires !== undefined && k.expires > from && k.expires <= to && k.deletedAt == null,
        });
        for (const k of keys) found.push({ id: k.id, workspaceId: k.workspaceId, apiId: k.apiId, expires: k.expires! });
      }
      return found.sort((a, b) => a.expires - b.expires).slice(0, limit);
    },
  };
}
