import type { NamedPageQuery } from "./pages.js";

export interface ApiRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: number;
  updatedAt?: number;
  deleteProtection: boolean;
  storeEncryptedKeys: boolean;
  /** Client addresses and CIDR ranges allowed to verify the api's keys (domain/ip-allow-list.ts); absent or empty: any. */
  ipWhitelist?: string[];
  /** The prefix new keys take when createKey names none. */
  defaultPrefix?: string;
  /** The random bytes of new keys when createKey names no byte length (absent: 16). */
  defaultBytes?: number;
  deletedAt?: number;
  /**
   * Bumped by every write of the record (absent = 0, as in records stored before revisions existed): `replace`
   * compares it, so a read-modify-write cannot silently overwrite a concurrent one.
   */
  revision?: number;
}

export interface ApiStore {
  insert(record: ApiRecord): Promise<void>;
  /** A live api of the workspace; undefined when unknown, deleted, or of another workspace. */
  get(workspaceId: string, id: string): Promise<ApiRecord | undefined>;
  /** Soft delete; false when no live api with this id exists in the workspace. */
  markDeleted(workspaceId: string, id: string, at: number): Promise<boolean>;
  /**
   * Compare-and-swap of a live api (same id and workspace): writes only while the stored revision still equals
   * `record.revision` (the one the caller read), and stores revision + 1. False when the api is gone or was changed
   * since it was read; the caller re-reads to tell which (replaceWithRetry).
   */
  replace(record: ApiRecord): Promise<boolean>;
  /** Live apis of a workspace, ascending by id, narrowed by `page.search` and `page.ids`. */
  list(workspaceId: string, page: NamedPageQuery): Promise<ApiRecord[]>;
}
