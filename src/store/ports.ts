import type { KeySearch } from "./key-search.js";
import type { AnalyticsQuery, AnalyticsRow } from "./analytics-query.js";

/**
 * Storage ports: the small, behavioural interfaces services use. Every adapter (embedded, MongoDB) implements
 * them and passes the same contract suite (test/store/documents.contract.ts).
 *
 * Conventions shared by all adapters:
 * - ids are `<prefix>_<base58>` and sort by creation time, so "ordered by id" is creation order;
 * - every write is atomic and durable once its promise resolves;
 * - soft-deleted records carry `deletedAt` and are invisible to `get`/`list`; only the root keys' `findByHash`
 *   returns them (authentication can tell "revoked" from "unknown"), the keys' one returns live keys only.
 */
import type { KeyExpiryScan, WebhookMessageStore, WebhookStore } from "./webhook-ports.js";

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

export type RefillInterval = "daily" | "monthly";

export interface RatelimitRecord {
  id: string;
  name: string;
  limit: number;
  /** Window length, ms. */
  duration: number;
  autoApply: boolean;
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
  credits?: { refill?: { interval: RefillInterval; amount: number; refillDay?: number } };
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

/** A permission keys and roles carry by its slug; slug and name are each unique within a workspace. */
export interface PermissionRecord {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  description?: string;
  createdAt: number;
  updatedAt?: number;
}

/** A named bundle of permission slugs; the name is unique within a workspace and keys carry it. */
export interface RoleRecord {
  id: string;
  workspaceId: string;
  name: string;
  description?: string;
  /** Permission slugs. */
  permissions: string[];
  createdAt: number;
  updatedAt?: number;
  /**
   * Bumped by every write of the record, a permission delete's cascade included (absent = 0, as in records stored before revisions existed): `replace`
   * compares it, so a read-modify-write cannot silently overwrite a concurrent one.
   */
  revision?: number;
}

/** Keyset pagination: items with id > `after`, ascending by id, at most `limit`. */
export interface PageQuery {
  limit: number;
  after?: string;
}

/**
 * A keyset page narrowed by name and by id: `search` keeps records whose name contains it, ignoring case (matched
 * literally); `ids` keeps only records with one of these ids (a root key's per-resource grants). Absent: no filter.
 */
export interface NamedPageQuery extends PageQuery {
  search?: string;
  ids?: readonly string[];
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
  /**
   * Compare-and-swap of a live api (same id and workspace): writes only while the stored revision still equals
   * `record.revision` (the one the caller read), and stores revision + 1. False when the api is gone or was changed
   * since it was read; the caller re-reads to tell which (replaceWithRetry).
   */
  replace(record: ApiRecord): Promise<boolean>;
  /** Live apis of a workspace, ascending by id, narrowed by `page.search` and `page.ids`. */
  list(workspaceId: string, page: NamedPageQuery): Promise<ApiRecord[]>;
}

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

/** One key's outcome in a queued import: imported under `keyId`, or failed with `error`. */
export interface MigrationOutcome {
  index: number;
  hash: string;
  keyId?: string;
  error?: string;
}

/**
 * A queued import (v1 migrations.enqueueKeys): stored before the call is answered, worked through in slices by the
 * server in the background, and resumed after a restart. Each key's id is chosen when the job is stored, so a slice
 * interrupted after its keys were written finds them under those ids and counts them once.
 */
export interface MigrationJobRecord {
  id: string;
  workspaceId: string;
  apiId: string;
  /** The enqueuing root key and its permissions then: the job imports with exactly those rights. */
  actor: { rootKeyId: string; permissions: string[] };
  requestId: string;
  /** The hashes' encoding, as MigrateKeysRequest.migration_id. */
  migrationId: string;
  /** The keys as MigrateKeyData proto JSON. */
  keys: unknown[];
  /** The id each key gets, by position. */
  keyIds: string[];
  /**
   * By position, a queued plaintext key's secret encrypted under its id (its api stores recoverable keys), else null.
   * The job holds no plaintext: a plaintext key is queued as its hash, this, and its `start`.
   */
  encrypted?: ({ iv: string; ciphertext: string; tag: string } | null)[];
  state: "queued" | "running" | "done";
  /** Keys processed so far (the first `processed` of `keys`); each has its outcome in `outcomes`. */
  processed: number;
  outcomes: MigrationOutcome[];
  createdAt: number;
  updatedAt?: number;
  finishedAt?: number;
}

/** Queued imports. */
export interface MigrationJobStore {
  insert(job: MigrationJobRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<MigrationJobRecord | undefined>;
  /** Jobs not done yet, oldest first: what a starting server resumes. */
  unfinished(): Promise<MigrationJobRecord[]>;
  /** Stores a job's progress: the whole record, replacing the stored one. */
  saveProgress(job: MigrationJobRecord): Promise<void>;
}

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

/** A standalone rate-limit namespace; created on first use, its name unique among a workspace's namespaces. */
export interface RatelimitNamespaceRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: number;
}

/** A per-identifier limit of one namespace; `identifier` is exact, or a pattern when it contains `*`. */
export interface RatelimitOverrideRecord {
  id: string;
  workspaceId: string;
  namespaceId: string;
  identifier: string;
  limit: number;
  /** Window length, ms. */
  duration: number;
  createdAt: number;
  updatedAt?: number;
}

export interface RatelimitNamespaceStore {
  /** UniqueViolationError when the workspace already has a namespace of this name (a concurrent first use). */
  insert(record: RatelimitNamespaceRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<RatelimitNamespaceRecord | undefined>;
  findByName(workspaceId: string, name: string): Promise<RatelimitNamespaceRecord | undefined>;
  /** Namespaces of a workspace, ascending by id, narrowed by `page.search` and `page.ids`. */
  list(workspaceId: string, page: NamedPageQuery): Promise<RatelimitNamespaceRecord[]>;
}

export interface RatelimitOverrideStore {
  /**
   * Creates the override of (namespace, identifier), or changes limit and duration of the one that exists (which
   * keeps its id and createdAt). Atomic: concurrent sets of one identifier leave one override. Returns it.
   */
  set(record: RatelimitOverrideRecord): Promise<RatelimitOverrideRecord>;
  /** The override whose identifier is exactly `identifier` (patterns are matched as text here). */
  get(workspaceId: string, namespaceId: string, identifier: string): Promise<RatelimitOverrideRecord | undefined>;
  /** What can apply to `identifier`: its exact override, if any, and every pattern override of the namespace. */
  candidates(workspaceId: string, namespaceId: string, identifier: string): Promise<RatelimitOverrideRecord[]>;
  /** Removes the override; false when there was none. */
  delete(workspaceId: string, namespaceId: string, identifier: string): Promise<boolean>;
  /** Overrides of a namespace, ascending by id. */
  list(workspaceId: string, namespaceId: string, page: PageQuery): Promise<RatelimitOverrideRecord[]>;
  count(workspaceId: string, namespaceId: string): Promise<number>;
}

/**
 * Permissions are deleted for good (no soft delete), so a slug or name can be used again; deleting one removes its
 * slug from every role and key of the workspace.
 */
export interface PermissionStore {
  /** All or nothing; UniqueViolationError when a slug or name is taken in the workspace (or twice in `records`). */
  insert(records: PermissionRecord[]): Promise<void>;
  get(workspaceId: string, id: string): Promise<PermissionRecord | undefined>;
  /** The workspace's permissions with these slugs (any order; unknown slugs are skipped). */
  findBySlugs(workspaceId: string, slugs: string[]): Promise<PermissionRecord[]>;
  /** With `search`: only those whose id, name, slug or description contains it, ignoring case. */
  list(workspaceId: string, page: PageQuery & { search?: string }): Promise<PermissionRecord[]>;
  /**
   * Deletes it and removes its slug from every role and key (bumping their revisions, so a replace that read a list
   * before the delete cannot write the slug back); false when the workspace has no such permission.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** Roles are deleted for good; deleting one removes its name from every key of the workspace. */
export interface RoleStore {
  /** UniqueViolationError when the name is taken in the workspace. */
  insert(record: RoleRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<RoleRecord | undefined>;
  /** The workspace's roles with these names (any order; unknown names are skipped). */
  findByNames(workspaceId: string, names: string[]): Promise<RoleRecord[]>;
  /** With `search`: only those whose id, name or description contains it, ignoring case. */
  list(workspaceId: string, page: PageQuery & { search?: string }): Promise<RoleRecord[]>;
  /**
   * Compare-and-swap of a role's description and permissions (same id, workspace and name): writes only while the
   * stored revision still equals `record.revision`, and stores revision + 1. False when the role is gone or was
   * changed since it was read (by another replace, or by a permission delete pulling a slug from it).
   */
  replace(record: RoleRecord): Promise<boolean>;
  /** Deletes it and removes its name from every key; false when the workspace has no such role. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

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

/** The documents side of storage: one object per backend. */
export interface DocumentStore {
  workspaces: WorkspaceStore;
  rootKeys: RootKeyStore;
  apis: ApiStore;
  keys: KeyStore;
  identities: IdentityStore;
  ratelimitNamespaces: RatelimitNamespaceStore;
  ratelimitOverrides: RatelimitOverrideStore;
  permissions: PermissionStore;
  roles: RoleStore;
  dashboardSessions: DashboardSessionStore;
  migrationJobs: MigrationJobStore;
  webhooks: WebhookStore;
  /** The webhook outbox (webhook-ports.ts); written by event sources and the dispatcher, never audited. */
  webhookMessages: WebhookMessageStore;
  /** Keys by expiry, for the webhook events key.expiring and key.expired. */
  keyExpiries: KeyExpiryScan;
  /** Creates a workspace and its first root key in one atomic write. */
  createWorkspace(workspace: WorkspaceRecord, firstRootKey: RootKeyRecord): Promise<void>;
  /** The audit log kept in this store's own commits (embedded); absent where it is a store of its own (MongoDB). */
  auditLogs?: AuditLogStore;
  /** Resolves when the backend answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// Counters: credits and rate-limit windows. One atomic step per verification (on Redis: one Lua script, one round
// trip). All counters of one step share `tag` (the key's identity id, else the key id) so Redis Cluster keeps them
// in one slot. Window and refill arithmetic come precomputed from src/domain, so adapters stay simple.

/** One sliding-window limit to check (and, if the whole step passes, to count). */
export interface LimitCheck {
  /** The bucket's name within the tag, e.g. `key:<keyId>:<limitName>` or `identity:<id>:<limitName>`. */
  bucket: string;
  limit: number;
  /** Window length in ms; windows are epoch-aligned: start = floor(now / duration) * duration. */
  duration: number;
  /** 0 checks without counting. */
  cost: number;
}

/**
 * The credits part of a step: deduct `cost` from a balance after applying a due refill. `keyId` names the balance
 * within the tag: the key's id, or the identity's id for the balance an identity shares with its keys.
 */
export interface CreditsCheck {
  keyId: string;
  cost: number;
  /** When set, a refill is due if the balance was last refilled before this instant: balance = max(balance, amount). */
  refill?: { boundary: number; amount: number };
}

export interface ConsumePlan {
  tag: string;
  now: number;
  limits: LimitCheck[];
  credits?: CreditsCheck;
  /**
   * The identity's shared balance (Keyward extension, under the same tag, which is then the identity id): spent in
   * the same step as `credits`, all or nothing; either one short refuses the step with USAGE_EXCEEDED.
   */
  identityCredits?: CreditsCheck;
  /** Makes the step retry-safe: see IdempotencyCheck. */
  idempotency?: IdempotencyCheck;
}

/**
 * A step under an idempotency key (domain/idempotency.ts). The first step stores its result under (scope, key) in the
 * same atomic step that counts, durable as the counts are; a later step with the same key and fingerprint before
 * `expiresAt` counts nothing and answers that result with `replayed`; one with another fingerprint throws
 * `idempotency_conflict` and counts nothing. Records are dropped once expired.
 */
export interface IdempotencyCheck {
  /** The workspace: keys of different tenants never meet. */
  scope: string;
  key: string;
  fingerprint: string;
  /** Unix ms; after `plan.now`. */
  expiresAt: number;
}

export interface LimitResult {
  limit: number;
  remaining: number;
  /** End of the current window, unix ms. */
  reset: number;
  exceeded: boolean;
}

/**
 * VALID: every limit passed and the credits sufficed; everything was counted.
 * RATE_LIMITED / USAGE_EXCEEDED: nothing was counted (rate limits are judged before credits; USAGE_EXCEEDED when
 * the key's or the identity's balance is short).
 */
export interface ConsumeResult {
  outcome: "VALID" | "RATE_LIMITED" | "USAGE_EXCEEDED";
  /** In plan order. */
  limits: LimitResult[];
  /** The balance after this step (unchanged when not VALID); absent when the plan had no credits. */
  credits?: { remaining: number };
  /** The identity's balance after this step (unchanged when not VALID); absent when the plan had no identityCredits. */
  identityCredits?: { remaining: number };
  /** The result an earlier step with the same idempotency key stored; this step counted nothing. */
  replayed?: true;
}

export type CreditsOperation = "set" | "increment" | "decrement";

export interface CounterStore {
  consume(plan: ConsumePlan): Promise<ConsumeResult>;
  /**
   * What `consume` would answer a retry of `plan` under its `idempotency` (the stored result, flagged `replayed`;
   * the conflict thrown for another fingerprint), or undefined when no record is live. Counts and stores nothing: for
   * a verification refused before its counter step, which must still repeat an earlier step's answer.
   */
  recall(plan: ConsumePlan): Promise<ConsumeResult | undefined>;
  /** Starts (or replaces) a key's balance; `lastRefillAt` = now. */
  setCredits(tag: string, keyId: string, remaining: number, now: number): Promise<void>;
  /** Changes a balance atomically (decrement clamps at 0) after a due refill; returns the new balance. */
  adjustCredits(
    tag: string,
    keyId: string,
    change: { operation: CreditsOperation; value: number; refill?: { boundary: number; amount: number }; now: number },
  ): Promise<number>;
  /** The balance after a due refill (which is stored), or undefined when the key has none. */
  readCredits(tag: string, keyId: string, refill?: { boundary: number; amount: number }): Promise<number | undefined>;
  /** Forgets a key's balance (credits now unlimited, or the key is gone). */
  deleteCredits(tag: string, keyId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// Verification events: every verification except NOT_FOUND, recorded off the request path in batches.

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

// ---------------------------------------------------------------------------------------------------------------
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
