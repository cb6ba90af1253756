import type { PageQuery } from "./pages.js";

// Audit log: one record per change made through the API or the CLI. Never a secret: no key, plaintext or root key.

/** A document a change wrote. */
export interface AuditResource {
  type: string;
  id: string;
}

export interface AuditRecord {
  /** `log_...`, sortable by time. */
  id: string;
  time: number;
  workspaceId: string;
  /** Root-key id, or "cli". */
  actor: string;
  /** `<resource>.<verb>`, e.g. `key.create`. */
  action: string;
  resources: AuditResource[];
  requestId?: string;
  remoteAddress?: string;
  userAgent?: string;
}

/** Filters of `list`; all optional ones combine with AND. `[start, end)` in unix ms. */
export interface AuditQuery {
  workspaceId: string;
  start?: number;
  end?: number;
  actor?: string;
  actions?: readonly string[];
  resourceType?: string;
  resourceId?: string;
  /** Newest first (descending ids; the page's `after` is then the last, older, id seen). Default: oldest first. */
  newestFirst?: boolean;
}

export interface AuditLogStore {
  /**
   * Runs `write` (a document-store write) so that the first atomic commit it makes synchronously carries `records`
   * too (one per document the write touches): change and records are durable together or not at all. `taken` says
   * whether that happened; when it did not (an adapter without such commits, or no commit made), the caller decides
   * whether to `append` them.
   */
  inCommit<T>(records: AuditRecord[], write: () => Promise<T>): { result: Promise<T>; taken: () => boolean };
  /**
   * Stores a record on its own. Embedded: one durable commit. MongoDB: an insert, and on failure an outbox that
   * retries in the background (counted in `stats`); it resolves once the record is stored or queued.
   */
  append(record: AuditRecord): Promise<void>;
  /**
   * Stores several records as `append` does one, in one write where the store allows (embedded: one commit; MongoDB:
   * one insertMany, the records it could not store going to the outbox): an import's thousand key.create records.
   */
  appendMany(records: readonly AuditRecord[]): Promise<void>;
  /** Records of a workspace matching `query`, by id (ascending, or descending with `newestFirst`), keyset-paginated. */
  list(query: AuditQuery, page: PageQuery): Promise<AuditRecord[]>;
  /** Records of every workspace after the id `after`, ascending by id: what the webhook fan-out reads as its outbox. */
  since(after: string | undefined, limit: number): Promise<AuditRecord[]>;
  stats(): { written: number; queued: number; failedWrites: number; dropped: number; lastError?: string };
  close(): Promise<void>;
}
