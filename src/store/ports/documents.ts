import type { ApiStore } from "./apis.js";
import type { AuditLogStore } from "./audit.js";
import type { DashboardSessionStore } from "./dashboard-sessions.js";
import type { IdentityStore } from "./identities.js";
import type { KeyStore } from "./keys.js";
import type { MigrationJobStore } from "./migrations.js";
import type { RatelimitNamespaceStore, RatelimitOverrideStore } from "./ratelimits.js";
import type { PermissionStore, RoleStore } from "./rbac.js";
import type { RootKeyRecord, RootKeyStore } from "./root-keys.js";
import type { KeyExpiryScan, WebhookMessageStore, WebhookStore } from "./webhooks.js";
import type { WorkspaceRecord, WorkspaceStore } from "./workspaces.js";

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
  /** The webhook outbox (webhooks.ts); written by event sources and the dispatcher, never audited. */
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
