/**
 * DocumentStore over MongoDB (official driver). Every filter, update and index spec comes from the pure
 * modules beside this one; this file only hands them to the driver.
 */
import type { Db, MongoClient } from "mongodb";
import type { ApiRecord } from "../ports/apis.js";
import type { DocumentStore } from "../ports/documents.js";
import type { IdentityRecord, KeyRecord } from "../ports/key-records.js";
import type { RootKeyRecord } from "../ports/root-keys.js";
import type { WorkspaceRecord } from "../ports/workspaces.js";
import type { PermissionRecord, RoleRecord } from "../ports/rbac.js";
import { UniqueViolationError } from "../errors.js";
import { atomicWritesOver } from "./atomic.js";
import { connectMongo } from "./client.js";
import { databaseNameFor, supportsTransactions } from "./connection.js";
import { isNamespaceExistsError } from "./errors.js";
import { anyDocumentQuery, byHashFilter, byIdFilter, fromDocument, pageQuery, toDocument, type StoredDocument } from "./filters.js";
import { mongoIdentityStore } from "./identities.js";
import { withOutagesTranslated } from "./outage.js";
import { collectionNames, documentIndexes } from "./indexes.js";
import { mongoKeyStore } from "./keys.js";
import { mongoMigrationJobStore } from "./migration-jobs.js";
import { mongoPermissionStore, mongoRoleStore } from "./rbac.js";
import { apisPageQuery } from "./named-filters.js";
import { atNextRevision, revisionedReplaceFilter } from "./revision-filters.js";
import { scoped, untypedCollection, withoutId, write } from "./scoped.js";
import { mongoDashboardSessionStore } from "./dashboard-sessions.js";
import { mongoRatelimitNamespaceStore, mongoRatelimitOverrideStore } from "./ratelimits.js";
import { mongoKeyExpiryScan, mongoWebhookMessageStore, mongoWebhookStore } from "./webhooks.js";

export interface MongoDocumentStoreOptions {
  /** Connection string; driver options in its query (e.g. `serverSelectionTimeoutMS`) win over our defaults. */
  url: string;
  /** Database name; defaults to the one in the URL, else "keyward". */
  dbName?: string;
  /**
   * The process's client (client.ts), shared with the other MongoDB stores; its owner closes it, not this store.
   * Absent: the store connects a client of its own and closes it with the store.
   */
  client?: MongoClient;
}

/**
 * Connects (unless given a client), ensures collections and indexes exist (idempotent), and returns the store.
 * Rejects as `connectMongo` does when no server answers; nothing this opened stays open after any rejection.
 */
export async function createMongoDocumentStore(options: MongoDocumentStoreOptions): Promise<DocumentStore> {
  const owned = options.client === undefined;
  const client = options.client ?? (await connectMongo(options.url));
  const closeOwned = async () => {
    if (owned) await client.close();
  };
  try {
    const db = client.db(options.dbName ?? databaseNameFor(options.url));
    await ensureCollections(db);
    const hello = await db.command({ hello: 1 });
    // Every verb answers an outage with StoreUnavailableError (503), within the client's timeoutMS.
    return withOutagesTranslated(storeOver(client, db, supportsTransactions(hello), closeOwned));
  } catch (error) {
    await closeOwned().catch(() => undefined);
    throw error;
  }
}

async function ensureCollections(db: Db): Promise<void> {
  const existing = new Set(
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name),
  );
  for (const { collection, indexes } of documentIndexes()) {
    if (!existing.has(collection)) {
      try {
        await db.createCollection(collection);
      } catch (error) {
        // Another instance starting at the same time created it first.
        if (!isNamespaceExistsError(error)) throw error;
      }
    }
    if (indexes.length > 0) await db.collection(collection).createIndexes(indexes);
  }
}

function storeOver(client: MongoClient, db: Db, transactional: boolean, close: () => Promise<void>): DocumentStore {
  const workspaceDocs = db.collection<StoredDocument<WorkspaceRecord>>(collectionNames.workspaces);
  const rootKeyDocs = db.collection<StoredDocument<RootKeyRecord>>(collectionNames.rootKeys);
  const apiDocs = db.collection<StoredDocument<ApiRecord>>(collectionNames.apis);
  const keyDocs = db.collection<StoredDocument<KeyRecord>>(collectionNames.keys);
  const roleDocs = db.collection<StoredDocument<RoleRecord>>(collectionNames.roles);
  const identityDocs = db.collection<StoredDocument<IdentityRecord>>(collectionNames.identities);
  const rootKeys = scoped<RootKeyRecord>(rootKeyDocs);
  const apis = scoped<ApiRecord>(apiDocs);
  const atomic = atomicWritesOver(client, transactional);

  async function createWorkspaceInTransaction(workspace: WorkspaceRecord, rootKey: RootKeyRecord): Promise<void> {
    // The server's message names the collection that collided; workspaces is only the fallback.
    await write(collectionNames.workspaces, () =>
      atomic.run(async (session) => {
        await workspaceDocs.insertOne(toDocument(workspace), { session });
        await rootKeyDocs.insertOne(toDocument(rootKey), { session });
      }),
    );
  }

  /**
   * A standalone server has no transactions. A workspace without root keys is harmless (nothing can act in it), a
   * root key without its workspace is not, so the workspace is written first. When the root key's insert fails, it
   * may still have been applied (the reply was lost), so the root key is deleted before the workspace, and the
   * workspace only once that delete succeeded: whatever fails, no live root key is left pointing at nothing. A crash
   * between the two inserts leaves a workspace without root keys; production deployments are replica sets.
   */
  async function createWorkspaceCompensating(workspace: WorkspaceRecord, rootKey: RootKeyRecord): Promise<void> {
    await write(collectionNames.workspaces, () => workspaceDocs.insertOne(toDocument(workspace)));
    try {
      await write(collectionNames.rootKeys, () => rootKeyDocs.insertOne(toDocument(rootKey)));
    } catch (error) {
      // A duplicate is a root key of someone else's: not ours to delete.
      if (!(error instanceof UniqueViolationError)) await rootKeyDocs.deleteOne(byIdFilter(rootKey.id));
      await workspaceDocs.deleteOne(byIdFilter(workspace.id));
      throw error;
    }
  }

  return {
    workspaces: {
      async get(id) {
        const doc = await workspaceDocs.findOne(byIdFilter(id));
        return doc ? fromDocument<WorkspaceRecord>(doc) : undefined;
      },
      async list(page) {
        const query = pageQuery(page);
        if (!query) return [];
        const found = await workspaceDocs.find(query.filter, query.options).toArray();
        return found.map((doc) => fromDocument<WorkspaceRecord>(doc));
      },
    },
    rootKeys: {
      ...rootKeys,
      async findByHash(hash) {
        const doc = await rootKeyDocs.findOne(byHashFilter(hash));
        return doc ? fromDocument<RootKeyRecord>(doc) : undefined;
      },
      async any() {
        const query = anyDocumentQuery();
        return (await rootKeyDocs.findOne(query.filter, query.options)) !== null;
      },
    },
    apis: {
      get: apis.get,
      insert: apis.insert,
      markDeleted: apis.markDeleted,
      async replace(record) {
        const replacement = withoutId(toDocument(atNextRevision(record)));
        const result = await untypedCollection(apiDocs).replaceOne(revisionedReplaceFilter(record), replacement);
        return result.matchedCount === 1;
      },
      async list(workspaceId, page) {
        const query = apisPageQuery(workspaceId, page);
        if (!query) return [];
        const found = await untypedCollection(apiDocs).find(query.filter, query.options).toArray();
        return found.map((doc) => fromDocument<ApiRecord>(doc as StoredDocument<ApiRecord>));
      },
    },
    keys: mongoKeyStore(keyDocs, identityDocs, atomic),
    identities: mongoIdentityStore(identityDocs, keyDocs, atomic),
    ratelimitNamespaces: mongoRatelimitNamespaceStore(db.collection(collectionNames.ratelimitNamespaces)),
    ratelimitOverrides: mongoRatelimitOverrideStore(db.collection(collectionNames.ratelimitOverrides)),
    permissions: mongoPermissionStore(db.collection<StoredDocument<PermissionRecord>>(collectionNames.permissions), roleDocs, keyDocs, atomic),
    roles: mongoRoleStore(roleDocs, keyDocs, atomic),
    dashboardSessions: mongoDashboardSessionStore(db.collection(collectionNames.dashboardSessions)),
    migrationJobs: mongoMigrationJobStore(db.collection(collectionNames.migrationJobs)),
    webhooks: mongoWebhookStore(db.collection(collectionNames.webhooks)),
    webhookMessages: mongoWebhookMessageStore(db.collection(collectionNames.webhookMessages), db.collection(collectionNames.webhookState)),
    keyExpiries: mongoKeyExpiryScan(untypedCollection(keyDocs)),
    createWorkspace: transactional ? createWorkspaceInTransaction : createWorkspaceCompensating,
    async ping() {
      await db.command({ ping: 1 });
    },
    close,
  };
}
