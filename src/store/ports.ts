/**
 * Storage ports: the small, behavioural interfaces services use. Every adapter (embedded, MongoDB) implements
 * them and passes the same contract suite (test/store/documents.contract.ts).
 *
 * Conventions shared by all adapters:
 * - ids are `<prefix>_<base58>` and sort by creation time, so "ordered by id" is creation order;
 * - every write is atomic and durable once its promise resolves;
 * - soft-deleted records carry `deletedAt` and are invisible to `get`/`list` (but `findByHash` returns them so
 *   authentication can tell "deleted" from "unknown" if it wants to).
 */

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface RootKeyRecord {
  id: string;
  workspaceId: string;
  name?: string;
  /** base64(sha256(key)) — the plaintext is never stored. */
  hash: string;
  /** First characters of the key, safe to show. */
  start: string;
  permissions: string[];
  createdAt: number;
  expiresAt?: number;
  deletedAt?: number;
}

export interface ApiRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: number;
  updatedAt?: number;
  deleteProtection: boolean;
  storeEncryptedKeys: boolean;
  ipWhitelist?: string[];
  deletedAt?: number;
}

/** Keyset pagination: items with id > `after`, ascending by id, at most `limit`. */
export interface PageQuery {
  limit: number;
  after?: string;
}

export interface WorkspaceStore {
  get(id: string): Promise<WorkspaceRecord | undefined>;
  /** All workspaces, ascending by id (the first is the installation's default workspace). */
  list(page: PageQuery): Promise<WorkspaceRecord[]>;
}

export interface RootKeyStore {
  /** Returns the record with this hash, deleted or not; undefined when unknown. */
  findByHash(hash: string): Promise<RootKeyRecord | undefined>;
  /** Live (not deleted) root keys of a workspace. */
  list(workspaceId: string, page: PageQuery): Promise<RootKeyRecord[]>;
  get(workspaceId: string, id: string): Promise<RootKeyRecord | undefined>;
  insert(record: RootKeyRecord): Promise<void>;
  /** Soft delete; false when no live key with this id exists in the workspace. */
  markDeleted(workspaceId: string, id: string, at: number): Promise<boolean>;
  /** True when any root key (live or deleted) exists anywhere: decides first-start bootstrap. */
  any(): Promise<boolean>;
}

export interface ApiStore {
  insert(record: ApiRecord): Promise<void>;
  /** A live api of the workspace; undefined when unknown, deleted, or of another workspace. */
  get(workspaceId: string, id: string): Promise<ApiRecord | undefined>;
  /** Soft delete; false when no live api with this id exists in the workspace. */
  markDeleted(workspaceId: string, id: string, at: number): Promise<boolean>;
}

/** The documents side of storage: one object per backend. */
export interface DocumentStore {
  workspaces: WorkspaceStore;
  rootKeys: RootKeyStore;
  apis: ApiStore;
  /** Creates a workspace and its first root key in one atomic write. */
  createWorkspace(workspace: WorkspaceRecord, firstRootKey: RootKeyRecord): Promise<void>;
  /** Resolves when the backend answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
