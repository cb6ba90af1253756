import type { IdentityRecord, KeyRecord } from "./key-records.js";
import type { KeySearch } from "../key-search.js";
import type { PageQuery } from "./pages.js";

export interface KeyStore {
  insert(record: KeyRecord): Promise<void>;
  /**
   * Inserts new keys all or none, in as few writes as the store allows (embedded: one commit; MongoDB: one
   * insertMany, in a transaction where the deployment has them): what an import of many keys needs. Throws
   * UniqueViolationError, having inserted none, when an id or hash is taken (or repeats within `records`).
   */
  insertMany(records: readonly KeyRecord[]): Promise<void>;
  /** Which of `hashes` a key holds already, live or deleted (a hash is never reused): an import fails those keys. */
  takenHashes(hashes: readonly string[]): Promise<Set<string>>;
  /** The live key with this hash, or undefined (unknown or deleted). */
  findByHash(hash: string): Promise<KeyRecord | undefined>;
  /** A live key of the workspace. */
  get(workspaceId: string, id: string): Promise<KeyRecord | undefined>;
  /**
   * Compare-and-swap of a live key's record (same id, workspace, api and hash): writes only while the stored
   * revision still equals `record.revision` (the one the caller read), and stores revision + 1. False when the key
   * is gone or was changed since it was read; the caller re-reads to tell which (see updateKeyWithRetry).
   * With `newIdentity` (the identity `record` now links to, not stored yet), the same atomic write inserts it: both or
   * neither, so a replace that loses its race leaves no identity behind. UniqueViolationError, the key unchanged, when
   * the identity's external id is taken by a live identity of the workspace.
   */
  replace(record: KeyRecord, options?: { newIdentity?: IdentityRecord }): Promise<boolean>;
  /** Soft delete; false when no live key with this id exists in the workspace. */
  markDeleted(workspaceId: string, id: string, at: number): Promise<boolean>;
  /** Erases the record, deleted or not; false when there was none. */
  erase(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Live keys of an api, ascending by id, optionally only those of one identity, or only those `search` finds
   * (key-search.ts). With `deleted: true`, instead the soft-deleted keys of the api (what a permanent apis.deleteKeys
   * erases too).
   */
  listByApi(workspaceId: string, apiId: string, page: PageQuery & { identityId?: string; deleted?: boolean; search?: KeySearch }): Promise<KeyRecord[]>;
  countByApi(workspaceId: string, apiId: string, filter?: { identityId?: string; search?: KeySearch }): Promise<number>;
  /** Live keys linked to an identity (to detach them when it is deleted). */
  listByIdentity(workspaceId: string, identityId: string, page: PageQuery): Promise<KeyRecord[]>;
}
