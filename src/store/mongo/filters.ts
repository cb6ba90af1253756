/**
 * Everything the Mongo adapter sends to the driver, as pure functions: record/document mapping, filters,
 * updates and find options. Unit tested without a server (test/store/mongo-filters.test.ts).
 */
import type { PageQuery as Page } from "../ports.js";

/** A stored document: our record with `id` renamed to `_id`. */
export type StoredDocument<R extends { id: string }> = Omit<R, "id"> & { _id: string };

/** Maps a record to its document; optional fields left undefined are omitted, never stored as null. */
export function toDocument<R extends { id: string }>(record: R): StoredDocument<R> {
  const { id, ...rest } = record;
  const document: Record<string, unknown> = { _id: id };
  for (const [field, value] of Object.entries(rest)) {
    if (value !== undefined) document[field] = value;
  }
  return document as StoredDocument<R>;
}

/** Maps a document back to its record: `_id` becomes `id`, and absent optional fields stay absent (a null read
 * from a hand-edited document is dropped too). */
export function fromDocument<R extends { id: string }>(document: StoredDocument<R>): R {
  const { _id, ...rest } = document as { _id: string } & Record<string, unknown>;
  const record: Record<string, unknown> = { id: _id };
  for (const [field, value] of Object.entries(rest)) {
    if (value !== undefined && value !== null) record[field] = value;
  }
  return record as R;
}

/** Matches live documents only: soft-deleted ones carry `deletedAt`. */
const live = { $exists: false } as const;

/** One document by id, deleted or not. */
export function byIdFilter(id: string): { _id: string } {
  return { _id: id };
}

/** A root key by hash, deleted or not (authentication tells "deleted" from "unknown" itself). */
export function byHashFilter(hash: string): { hash: string } {
  return { hash };
}

export interface LiveByIdFilter {
  _id: string;
  workspaceId: string;
  deletedAt: { $exists: false };
}

/** A live document of one workspace: a record of another workspace is as invisible as an unknown one. */
export function liveByIdFilter(workspaceId: string, id: string): LiveByIdFilter {
  return { _id: id, workspaceId, deletedAt: live };
}

/** The soft delete: `updateOne(liveByIdFilter(...), markDeletedUpdate(at))` matches at most one live document,
 * so a second delete (or a delete across workspaces) reports matchedCount 0. */
export function markDeletedUpdate(at: number): { $set: { deletedAt: number } } {
  return { $set: { deletedAt: at } };
}

export interface PageQuery<F> {
  filter: F & { _id?: { $gt: string } };
  options: { sort: { _id: 1 }; limit: number };
}

/**
 * Keyset page over a whole collection: `_id > after`, ascending by `_id`, at most `limit`. Returns null for
 * limit < 1, which is empty by definition: the driver would read limit 0 as "no limit" and a negative one as
 * a single batch.
 */
export function pageQuery(page: Page): PageQuery<Record<string, never>> | null {
  return keysetPage({}, page);
}

/** Keyset page of the live documents of one workspace, served by the {workspaceId, _id} index. */
export function livePageQuery(
  workspaceId: string,
  page: Page,
): PageQuery<{ workspaceId: string; deletedAt: { $exists: false } }> | null {
  return keysetPage({ workspaceId, deletedAt: live }, page);
}

function keysetPage<F extends object>(base: F, page: Page): PageQuery<F> | null {
  if (!(page.limit >= 1)) return null;
  const filter: PageQuery<F>["filter"] = page.after === undefined ? { ...base } : { ...base, _id: { $gt: page.after } };
  return { filter, options: { sort: { _id: 1 }, limit: Math.floor(page.limit) } };
}

/** Any document at all, reading only its `_id`: enough to answer "does one exist". */
export function anyDocumentQuery(): { filter: Record<string, never>; options: { projection: { _id: 1 } } } {
  return { filter: {}, options: { projection: { _id: 1 } } };
}
