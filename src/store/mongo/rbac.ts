import type { ClientSession, Collection } from "mongodb";
import type { KeyRecord } from "../ports/key-records.js";
import type { PermissionRecord, PermissionStore, RoleRecord, RoleStore } from "../ports/rbac.js";
import type { AtomicWrites } from "./atomic.js";
import { fromDocument, toDocument, type StoredDocument } from "./filters.js";
import {
  batchFilter, holdersFilter, PERMISSION_SEARCH_FIELDS, permissionsBySlugsFilter, ROLE_SEARCH_FIELDS, pullUpdate, rbacByIdFilter, rbacPageQuery, roleReplaceFilter, rolesByNamesFilter,
} from "./rbac-filters.js";
import { atNextRevision } from "./revision-filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

type Docs<R extends { id: string }> = Collection<StoredDocument<R>>;
type Session = ClientSession | undefined;

/**
 * PermissionStore over the `permissions` collection. Batch inserts and delete cascades are one transaction where the
 * deployment has them (AtomicWrites); on a standalone server see insertBatchCompensating and `delete`.
 */
export function mongoPermissionStore(
  docs: Docs<PermissionRecord>, roles: Docs<RoleRecord>, keys: Docs<KeyRecord>, atomic: AtomicWrites,
): PermissionStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<PermissionRecord>(doc as StoredDocument<PermissionRecord>);

  /**
   * Standalone: an ordered insert keeps what came before the failing document, but the port promises all or nothing,
   * so the batch is deleted again (its ids are fresh: this deletes exactly what it wrote). Should that cleanup fail
   * too, its error is thrown instead of the original: the caller must not read "nothing changed" into it.
   */
  async function insertBatchCompensating(records: PermissionRecord[]): Promise<void> {
    try {
      await write(docs.collectionName, () => untyped.insertMany(records.map((r) => toDocument(r)), { ordered: true }));
    } catch (error) {
      try {
        await untyped.deleteMany(batchFilter(records.map((r) => r.id)));
      } catch (cleanupError) {
        throw new AggregateError([cleanupError, error], "a refused permission batch could not be removed again", { cause: cleanupError });
      }
      throw error;
    }
  }

  return {
    async insert(records) {
      if (records.length === 0) return;
      if (!atomic.transactional) return insertBatchCompensating(records);
      // One insertOne per permission: driver 7's insertMany passes timeoutMS on inside withTransaction, which it refuses.
      await write(docs.collectionName, () =>
        atomic.run(async (session) => {
          for (const record of records) await untyped.insertOne(toDocument(record), { session });
        }));
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      return doc ? toRecord(doc) : undefined;
    },
    async findBySlugs(workspaceId, slugs) {
      return (await untyped.find(permissionsBySlugsFilter(workspaceId, slugs)).toArray()).map(toRecord);
    },
    async list(workspaceId, page) {
      const query = rbacPageQuery(workspaceId, page, PERMISSION_SEARCH_FIELDS);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    /**
     * Pulls the slug from every role and key (bumping their revisions), then deletes the permission. Standalone: a
     * failure in between leaves the permission, and repeating the delete finishes the job; the pull runs once more
     * after the delete, for a role replace that read its revision between the first pull and the delete.
     */
    async delete(workspaceId, id) {
      const found = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      if (!found) return false;
      const { slug } = toRecord(found);
      const pullEverywhere = async (session: Session) => {
        await untypedCollection(roles).updateMany(holdersFilter("permissions", workspaceId, slug), pullUpdate("permissions", slug), { session });
        await untypedCollection(keys).updateMany(holdersFilter("permissions", workspaceId, slug), pullUpdate("permissions", slug), { session });
      };
      return atomic.run(async (session) => {
        await pullEverywhere(session);
        const deleted = (await untyped.deleteOne(rbacByIdFilter(workspaceId, id), { session })).deletedCount === 1;
        if (!session) await pullEverywhere(undefined);
        return deleted;
      });
    },
  };
}

/** RoleStore over the `roles` collection; a delete pulls the name from every key first, as a permission delete does. */
export function mongoRoleStore(docs: Docs<RoleRecord>, keys: Docs<KeyRecord>, atomic: AtomicWrites): RoleStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<RoleRecord>(doc as StoredDocument<RoleRecord>);
  return {
    async insert(record) {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(record)));
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      return doc ? toRecord(doc) : undefined;
    },
    async findByNames(workspaceId, names) {
      return (await untyped.find(rolesByNamesFilter(workspaceId, names)).toArray()).map(toRecord);
    },
    async list(workspaceId, page) {
      const query = rbacPageQuery(workspaceId, page, ROLE_SEARCH_FIELDS);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    async replace(record) {
      const replacement = withoutId(toDocument(atNextRevision(record)));
      const result = await write(docs.collectionName, () => untyped.replaceOne(roleReplaceFilter(record), replacement));
      return result.matchedCount === 1;
    },
    async delete(workspaceId, id) {
      const found = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      if (!found) return false;
      const { name } = toRecord(found);
      const pullFromKeys = (session: Session) =>
        untypedCollection(keys).updateMany(holdersFilter("roles", workspaceId, name), pullUpdate("roles", name), { session });
      return atomic.run(async (session) => {
        await pullFromKeys(session);
        const deleted = (await untyped.deleteOne(rbacByIdFilter(workspaceId, id), { session })).deletedCount === 1;
        if (!session) await pullFromKeys(undefined);
        return deleted;
      });
    },
  };
}
