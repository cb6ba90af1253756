import type { PermissionRecord, PermissionStore, RoleRecord, RoleStore } from "../ports/rbac.js";
import type { CollectionSpec, Journal, Mutation } from "./journal.js";
import { liveOf, replaceLive, revisionOf } from "./owned.js";

const PERMISSIONS = "permissions";
const ROLES = "roles";
const KEYS = "keys";

/** Named after the fields they cover, as the MongoDB adapter reports its compound indexes in UniqueViolationError. */
const SLUG = "workspaceId,slug";
const NAME = "workspaceId,name";

/** Workspace ids never contain ":", so the pair is unambiguous whatever the slug or name holds. */
const pair = (workspaceId: string, value: string) => `${workspaceId}:${value}`;

export const permissionsCollection: CollectionSpec = {
  unique: { [SLUG]: (d) => pair(d.workspaceId, d.slug), [NAME]: (d) => pair(d.workspaceId, d.name) },
  indexes: { workspace: (d) => d.workspaceId },
};

export const rolesCollection: CollectionSpec = {
  unique: { [NAME]: (d) => pair(d.workspaceId, d.name) },
  indexes: { workspace: (d) => d.workspaceId },
};

/** Case-insensitive "contains" over the given fields; no search matches everything. */
function matching(search: string | undefined, fields: (doc: Readonly<Record<string, unknown>>) => unknown[]) {
  if (search === undefined) return undefined;
  const needle = search.toLowerCase();
  return (doc: Readonly<Record<string, unknown>>) => fields(doc).some((v) => typeof v === "string" && v.toLowerCase().includes(needle));
}

/**
 * Puts of every document of `collection` in the workspace whose `field` list holds `value`, without it. Keys have
 * no workspace index, so the cascade scans them all: deleting a permission or role is rare, verification is not.
 * `updatedAt` stays: the cascade is not an edit of the holder.
 */
function pullEverywhere(journal: Journal, collection: string, field: "permissions" | "roles", workspaceId: string, value: string): Mutation[] {
  type Holder = { id: string; workspaceId: string } & Partial<Record<typeof field, string[]>>;
  const holders = journal.scan<Holder>(collection, {
    filter: (d) => d.workspaceId === workspaceId && d[field]?.includes(value) === true,
  });
  return holders.map((doc) => {
    const list = (doc[field] ?? []).filter((v) => v !== value);
    // The holder's revision moves with it (keys and roles alike), so a replace that read the list before this
    // cascade fails its revision check instead of writing the value back.
    return { op: "put", collection, doc: { ...doc, [field]: list, revision: ((doc as { revision?: number }).revision ?? 0) + 1 } };
  });
}

/** PermissionStore over a journal holding `permissionsCollection`, `rolesCollection` and the keys. */
export function permissionStoreOver(journal: Journal): PermissionStore {
  return {
    insert: (records) => journal.commit(records.map((doc) => ({ op: "insert", collection: PERMISSIONS, doc }))),
    get: async (workspaceId, id) => liveOf<PermissionRecord>(journal, PERMISSIONS, workspaceId, id),
    findBySlugs: async (workspaceId, slugs) =>
      [...new Set(slugs)].flatMap((slug) => journal.findUnique<PermissionRecord>(PERMISSIONS, SLUG, pair(workspaceId, slug)) ?? []),
    list: async (workspaceId, page) =>
      journal.scan<PermissionRecord>(PERMISSIONS, {
        index: { name: "workspace", value: workspaceId }, after: page.after, limit: page.limit,
        filter: matching(page.search, (d) => [d.id, d.name, d.slug, d.description]),
      }),
    // Read, plan and commit in one synchronous stretch: the delete and every pull land in one atomic write.
    delete(workspaceId, id) {
      const permission = liveOf<PermissionRecord>(journal, PERMISSIONS, workspaceId, id);
      if (!permission) return Promise.resolve(false);
      return journal.commit([
        { op: "delete", collection: PERMISSIONS, id },
        ...pullEverywhere(journal, ROLES, "permissions", workspaceId, permission.slug),
        ...pullEverywhere(journal, KEYS, "permissions", workspaceId, permission.slug),
      ]).then(() => true);
    },
  };
}

/** RoleStore over a journal holding `rolesCollection` and the keys. */
export function roleStoreOver(journal: Journal): RoleStore {
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: ROLES, doc: record }]),
    get: async (workspaceId, id) => liveOf<RoleRecord>(journal, ROLES, workspaceId, id),
    findByNames: async (workspaceId, names) =>
      [...new Set(names)].flatMap((name) => journal.findUnique<RoleRecord>(ROLES, NAME, pair(workspaceId, name)) ?? []),
    list: async (workspaceId, page) =>
      journal.scan<RoleRecord>(ROLES, {
        index: { name: "workspace", value: workspaceId }, after: page.after, limit: page.limit,
        filter: matching(page.search, (d) => [d.id, d.name, d.description]),
      }),
    // Same name, and the revision the caller read (checked and committed in one synchronous stretch, see replaceLive).
    async replace(record) {
      const read = revisionOf(record);
      return replaceLive(journal, ROLES, { ...record, revision: read + 1 }, (stored) => stored.name === record.name && revisionOf(stored) === read);
    },
    delete(workspaceId, id) {
      const role = liveOf<RoleRecord>(journal, ROLES, workspaceId, id);
      if (!role) return Promise.resolve(false);
      return journal.commit([
        { op: "delete", collection: ROLES, id },
        ...pullEverywhere(journal, KEYS, "roles", workspaceId, role.name),
      ]).then(() => true);
    },
  };
}
