/**
 * Storage ports of webhooks: the endpoints (management writes, audited like every document) and the outbox of
 * messages to them (written by the event sources and the dispatcher, never audited: a delivery is not a change).
 */
import type { PageQuery } from "./pages.js";

/** `key.credits.low` fires at `remaining` credits or fewer, or at `percent` of the key's refill amount (else initial credits). */
export type CreditThreshold = { remaining: number } | { percent: number };

export interface WebhookThresholds {
  credits: CreditThreshold[];
  /** `key.expiring` fires this long before a key's `expires`, ms; absent: the default (one day). */
  expiringBeforeMs?: number;
}

/** A signing secret, never stored in plaintext: AES-256-GCM under KEYWARD_ENCRYPTION_KEY, the webhook id as AAD. */
export interface StoredSecret {
  iv: string;
  ciphertext: string;
  tag: string;
  /** Set on a rotated-out secret: it signs beside the current one until then (unix ms). */
  expiresAt?: number;
}

export interface WebhookRecord {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  apiId?: string;
  description?: string;
  thresholds: WebhookThresholds;
  enabled: boolean;
  /** Why it is not enabled: paused by the caller, or disabled after persistent failure. */
  disabledReason?: "paused" | "failing";
  /** The current secret first, then any rotated-out one still in its overlap. */
  secrets: StoredSecret[];
  createdAt: number;
  updatedAt?: number;
}

export interface WebhookStore {
  insert(record: WebhookRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<WebhookRecord | undefined>;
  list(workspaceId: string, page: PageQuery): Promise<WebhookRecord[]>;
  /** Every workspace's endpoints, ascending by id: what an instance's in-memory index loads. */
  all(page: PageQuery): Promise<WebhookRecord[]>;
  /** Replaces a stored endpoint (same id and workspace); false when it is gone. */
  replace(record: WebhookRecord): Promise<boolean>;
  /** False when there was none. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One attempt, as listDeliveries shows the last of them. */
export interface DeliveryAttempt {
  at: number;
  responseCode?: number;
  latencyMs: number;
  error?: string;
}

/** One message to one endpoint: the Standard Webhooks `webhook-id` is its id, the same on every attempt. */
export interface WebhookMessageRecord {
  /** `msg_...`, or a deterministic id where the event must fire once (e.g. one per rate-limit window). */
  id: string;
  workspaceId: string;
  webhookId: string;
  type: string;
  /** When the event happened, unix ms (the body's `timestamp`). */
  createdAt: number;
  data: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  /** Who holds it and until when: the instance sending it (MongoDB: several instances share the outbox). */
  leaseOwner?: string;
  leaseUntil?: number;
  /** The last attempts, at most a few (bounded whatever the endpoint does). */
  history: DeliveryAttempt[];
  deliveredAt?: number;
  /** When it reached delivered or failed: what retention prunes by. */
  finishedAt?: number;
}

/** The outcome of one attempt, applied by `settle`. */
export interface Settlement {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  attempt?: DeliveryAttempt;
  deliveredAt?: number;
  finishedAt?: number;
}

/** Newest first: `before` is the id of the last message of the previous page. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  limit: number;
  before?: string;
}

export interface WebhookMessageStore {
  /**
   * Stores messages durably (embedded: one journal commit). A message whose id is already stored is skipped, not an
   * error: deterministic ids make an event fire once across retries and instances. With `cursor`, also stores the
   * audit fan-out's position in the same write (MongoDB: right after).
   */
  enqueue(messages: readonly WebhookMessageRecord[], options?: { cursor?: string }): Promise<void>;
  /** Where the audit fan-out stopped: the last audit record id it handled. */
  cursor(): Promise<string | undefined>;
  /**
   * Takes up to `limit` pending messages due at `now` whose lease is free or expired, leasing each to `owner` until
   * `now + leaseMs`: one atomic step per message, so two instances never take the same one at once.
   */
  claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<WebhookMessageRecord[]>;
  /** Records an attempt's outcome and frees the lease; false when `owner` no longer holds it. */
  settle(id: string, owner: string, settlement: Settlement): Promise<boolean>;
  get(workspaceId: string, id: string): Promise<WebhookMessageRecord | undefined>;
  listByWebhook(workspaceId: string, webhookId: string, query: DeliveryQuery): Promise<WebhookMessageRecord[]>;
  /** Makes a message pending and due at `now` (redeliver); false when there is none of this workspace. */
  retry(workspaceId: string, id: string, now: number): Promise<boolean>;
  /** Deletes finished messages (delivered or failed) finished before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

/** A live key with an expiry, as the expiry scan needs it. */
export interface ExpiringKey {
  id: string;
  workspaceId: string;
  apiId: string;
  expires: number;
}

/** What the `key.expiring` / `key.expired` scan reads: keys by expiry time, from an index (never a full scan). */
export interface KeyExpiryScan {
  /** Live keys with `from < expires <= to`, ascending by expiry, at most `limit`. */
  expiringBetween(from: number, to: number, limit: number): Promise<ExpiringKey[]>;
}
