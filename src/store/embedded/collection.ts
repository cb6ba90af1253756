import { createSortedIds, type SortedIds } from "./sorted-ids.js";

/** A stored document: any JSON object with a string id. */
export interface Doc {
  readonly id: string;
}

/** Derives an index key from a document; undefined leaves the document out of that index (sparse). */
export type IndexKey = (doc: Record<string, any>) => string | undefined;

/** Declares a collection's derived indexes. Indexes are rebuilt on replay, so adding one needs no migration. */
export interface CollectionSpec {
  /** Unique indexes by name, e.g. `{ hash: (d) => d.hash }`; a write that would share a key is refused. */
  unique?: Record<string, IndexKey>;
  /** Non-unique indexes by name, e.g. `{ workspace: (d) => d.workspaceId }`, scannable in id order. */
  indexes?: Record<string, IndexKey>;
}

export interface ScanOptions<T> {
  /** Only ids strictly after this one in the scan's order (keyset pagination): greater, or less when `descending`. */
  after?: string;
  /** Newest (greatest id) first. */
  descending?: boolean;
  /** Maximum number of documents returned; unlimited when omitted. */
  limit?: number;
  /** Documents failing it are skipped and do not count towards `limit`. Must not mutate the document. */
  filter?: (doc: Readonly<T>) => boolean;
  /** Restrict the scan to one value of a non-unique index. */
  index?: { name: string; value: string };
}

/** In-memory state of one collection: documents by id, the id order, and the derived indexes. Pure, no I/O. */
export interface Collection {
  readonly name: string;
  readonly size: number;
  get(id: string): Doc | undefined;
  /** Id of the document holding `value` in unique index `index`. */
  owner(index: string, value: string): string | undefined;
  /** Unique index names with the key each one derives from `doc`. Read-only: the array may be shared. */
  uniqueKeys(doc: Doc): Array<[index: string, value: string]>;
  scan<T>(options: ScanOptions<T>): T[];
  docs(): IterableIterator<Doc>;
  /** Replaces or adds; the caller has already checked uniqueness. */
  set(doc: Doc): void;
  remove(id: string): void;
}

/** What uniqueKeys answers for a collection without unique indexes: shared, so that answer allocates nothing. */
const NO_KEYS: Array<[string, string]> = [];

/** Creates an empty collection with the indexes of `spec`. */
export function createCollection(name: string, spec: CollectionSpec = {}): Collection {
  const docs = new Map<string, Doc>();
  const order = createSortedIds();
  const unique = Object.entries(spec.unique ?? {}).map(([index, key]) => ({ index, key, map: new Map<string, string>() }));
  const secondary = Object.entries(spec.indexes ?? {}).map(([index, key]) => ({
    index,
    key,
    map: new Map<string, SortedIds>(),
  }));

  function keyOf(key: IndexKey, doc: Doc): string | undefined {
    const value = key(doc as Record<string, any>);
    return typeof value === "string" ? value : undefined;
  }

  function unindex(doc: Doc): void {
    for (const u of unique) {
      const value = keyOf(u.key, doc);
      if (value !== undefined && u.map.get(value) === doc.id) u.map.delete(value);
    }
    for (const s of secondary) {
      const value = keyOf(s.key, doc);
      if (value === undefined) continue;
      const ids = s.map.get(value);
      ids?.remove(doc.id);
      if (ids?.size === 0) s.map.delete(value);
    }
  }

  return {
    name,
    get size() {
      return docs.size;
    },
    get: (id) => docs.get(id),
    owner(index, value) {
      return unique.find((u) => u.index === index)?.map.get(value);
    },
    uniqueKeys(doc) {
      if (unique.length === 0) return NO_KEYS;
      const out: Array<[string, string]> = [];
      for (const u of unique) {
        const value = keyOf(u.key, doc);
        if (value !== undefined) out.push([u.index, value]);
      }
      return out;
    },
    scan<T>(options: ScanOptions<T>): T[] {
      let ids: SortedIds | undefined = order;
      if (options.index) {
        const s = secondary.find((x) => x.index === options.index!.name);
        if (!s) throw new Error(`collection ${name} has no index ${options.index.name}`);
        ids = s.map.get(options.index.value);
      }
      const out: T[] = [];
      const limit = options.limit ?? Infinity;
      if (!ids || limit <= 0) return out;
      for (const id of options.descending ? ids.downFrom(options.after) : ids.from(options.after)) {
        const doc = docs.get(id) as T;
        if (options.filter && !options.filter(doc)) continue;
        out.push(doc);
        if (out.length >= limit) break;
      }
      return out;
    },
    docs: () => docs.values(),
    set(doc) {
      const previous = docs.get(doc.id);
      if (previous) unindex(previous);
      else order.add(doc.id);
      docs.set(doc.id, doc);
      for (const u of unique) {
        const value = keyOf(u.key, doc);
        if (value !== undefined) u.map.set(value, doc.id);
      }
      for (const s of secondary) {
        const value = keyOf(s.key, doc);
        if (value === undefined) continue;
        let ids = s.map.get(value);
        if (!ids) s.map.set(value, (ids = createSortedIds()));
        ids.add(doc.id);
      }
    },
    remove(id) {
      const previous = docs.get(id);
      if (!previous) return;
      unindex(previous);
      docs.delete(id);
      order.remove(id);
    },
  };
}
