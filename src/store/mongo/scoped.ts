/** Helpers shared by the MongoDB ports: error translation and the verbs every workspace-scoped collection has. */
import type { Collection } from "mongodb";
import { UniqueViolationError } from "../errors.js";
import type { PageQuery } from "../ports/pages.js";
import { duplicateKeyTarget, isDuplicateKeyError } from "./errors.js";
import { fromDocument, liveByIdFilter, livePageQuery, markDeletedUpdate, toDocument, type StoredDocument } from "./filters.js";

/** Runs a write, turning a unique-index violation into the store's UniqueViolationError. */
export async function write<T>(collection: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // No `cause`: the server's error quotes the colliding value, which UniqueViolationError keeps out.
    if (isDuplicateKeyError(error)) throw new UniqueViolationError(duplicateKeyTarget(error, collection));
    throw error;
  }
}

/** The driver's Filter/OptionalUnlessRequiredId types do not resolve over a generic document type. */
export function untypedCollection(docs: Collection<any>): Collection<{ _id: string }> {
  return docs as unknown as Collection<{ _id: string }>;
}

/** get/insert/markDeleted/list shared by every workspace-scoped collection with soft delete. */
export function scoped<R extends { id: string; workspaceId: string }>(docs: Collection<StoredDocument<R>>) {
  const untyped = untypedCollection(docs);
  return {
    async get(workspaceId: string, id: string): Promise<R | undefined> {
      const doc = await untyped.findOne(liveByIdFilter(workspaceId, id));
      return doc ? fromDocument<R>(doc as StoredDocument<R>) : undefined;
    },
    async insert(record: R): Promise<void> {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(record)));
    },
    async markDeleted(workspaceId: string, id: string, at: number): Promise<boolean> {
      const result = await untyped.updateOne(liveByIdFilter(workspaceId, id), markDeletedUpdate(at));
      return result.matchedCount === 1;
    },
    async list(workspaceId: string, page: PageQuery): Promise<R[]> {
      const query = livePageQuery(workspaceId, page);
      if (!query) return [];
      const found = await untyped.find(query.filter, query.options).toArray();
      return found.map((doc) => fromDocument<R>(doc as StoredDocument<R>));
    },
  };
}

/** A document without `_id`, as `replaceOne` takes it: the matched document keeps its own `_id`. */
export function withoutId<D extends { _id: string }>(document: D): Omit<D, "_id"> {
  const { _id, ...rest } = document;
  return rest;
}
