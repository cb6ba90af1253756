import type { NamedPageQuery } from "../ports/pages.js";
import type { Journal } from "./journal.js";
import { liveOf, type Owned } from "./owned.js";

/** A workspace-owned record listed by name: apis, rate-limit namespaces. */
export type Named = Owned & { name: string };

/** Name contains `search`, ignoring case, as plain text (as the MongoDB adapter's escaped case-insensitive regex). */
function nameMatches(search: string | undefined): (record: Readonly<Named>) => boolean {
  if (search === undefined) return () => true;
  const needle = search.toLowerCase();
  return (record) => record.name.toLowerCase().includes(needle);
}

/**
 * One keyset page of a workspace's live named records, ascending by id. Without `page.ids` it walks the workspace's
 * entries of `index` (which must hold only that workspace's records); with them it visits just those ids, in order,
 * so a root key holding a few per-resource grants never walks the whole workspace.
 */
export function scanNamed<T extends Named>(
  journal: Journal,
  collection: string,
  index: string,
  workspaceId: string,
  page: NamedPageQuery,
): T[] {
  const matches = nameMatches(page.search);
  if (page.ids === undefined) {
    return journal.scan<T>(collection, {
      index: { name: index, value: workspaceId },
      filter: (record) => record.deletedAt == null && matches(record),
      after: page.after,
      limit: page.limit,
    });
  }
  const out: T[] = [];
  if (!(page.limit >= 1)) return out;
  const after = page.after;
  const ids = [...new Set(page.ids)].filter((id) => after === undefined || id > after).sort();
  for (const id of ids) {
    const record = liveOf<T>(journal, collection, workspaceId, id);
    if (!record || !matches(record)) continue;
    out.push(record);
    if (out.length >= page.limit) break;
  }
  return out;
}
