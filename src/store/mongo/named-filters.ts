/**
 * The listings of named records (apis, rate-limit namespaces) as pure filters: a keyset page of one workspace,
 * narrowed by a case-insensitive piece of the name and by a set of ids. Unit tested without a server in
 * test/store/mongo-named-filters.test.ts.
 */
import type { NamedPageQuery } from "../ports/pages.js";
import { keysetPage, liveInWorkspaceFilter, type LiveInWorkspaceFilter } from "./filters.js";
import { containsPattern } from "./identity-filters.js";

export type NamedFilter<F> = F & {
  _id?: { $gt?: string; $in?: string[] };
  name?: { $regex: string; $options: "i" };
};

export interface NamedPage<F> {
  filter: NamedFilter<F>;
  options: { sort: { _id: 1 }; limit: number };
}

/**
 * A keyset page of `base` (ascending by `_id`), keeping names that contain `page.search` (regex-escaped, so it
 * matches as text) and ids among `page.ids`. The {workspaceId, _id} index serves it: equality on the workspace,
 * the range and `$in` on `_id` bound the scan, and the name is tested on what the scan reads. Null for limit < 1.
 */
export function namedPageQuery<F extends object>(base: F, page: NamedPageQuery): NamedPage<F> | null {
  const query = keysetPage(base, { limit: page.limit, after: page.after });
  if (!query) return null;
  const filter: NamedFilter<F> = query.filter;
  if (page.search !== undefined) filter.name = containsPattern(page.search);
  if (page.ids !== undefined) filter._id = { ...filter._id, $in: [...new Set(page.ids)] };
  return { filter, options: query.options };
}

/** A page of the live apis of a workspace. */
export function apisPageQuery(workspaceId: string, page: NamedPageQuery): NamedPage<LiveInWorkspaceFilter> | null {
  return namedPageQuery(liveInWorkspaceFilter(workspaceId), page);
}

/** A page of the rate-limit namespaces of a workspace (namespaces are never deleted). */
export function namespacesPageQuery(workspaceId: string, page: NamedPageQuery): NamedPage<{ workspaceId: string }> | null {
  return namedPageQuery({ workspaceId }, page);
}
