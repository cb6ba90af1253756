/** Optimistic concurrency for replaceable documents (apis, keys, roles, identities), as pure filter/update parts. */
import { liveByIdFilter, type LiveByIdFilter } from "./filters.js";

/** The stored revision a replace expects. Revision 0 also matches a document without the field (`null` matches a
 * missing field), as stored before revisions existed. */
export type RevisionMatch = number | { $in: [0, null] };

/** What a replace's filter says about `revision`, given the one the caller read (absent = 0). */
export function revisionMatch(read: number | undefined): RevisionMatch {
  const revision = read ?? 0;
  return revision === 0 ? { $in: [0, null] } : revision;
}

/** The record as its replacement stores it: one revision past the one read. */
export function atNextRevision<R extends { revision?: number }>(record: R): R {
  return { ...record, revision: (record.revision ?? 0) + 1 };
}

/** What a replace of a revisioned record (apis) must match: the live record of its workspace, still at the revision read. */
export function revisionedReplaceFilter(record: { id: string; workspaceId: string; revision?: number }): LiveByIdFilter & { revision: RevisionMatch } {
  return { ...liveByIdFilter(record.workspaceId, record.id), revision: revisionMatch(record.revision) };
}
