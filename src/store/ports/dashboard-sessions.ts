import type { RootKeyRecord } from "./root-keys.js";

/**
 * A dashboard sign-in: a session token exchanged for a root key. Only the token's hash is stored; the root key is
 * named by its hash, so authentication's root-key cache (and its invalidation on revocation) decides every call.
 */
export interface DashboardSessionRecord {
  id: string;
  /** base64(sha256(session token)). */
  hash: string;
  workspaceId: string;
  rootKeyId: string;
  /** The root key's own stored hash (RootKeyRecord.hash), never the key. */
  rootKeyHash: string;
  createdAt: number;
  /** Unix ms; the session is refused from then on. */
  expiresAt: number;
}

export interface DashboardSessionStore {
  insert(record: DashboardSessionRecord): Promise<void>;
  /** The session with this token hash, expired or not; undefined when unknown or signed out. */
  findByHash(hash: string): Promise<DashboardSessionRecord | undefined>;
  /** Signs out: removes it for good; false when there was none. */
  delete(hash: string): Promise<boolean>;
  /** Removes every session that expired at or before `now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
}
