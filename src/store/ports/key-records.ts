// The key and identity records share a file: each one's store names the other's record (a key's new identity, an
// identity's detached keys), so in the stores' own files they would import each other.

export type RefillInterval = "daily" | "monthly";

export interface RatelimitRecord {
  id: string;
  name: string;
  limit: number;
  /** Window length, ms. */
  duration: number;
  autoApply: boolean;
}

/** A key's credits rule, and what the webhook credit events need of its last credit update (absent in old records). */
export interface KeyCredits {
  refill?: { interval: RefillInterval; amount: number; refillDay?: number };
  /**
   * The balance last given outright (createKey, updateKey's credits, updateCredits "set", import): what a percent
   * credit level counts against when the key has no refill.
   */
  base?: number;
  /**
   * Unix ms of the last credit update (updateCredits, updateKey's credits). Writing it bumps the revision, which
   * re-arms `key.credits.exhausted`; the time dates the next such message.
   */
  changedAt?: number;
}

export interface KeyRecord {
  id: string;
  workspaceId: string;
  apiId: string;
  /** base64(sha256(key)); unique across all keys. */
  hash: string;
  start: string;
  name?: string;
  meta?: Record<string, unknown>;
  createdAt: number;
  updatedAt?: number;
  /** Unix ms after which the key no longer verifies. */
  expires?: number;
  enabled: boolean;
  environment?: string;
  identityId?: string;
  /** Present when the key has limited uses; the balance itself lives in the counter store. */
  credits?: KeyCredits;
  ratelimits: RatelimitRecord[];
  /** Direct permission names and role names (RBAC resolves them to effective permissions). */
  permissions: string[];
  roles: string[];
  /** AES-256-GCM of the key when it was created recoverable: base64 parts. */
  encrypted?: { iv: string; ciphertext: string; tag: string };
  deletedAt?: number;
  /**
   * Bumped by every write of the record (absent = 0, as in records stored before revisions existed): `replace`
   * compares it, so a read-modify-write cannot silently overwrite a concurrent one.
   */
  revision?: number;
}

export interface IdentityRecord {
  id: string;
  workspaceId: string;
  /** The caller's own reference; unique among live identities of a workspace. */
  externalId: string;
  meta?: Record<string, unknown>;
  ratelimits: RatelimitRecord[];
  /**
   * Present when the identity's keys share a credit balance (Keyward extension); the balance lives in the counter
   * store under the identity's tag, named by the identity id.
   */
  credits?: { refill?: { interval: RefillInterval; amount: number; refillDay?: number } };
  createdAt: number;
  updatedAt?: number;
  deletedAt?: number;
  /**
   * Bumped by every write of the record (absent = 0, as in records stored before revisions existed): `replace`
   * compares it, so a read-modify-write cannot silently overwrite a concurrent one.
   */
  revision?: number;
}
