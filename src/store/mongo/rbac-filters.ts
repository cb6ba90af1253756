/**
 * What the MongoDB permission and role ports send to the driver, as pure functions (unit tested without a server in
 * test/store/mongo-rbac-filters.test.ts). Permissions and roles are deleted for good, so no `deletedAt` appears.
 */
import type { PageQuery as Page } from "../ports.js";
import type { PageQuery } from "./filters.js";

/** One permission or role by id in its workspace: another workspace's is as absent as an unknown one. */
export function rbacByIdFilter(workspaceId: string, id: string): { _id: string; workspaceId: string } {
  return { _id: id, workspaceId };
}

/** The workspace's permissions with these slugs, served by the unique {workspaceId, slug} index. */
export function permissionsBySlugsFilter(workspaceId: string, slugs: string[]): { workspaceId: string; slug: { $in: string[] } } {
  return { workspaceId, slug: { $in: [...new Set(slugs)] } };
}

/** The workspace's roles with these names, served by the unique {workspaceId, name} index. */
export function rolesByNamesFilter(workspaceId: string, names: string[]): { workspaceId: string; name: { $in: string[] } } {
  return { workspaceId, name: { $in: [...new Set(names)] } };
}

/** Keyset page of a workspace's permissions or roles, served by the {workspaceId, _id} index. Null for limit < 1. */
export function rbacPageQuery(workspaceId: string, page: Page): PageQuery<{ workspaceId: string }> | null {
  if (!(page.limit >= 1)) return null;
  const filter: PageQuery<{ workspaceId: string }>["filter"] = page.after === undefined ? { workspaceId } : { workspaceId, _id: { $gt: page.after } };
  return { filter, options: { sort: { _id: 1 }, limit: Math.floor(page.limit) } };
}

/** A role replacement must keep its name: the name is what keys carry. */
export function roleReplaceFilter(record: { id: string; workspaceId: string; name: string }): { _id: string; workspaceId: string; name: string } {
  return { _id: record.id, workspaceId: record.workspaceId, name: record.name };
}

/** Every holder (role or key) of the workspace whose `field` list holds `value`: what a cascade updates. */
export function holdersFilter(field: "permissions" | "roles", workspaceId: string, value: string): Record<string, unknown> {
  return { workspaceId, [field]: value };
}

/** Removes `value` from the holder's `field` list. */
export function pullUpdate(field: "permissions" | "roles", value: string): { $pull: Record<string, string> } {
  return { $pull: { [field]: value } };
}

/** The documents of one batch by id: what a refused batch insert deletes again, so the batch is all or nothing. */
export function batchFilter(ids: string[]): { _id: { $in: string[] } } {
  return { _id: { $in: ids } };
}
