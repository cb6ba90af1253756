import type { ApiRecord } from "../ports/apis.js";
import type { DocumentStore } from "../ports/documents.js";
import type { PageQuery } from "../ports/pages.js";
import type { RootKeyRecord } from "../ports/root-keys.js";
import type { WorkspaceRecord } from "../ports/workspaces.js";
import { AUDIT_LOGS, auditingJournal, auditLogsCollection } from "./audit-logs.js";
import { dashboardSessionsCollection, dashboardSessionStoreOver } from "./dashboard-sessions.js";
import { identitiesCollection, identityStoreOver } from "./identities.js";
import { openJournal, type CollectionSpec, type Journal } from "./journal.js";
import { keysCollection, keyStoreOver } from "./keys.js";
import { migrationJobsCollection, migrationJobStoreOver } from "./migration-jobs.js";
import { scanNamed } from "./named-pages.js";
import { liveOf, markDeletedIn, replaceLive, revisionOf } from "./owned.js";
import { ratelimitNamespacesCollection, ratelimitNamespaceStoreOver, ratelimitOverridesCollection, ratelimitOverrideStoreOver } from "./ratelimits.js";
import { permissionsCollection, permissionStoreOver, rolesCollection, roleStoreOver } from "./rbac.js";
import {
  keyExpiryScanOver, webhookMessagesCollection, webhookMessageStoreOver, webhooksCollection, webhookStateCollection, webhookStoreOver,
} from "./webhooks.js";

/**
 * Collections of the embedded store and their derived indexes. Indexes are rebuilt from the documents at every
 * open, so adding a collection or an index here needs no migration.
 */
export const embeddedCollections: Record<string, CollectionSpec> = {
  workspaces: {},
  root_keys: { unique: { hash: (d) => d.hash }, indexes: { workspace: (d) => d.workspaceId } },
  // Live apis by workspace: what a listing walks (a deleted api leaves the index).
  apis: { indexes: { live: (d) => (d.deletedAt == null ? d.workspaceId : undefined) } },
  keys: keysCollection,
  identities: identitiesCollection,
  ratelimit_namespaces: ratelimitNamespacesCollection,
  ratelimit_overrides: ratelimitOverridesCollection,
  permissions: permissionsCollection,
  roles: rolesCollection,
  [AUDIT_LOGS]: auditLogsCollection,
  dashboard_sessions: dashboardSessionsCollection,
  migration_jobs: migrationJobsCollection,
  webhooks: webhooksCollection,
  webhook_messages: webhookMessagesCollection,
  webhook_state: webhookStateCollection,
};

/**
 * Opens the default document store: every port of ports/documents.ts over a journal in `dir` (created if missing, locked
 * against a second process). Each write resolves once fsynced; a duplicate id, root-key or key hash, or a live
 * identity's external id taken in its workspace, is refused with UniqueViolationError.
 */
export async function createEmbeddedDocumentStore(options: { dir: string }): Promise<DocumentStore> {
  const { journal, auditLogs } = auditingJournal(await openJournal({ dir: options.dir, collections: embeddedCollections }));
  return { ...documentStoreOver(journal), auditLogs };
}

/** The ports over an open journal; exported so stores sharing one journal can be composed. */
export function documentStoreOver(journal: Journal): DocumentStore {
  return {
    workspaces: {
      get: async (id) => journal.get<WorkspaceRecord>("workspaces", id),
      list: async (page: PageQuery) => journal.scan<WorkspaceRecord>("workspaces", { after: page.after, limit: page.limit }),
    },
    rootKeys: {
      findByHash: async (hash) => journal.findUnique<RootKeyRecord>("root_keys", "hash", hash),
      list: async (workspaceId: string, page: PageQuery) =>
        journal.scan<RootKeyRecord>("root_keys", {
          index: { name: "workspace", value: workspaceId },
          after: page.after,
          limit: page.limit,
          filter: (d) => d.deletedAt == null,
        }),
      get: async (workspaceId, id) => liveOf<RootKeyRecord>(journal, "root_keys", workspaceId, id),
      insert: (record) => journal.commit([{ op: "insert", collection: "root_keys", doc: record }]),
      markDeleted: async (workspaceId, id, at) => markDeletedIn(journal, "root_keys", workspaceId, id, at),
      any: async () => journal.count("root_keys") > 0,
    },
    apis: {
      insert: (record: ApiRecord) => journal.commit([{ op: "insert", collection: "apis", doc: record }]),
      get: async (workspaceId, id) => liveOf<ApiRecord>(journal, "apis", workspaceId, id),
      markDeleted: async (workspaceId, id, at) => markDeletedIn(journal, "apis", workspaceId, id, at),
      async replace(record) {
        const read = revisionOf(record);
        return replaceLive(journal, "apis", { ...record, revision: read + 1 }, (stored) => revisionOf(stored) === read);
      },
      list: async (workspaceId, page) => scanNamed<ApiRecord>(journal, "apis", "live", workspaceId, page),
    },
    keys: keyStoreOver(journal),
    identities: identityStoreOver(journal),
    ratelimitNamespaces: ratelimitNamespaceStoreOver(journal),
    ratelimitOverrides: ratelimitOverrideStoreOver(journal),
    permissions: permissionStoreOver(journal),
    roles: roleStoreOver(journal),
    dashboardSessions: dashboardSessionStoreOver(journal),
    webhooks: webhookStoreOver(journal),
    webhookMessages: webhookMessageStoreOver(journal),
    keyExpiries: keyExpiryScanOver(journal),
    migrationJobs: migrationJobStoreOver(journal),
    createWorkspace: (workspace, firstRootKey) =>
      journal.commit([
        { op: "insert", collection: "workspaces", doc: workspace },
        { op: "insert", collection: "root_keys", doc: firstRootKey },
      ]),
    ping: async () => journal.assertUsable(),
    close: () => journal.close(),
  };
}
