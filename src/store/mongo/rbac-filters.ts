/**
 * What the MongoDB permission and role ports send to the driver, as pure functions (unit tested without a server in
 * test/store/mongo-rbac-filters.test.ts). Permissions and roles are deleted for good, so no `deletedAt` appears.
 */
import type { PageQuery as Page } from "../ports/pages.js";
import type { PageQuery } from "./filters.js";
import { revisionMatch, type RevisionMatch } from "./revision-filters.js";

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

type SearchFilter = { $or: Record<string, { $regex: string; $options: "i" }>[] };

/**
 * Keyset page of a workspace's permissions or roles, served by the {workspaceId, _id} index. Null for limit < 1.
 * `search` keeps documents whose `fields` contain it, ignoring case (a regex of the escaped text).
 */
export function rbacPageQuery(
  workspaceId: string,
  page: Page & { search?: string },
  fields: string[] = [],
): PageQuery<{ workspaceId: string } & Partial<SearchFilter>> | null {
  if (!(page.limit >= 1)) return null;
  const filter: PageQuery<{ workspaceId: string } & Partial<SearchFilter>>["filter"] = { workspaceId };
  if (page.after !== undefined) filter._id = { $gt: page.after };
  if (page.search !== undefined) {
    const pattern = page.search.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    filter.$or = fields.map((field) => ({ [field]: { $regex: pattern, $options: "i" as const } }));
  }
  return { filter, options: { sort: { _id: 1 }, limit: Math.floor(page.limit) } };
}

/** The fields a permission search looks at. */
export const PERMISSION_SEARCH_FIELDS = ["_id", "name", "slug", "description"];
/** The fields a role search looks at. */
export const ROLE_SEARCH_FIELDS = ["_id", "name", "description"];

/** A role replacement must keep its name (the name is what keys carry) and find the revision the caller read. */
export function roleReplaceFilter(record: { id: string; workspaceId: string; name: string; revision?: number }): {
  _id: string; workspaceId: string; name: string; revision: RevisionMatch;
} {
  return { _id: record.id, workspaceId: record.workspaceId, name: record.name, revision: revisionMatch(record.revision) };
}

/** Every holder (role or key) of the workspace whose `field` list holds `value`: what a cascade updates. */
export function holdersFilter(field: "permissions" | "roles", workspaceId: string, value: string): Record<string, unknown> {
  return { workspaceId, [field]: value };
}

/** Removes `value` from a role's or key's `field` list and bumps its revision, so a replace that read the list
 * before the cascade fails its revision check instead of writing the value back. */
export function pullUpdate(field: "permissions" | "roles", value: string): { $pull: Record<string, string>; $inc: { revision: 1 } } {
  return { $pull: { [field]: value }, $inc: { revision: 1 } };
}

/** The documents of one batch by id: what a refused batch insert deletes again, so the batch is all or nothing. */
export function batchFilter(ids: string[]): { _id: { $in: string[] } } {
  return { _id: { $in: ids } };
}
