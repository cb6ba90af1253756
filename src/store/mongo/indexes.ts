import type { IndexDescription } from "mongodb";

/** Collection names, one per document kind. */
export const collectionNames = {
  workspaces: "workspaces",
  rootKeys: "root_keys",
  apis: "apis",
  keys: "keys",
  identities: "identities",
  ratelimitNamespaces: "ratelimit_namespaces",
  ratelimitOverrides: "ratelimit_overrides",
  permissions: "permissions",
  roles: "roles",
  dashboardSessions: "dashboard_sessions",
  migrationJobs: "migration_jobs",
  webhooks: "webhooks",
  webhookMessages: "webhook_messages",
  webhookState: "webhook_state",
} as const;

export interface CollectionIndexes {
  collection: string;
  indexes: IndexDescription[];
}

/**
 * Every collection the adapter uses, with the secondary indexes it needs. Indexes carry explicit names so
 * `createIndexes` at start-up is idempotent: the same name with the same spec is a no-op, and a changed spec
 * under an old name fails loudly instead of silently building a second index.
 * Collections without secondary indexes are listed too, because they must exist before the first transaction
 * (MongoDB 4.2 cannot create a collection inside one).
 */
export function documentIndexes(): CollectionIndexes[] {
  return [
    { collection: collectionNames.workspaces, indexes: [] },
    {
      collection: collectionNames.rootKeys,
      indexes: [
        // Authentication looks root keys up by hash; a hash names exactly one key.
        { name: "hash", key: { hash: 1 }, unique: true },
        // list/get: equality on workspaceId, then keyset pagination on _id.
        { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
      ],
    },
    {
      collection: collectionNames.apis,
      // get, and list: equality on workspaceId, then keyset pagination on _id (the name search filters what it reads).
      indexes: [{ name: "workspace_id", key: { workspaceId: 1, _id: 1 } }],
    },
    {
      collection: collectionNames.keys,
      indexes: [
        // Verification looks keys up by hash. Deleted keys stay in the index, so a hash is never reused.
        { name: "hash", key: { hash: 1 }, unique: true },
        // listByApi/countByApi: equality on workspace and api, then keyset pagination on _id.
        { name: "workspace_api_id", key: { workspaceId: 1, apiId: 1, _id: 1 } },
        // listByIdentity, and listByApi filtered by identity.
        { name: "workspace_identity_id", key: { workspaceId: 1, identityId: 1, _id: 1 } },
        // Deleting a permission or role pulls it from every key holding it: multikey indexes over the lists.
        { name: "workspace_permissions", key: { workspaceId: 1, permissions: 1 } },
        { name: "workspace_roles", key: { workspaceId: 1, roles: 1 } },
        // The webhook expiry scan: keys by expiry time (keys without one are left out).
        { name: "expires", key: { expires: 1 }, partialFilterExpression: { expires: { $exists: true } } },
      ],
    },
    {
      collection: collectionNames.identities,
      indexes: [
        // Unique among LIVE identities only: deleting removes `live`, which frees the external id (filters.ts).
        {
          name: "workspace_external_id_live",
          key: { workspaceId: 1, externalId: 1 },
          unique: true,
          partialFilterExpression: { live: true },
        },
        { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
      ],
    },
    {
      collection: collectionNames.ratelimitNamespaces,
      indexes: [
        // Names are unique per workspace: two first uses at once create one namespace.
        { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
        // list: equality on workspaceId, then keyset pagination on _id (the name search filters what it reads).
        { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
      ],
    },
    {
      collection: collectionNames.ratelimitOverrides,
      indexes: [
        // One override per identifier (or pattern) of a namespace; also serves get/set/delete and the exact half
        // of a limit call's candidates.
        { name: "workspace_namespace_identifier", key: { workspaceId: 1, namespaceId: 1, identifier: 1 }, unique: true },
        // list/count: equality on workspace and namespace, then keyset pagination on _id.
        { name: "workspace_namespace_id", key: { workspaceId: 1, namespaceId: 1, _id: 1 } },
        // The pattern half of a limit call's candidates.
        { name: "workspace_namespace_patterns", key: { workspaceId: 1, namespaceId: 1 }, partialFilterExpression: { pattern: true } },
      ],
    },
    {
      collection: collectionNames.permissions,
      indexes: [
        // Keys and roles carry slugs; names are unique too. Permissions are deleted for good, so no partial filter.
        { name: "workspace_slug", key: { workspaceId: 1, slug: 1 }, unique: true },
        { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
        { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
      ],
    },
    {
      collection: collectionNames.roles,
      indexes: [
        { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
        { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
        // Deleting a permission pulls its slug from the roles holding it.
        { name: "workspace_permissions", key: { workspaceId: 1, permissions: 1 } },
      ],
    },
    {
      collection: collectionNames.dashboardSessions,
      indexes: [
        // Every dashboard call looks its session up by token hash.
        { name: "hash", key: { hash: 1 }, unique: true },
        // The expiry sweep at sign-in.
        { name: "expires_at", key: { expiresAt: 1 } },
      ],
    },
    // A starting server resumes the queued imports not done yet.
    { collection: collectionNames.migrationJobs, indexes: [{ name: "state_id", key: { state: 1, _id: 1 } }] },
    { collection: collectionNames.webhooks, indexes: [{ name: "workspace_id", key: { workspaceId: 1, _id: 1 } }] },
    {
      collection: collectionNames.webhookMessages,
      indexes: [
        // What every instance's dispatcher polls: pending and due.
        { name: "status_next_attempt", key: { status: 1, nextAttemptAt: 1 } },
        // listDeliveries: one endpoint's messages, newest first.
        { name: "webhook_id", key: { webhookId: 1, _id: -1 } },
        // Retention: finished messages by age (pending ones have no finishedAt).
        { name: "finished_at", key: { finishedAt: 1 }, partialFilterExpression: { finishedAt: { $exists: true } } },
      ],
    },
    { collection: collectionNames.webhookState, indexes: [] },
  ];
}
