import { containsPattern, liveByIdFilter, liveInWorkspaceFilter, livePageQuery, type LiveByIdFilter } from "./filters.js";
import { revisionMatch, type RevisionMatch } from "./revision-filters.js";

/** What an identity replace must match: the live identity, still at the revision the caller read. */
export function identityReplaceFilter(record: { id: string; workspaceId: string; revision?: number }): LiveByIdFilter & { revision: RevisionMatch } {
  return { ...liveByIdFilter(record.workspaceId, record.id), revision: revisionMatch(record.revision) };
}

export { containsPattern };

/** Id or external id contains `text`, ignoring case. */
function searchClause(text: string) {
  const pattern = containsPattern(text);
  return { $or: [{ _id: pattern }, { externalId: pattern }] };
}

/** The live identities of a workspace whose id or external id contains `text`, ignoring case. */
export function identitySearchFilter(workspaceId: string, text: string) {
  return { ...liveInWorkspaceFilter(workspaceId), ...searchClause(text) };
}

/** A keyset page of `identitySearchFilter`, ascending by id; null when the page asks for nothing. */
export function identitySearchPageQuery(workspaceId: string, text: string, page: { limit: number; after?: string }) {
  const query = livePageQuery(workspaceId, page);
  return query && { filter: { ...query.filter, ...searchClause(text) }, options: query.options };
}
