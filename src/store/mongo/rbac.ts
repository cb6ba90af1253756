import type { Collection } from "mongodb";
import type { KeyRecord, PermissionRecord, PermissionStore, RoleRecord, RoleStore } from "../ports.js";
import { fromDocument, toDocument, type StoredDocument } from "./filters.js";
import {
  batchFilter, holdersFilter, keyPullUpdate, PERMISSION_SEARCH_FIELDS, permissionsBySlugsFilter, ROLE_SEARCH_FIELDS, pullUpdate, rbacByIdFilter, rbacPageQuery, roleReplaceFilter, rolesByNamesFilter,
} from "./rbac-filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

type Docs<R extends { id: string }> = Collection<StoredDocument<R>>;

/**
 * PermissionStore over the `permissions` collection. A delete first pulls the slug from every role and key, then
 * deletes the permission: a crash in between leaves the permission, and repeating the delete finishes the job.
 */
export function mongoPermissionStore(docs: Docs<PermissionRecord>, roles: Docs<RoleRecord>, keys: Docs<KeyRecord>): PermissionStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<PermissionRecord>(doc as StoredDocument<PermissionRecord>);
  return {
    async insert(records) {
      if (records.length === 0) return;
      try {
        await write(docs.collectionName, () => untyped.insertMany(records.map((r) => toDocument(r)), { ordered: true }));
      } catch (error) {
        // An ordered insert keeps what came before the failing document; the port promises all or nothing. The ids
        // are fresh, so this deletes exactly what this batch wrote.
        await untyped.deleteMany(batchFilter(records.map((r) => r.id))).catch(() => undefined);
        throw error;
      }
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
    async delete(workspaceId, id) {
      const found = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      if (!found) return false;
      const { slug } = toRecord(found);
      await untypedCollection(roles).updateMany(holdersFilter("permissions", workspaceId, slug), pullUpdate("permissions", slug));
      await untypedCollection(keys).updateMany(holdersFilter("permissions", workspaceId, slug), keyPullUpdate("permissions", slug));
      return (await untyped.deleteOne(rbacByIdFilter(workspaceId, id))).deletedCount === 1;
    },
  };
}

/** RoleStore over the `roles` collection; a delete pulls the name from every key first (see above). */
export function mongoRoleStore(docs: Docs<RoleRecord>, keys: Docs<KeyRecord>): RoleStore {
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
      const result = await write(docs.collectionName, () => untyped.replaceOne(roleReplaceFilter(record), withoutId(toDocument(record))));
      return result.matchedCount === 1;
    },
    async delete(workspaceId, id) {
      const found = await untyped.findOne(rbacByIdFilter(workspaceId, id));
      if (!found) return false;
      const { name } = toRecord(found);
      await untypedCollection(keys).updateMany(holdersFilter("roles", workspaceId, name), keyPullUpdate("roles", name));
      return (await untyped.deleteOne(rbacByIdFilter(workspaceId, id))).deletedCount === 1;
    },
  };
}
