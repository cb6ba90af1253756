import type { IdentityRecord, KeyRecord } from "./key-records.js";
import type { PageQuery } from "./pages.js";

export interface IdentityStore {
  insert(record: IdentityRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<IdentityRecord | undefined>;
  findByExternalId(workspaceId: string, externalId: string): Promise<IdentityRecord | undefined>;
  /**
   * Compare-and-swap of a live identity (same id and workspace): writes only while the stored revision still equals
   * `record.revision` (the one the caller read), and stores revision + 1. False when the identity is gone or was
   * changed since it was read; the caller re-reads to tell which. UniqueViolationError when a changed external id
   * is taken by another live identity.
   */
  replace(record: IdentityRecord): Promise<boolean>;
  /**
   * Soft delete that unlinks every live key of the identity in the same atomic write, bumping each key's revision (so
   * a key replace that read the link fails its compare-and-swap). Resolves to those keys as they were before, whose
   * credits the caller moves to their own counter tags; false, having written nothing, when no live identity with
   * this id exists in the workspace (of concurrent deletes exactly one gets the keys, the others false).
   */
  markDeleted(workspaceId: string, id: string, at: number): Promise<KeyRecord[] | false>;
  list(workspaceId: string, page: PageQuery): Promise<IdentityRecord[]>;
  count(workspaceId: string): Promise<number>;
  /** Live identities whose id or external id contains `text`, ignoring case; ascending by id. */
  search(workspaceId: string, text: string, page: PageQuery): Promise<IdentityRecord[]>;
  /** How many live identities `search` would find in all. */
  countMatching(workspaceId: string, text: string): Promise<number>;
}
