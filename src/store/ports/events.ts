import type { AnalyticsQuery, AnalyticsRow } from "../analytics-query.js";

// Verification events: every verification except NOT_FOUND, recorded off the request path in batches.

/**
 * Most events an embedded event stream keeps (KEYWARD_EVENTS_MAX_STORED): about 2.4 GB of segments at the ~240 bytes
 * of an event without tags (bench:soak).
 */
export const DEFAULT_MAX_STORED_EVENTS = 10_000_000;

export interface VerificationEvent {
  time: number;
  workspaceId: string;
  apiId: string;
  keyId: string;
  identityId?: string;
  outcome: string;
  tags: string[];
  /** Credits deducted by this verification (0 unless VALID with a cost). */
  creditsSpent: number;
  latencyMs: number;
  requestId: string;
}

export interface VerificationEventQuery {
  workspaceId: string;
  since: number;
  until: number;
  apiId?: string;
  keyId?: string;
  identityId?: string;
  outcome?: string;
  tag?: string;
}

export interface VerificationEventStore {
  /** Queues an event; never blocks or fails the caller. */
  record(event: VerificationEvent): void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Counts by outcome per time bucket (bucket = floor(time / bucketMs) * bucketMs), oldest first. */
  aggregate(query: VerificationEventQuery & { bucketMs: number }): Promise<{ time: number; outcome: string; count: number }[]>;
  /**
   * Analytics (analytics-query.ts): counts per outcome and credits spent per (bucket, group) of the events written
   * so far, every group with at least one event, in no particular order.
   */
  query(query: AnalyticsQuery): Promise<AnalyticsRow[]>;
  /**
   * When each of `keyIds` (of `workspaceId`) was last verified, unix ms: the latest time among the events written
   * so far, kept by the batch writer as it writes them (no work on the verification path) and persisted with that
   * write, so it survives restarts and every instance on a shared backend reads the same value. It trails a
   * verification by at most one flush (about a second) while the backend takes writes. Keys never verified (or
   * verified only as NOT_FOUND, which records nothing) are absent from the map.
   */
  lastUsed(workspaceId: string, keyIds: readonly string[]): Promise<Map<string, number>>;
  close(): Promise<void>;
}
