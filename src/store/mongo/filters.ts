/**
 * Everything the Mongo adapter sends to the driver, as pure functions: record/document mapping, filters,
 * updates and find options. Unit tested without a server (test/store/mongo-filters.test.ts).
 */
import type { PageQuery as Page } from "../ports/pages.js";
import type { KeySearch } from "../key-search.js";

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

export interface LiveInWorkspaceFilter {
  workspaceId: string;
  deletedAt: { $exists: false };
}

/** The live documents of one workspace: what `livePageQuery` pages through and a count counts. */
export function liveInWorkspaceFilter(workspaceId: string): LiveInWorkspaceFilter {
  return { workspaceId, deletedAt: live };
}

/** Keyset page of the live documents of one workspace, served by the {workspaceId, _id} index. */
export function livePageQuery(workspaceId: string, page: Page): PageQuery<LiveInWorkspaceFilter> | null {
  return keysetPage(liveInWorkspaceFilter(workspaceId), page);
}

/** One document by id in its workspace, deleted or not: what an erase removes. */
export function byIdInWorkspaceFilter(workspaceId: string, id: string): { _id: string; workspaceId: string } {
  return { _id: id, workspaceId };
}

export function keysetPage<F extends object>(base: F, page: Page): PageQuery<F> | null {
  if (!(page.limit >= 1)) return null;
  const filter: PageQuery<F>["filter"] = page.after === undefined ? { ...base } : { ...base, _id: { $gt: page.after } };
  return { filter, options: { sort: { _id: 1 }, limit: Math.floor(page.limit) } };
}

/** Any document at all, reading only its `_id`: enough to answer "does one exist". */
export function anyDocumentQuery(): { filter: Record<string, never>; options: { projection: { _id: 1 } } } {
  return { filter: {}, options: { projection: { _id: 1 } } };
}

// --- keys ---------------------------------------------------------------------------------------------------------

/** The live key with this hash; the unique `hash` index answers it. A deleted key's hash stays taken. */
export function liveByHashFilter(hash: string): { hash: string; deletedAt: { $exists: false } } {
  return { hash, deletedAt: live };
}

/** Keys holding any of these hashes, deleted or not, reading only the hash: what an import checks before inserting. */
export function takenHashesQuery(hashes: readonly string[]): { filter: { hash: { $in: string[] } }; options: { projection: { hash: 1; _id: 0 } } } {
  return { filter: { hash: { $in: [...hashes] } }, options: { projection: { hash: 1, _id: 0 } } };
}

/** The documents with these ids: what a failed insertMany on a server without transactions takes back. */
export function byIdsFilter(ids: readonly string[]): { _id: { $in: string[] } } {
  return { _id: { $in: [...ids] } };
}

export interface KeyReplaceFilter extends LiveByIdFilter {
  apiId: string;
  hash: string;
  /** Revision 0 also matches a document without the field (`null` matches a missing field), as stored before
   * revisions existed. */
  revision: number | { $in: [0, null] };
}

/** What `replaceOne` must match: the live key with the replacement's id, workspace, api AND hash, so a replace can
 * neither move a key nor change its secret, still at the revision the caller read (`record.revision`, absent = 0),
 * so a concurrent write in between makes it match nothing. */
export function keyReplaceFilter(record: { id: string; workspaceId: string; apiId: string; hash: string; revision?: number }): KeyReplaceFilter {
  const read = record.revision ?? 0;
  return {
    _id: record.id,
    workspaceId: record.workspaceId,
    apiId: record.apiId,
    hash: record.hash,
    deletedAt: live,
    revision: read === 0 ? { $in: [0, null] } : read,
  };
}

/** The replacement document of a key replace: the record at the next revision. */
export function keyReplacement<R extends { id: string; revision?: number }>(record: R): Omit<StoredDocument<R>, "_id"> {
  const { _id: _omit, ...rest } = toDocument({ ...record, revision: (record.revision ?? 0) + 1 });
  return rest as Omit<StoredDocument<R>, "_id">;
}

export interface KeysByApiFilter {
  workspaceId: string;
  apiId: string;
  deletedAt: { $exists: boolean };
  identityId?: string;
  $or?: (Record<"name" | "_id" | "start", { $regex: string; $options: "i" }> | { identityId: { $in: string[] } })[];
}

/** Live keys of one api, optionally of one identity: the filter `countDocuments` counts and `keysByApiPageQuery`
 * pages, served by the {workspaceId, apiId, _id} index. */
export function keysByApiFilter(workspaceId: string, apiId: string, identityId?: string, search?: KeySearch): KeysByApiFilter {
  const filter: KeysByApiFilter = { workspaceId, apiId, deletedAt: live };
  if (identityId !== undefined) filter.identityId = identityId;
  if (search !== undefined) {
    // As keyMatchesSearch: the text in the name, id or start (escaped, ignoring case), or one of the identities.
    const pattern = containsPattern(search.text);
    filter.$or = [{ name: pattern }, { _id: pattern }, { start: pattern }, { identityId: { $in: [...search.identityIds] } }] as KeysByApiFilter["$or"];
  }
  return filter;
}

/**
 * Keyset page of `keysByApiFilter`, or with `deleted` of the api's soft-deleted keys instead (same index). Null for
 * limit < 1 (see pageQuery).
 */
export function keysByApiPageQuery(
  workspaceId: string,
  apiId: string,
  page: Page & { identityId?: string; deleted?: boolean; search?: KeySearch },
): PageQuery<KeysByApiFilter> | null {
  const filter = keysByApiFilter(workspaceId, apiId, page.identityId, page.search);
  if (page.deleted) filter.deletedAt = { $exists: true };
  return keysetPage(filter, { limit: page.limit, after: page.after });
}

/** Keyset page of the live keys linked to one identity, served by the {workspaceId, identityId, _id} index. */
export function keysByIdentityPageQuery(
  workspaceId: string,
  identityId: string,
  page: Page,
): PageQuery<{ workspaceId: string; identityId: string; deletedAt: { $exists: false } }> | null {
  return keysetPage({ workspaceId, identityId, deletedAt: live }, page);
}

/** The live keys linked to an identity, served by the {workspaceId, identityId, _id} index: what deleting it unlinks. */
export function keysOfIdentityFilter(
  workspaceId: string,
  identityId: string,
): { workspaceId: string; identityId: string; deletedAt: { $exists: false } } {
  return { workspaceId, identityId, deletedAt: live };
}

/** Unlinks a key from its identity as an edit at `at`, moving its revision so a replace that read the link fails. */
export function unlinkIdentityUpdate(at: number): { $unset: { identityId: "" }; $set: { updatedAt: number }; $inc: { revision: 1 } } {
  return { $unset: { identityId: "" }, $set: { updatedAt: at }, $inc: { revision: 1 } };
}

// --- identities ---------------------------------------------------------------------------------------------------
// A partial index cannot say `deletedAt: {$exists: false}`, so live identities also carry `live: true`, which the
// unique {workspaceId, externalId} index is partial on. The field exists only in MongoDB: it is derived from
// `deletedAt` on every write and dropped on every read.

/** A stored identity: the document of an IdentityRecord, plus `live: true` while it is not deleted. */
export type StoredIdentity<R extends { id: string; deletedAt?: number }> = StoredDocument<R> & { live?: true };

/** Maps an identity to its document, with `live: true` exactly when it has no `deletedAt`. */
export function toIdentityDocument<R extends { id: string; deletedAt?: number }>(record: R): StoredIdentity<R> {
  const document: StoredIdentity<R> = toDocument(record);
  if (record.deletedAt === undefined) document.live = true;
  return document;
}

/** Maps an identity document back to its record, without the adapter's `live` marker. */
export function fromIdentityDocument<R extends { id: string }>(document: StoredIdentity<R & { deletedAt?: number }>): R {
  const { live: _live, ...rest } = document as StoredIdentity<R & { deletedAt?: number }> & Record<string, unknown>;
  return fromDocument<R>(rest as unknown as StoredDocument<R>);
}

/** The live identity with this external id in the workspace; it names the partial index's condition so the server
 * can use that index. */
export function liveByExternalIdFilter(
  workspaceId: string,
  externalId: string,
): { workspaceId: string; externalId: string; live: true } {
  return { workspaceId, externalId, live: true };
}

/** The soft delete of an identity: also drops `live`, which frees its external id in the unique index. */
export function markIdentityDeletedUpdate(at: number): { $set: { deletedAt: number }; $unset: { live: "" } } {
  return { $set: { deletedAt: at }, $unset: { live: "" } };
}

/** A regex that matches `text` literally, ignoring case. */
export function containsPattern(text: string): { $regex: string; $options: "i" } {
  return { $regex: text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), $options: "i" };
}
