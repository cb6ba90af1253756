import type { Journal } from "./journal.js";

/** A record that belongs to a workspace and is soft-deleted by setting `deletedAt`. */
export interface Owned {
  id: string;
  workspaceId: string;
  deletedAt?: number;
}

/** A record stored before revisions existed is at revision 0. */
export const revisionOf = (record: Readonly<{ revision?: number }>) => record.revision ?? 0;

/** The live record with this id in the workspace; a record of another workspace is as absent as an unknown one. */
export function liveOf<T extends Owned>(journal: Journal, collection: string, workspaceId: string, id: string): T | undefined {
  const doc = journal.get<T>(collection, id);
  return doc && doc.workspaceId === workspaceId && doc.deletedAt == null ? doc : undefined;
}

/**
 * Soft delete; false when no live record with this id exists in the workspace. Read, check and commit run in one
 * synchronous stretch (commit applies to memory before it returns), so two concurrent deletes of one record cannot
 * both report true.
 */
export function markDeletedIn(journal: Journal, collection: string, workspaceId: string, id: string, at: number): Promise<boolean> {
  const doc = liveOf<Owned>(journal, collection, workspaceId, id);
  if (!doc) return Promise.resolve(false);
  const deleted: Owned = { ...doc, deletedAt: at };
  return journal.commit([{ op: "put", collection, doc: deleted }]).then(() => true);
}

/**
 * Replaces a live record when `matches(stored)` holds; false otherwise. Synchronous up to the commit, like
 * markDeletedIn, so a replace racing a delete either lands before it or reports false.
 */
export function replaceLive<T extends Owned>(
  journal: Journal,
  collection: string,
  record: T,
  matches: (stored: T) => boolean = () => true,
): Promise<boolean> {
  const stored = liveOf<T>(journal, collection, record.workspaceId, record.id);
  if (!stored || !matches(stored)) return Promise.resolve(false);
  return journal.commit([{ op: "put", collection, doc: record }]).then(() => true);
}

/** Counts the documents of one index value that pass `predicate`, without copying any of them. */
export function countIndexed<T>(
  journal: Journal,
  collection: string,
  index: { name: string; value: string },
  predicate: (doc: Readonly<T>) => boolean,
): number {
  let count = 0;
  // scan() copies what it returns; a filter that counts and rejects everything reads in place and copies nothing.
  journal.scan<T & { id: string }>(collection, {
    index,
    filter: (doc) => {
      if (predicate(doc)) count++;
      return false;
    },
  });
  return count;
}
