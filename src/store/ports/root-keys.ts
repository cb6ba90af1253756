import type { PageQuery } from "./pages.js";

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
