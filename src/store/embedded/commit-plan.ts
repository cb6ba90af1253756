import { UniqueViolationError } from "../errors.js";
import type { Collection, Doc } from "./collection.js";
import { cloneJson } from "./json-clone.js";

/** One change requested by a commit. `insert` is a put that is refused when the id already exists. */
export type Mutation =
  | { op: "insert"; collection: string; doc: Doc }
  | { op: "put"; collection: string; doc: Doc }
  | { op: "delete"; collection: string; id: string };

/** The journal form of one change: a whole-document put or a delete. */
export type StoredOp = { put: string; doc: Doc } | { del: string; id: string };

/**
 * Checks a commit against the current state and returns the ops to journal and apply; throws (changing nothing)
 * when a collection is unknown, an id is missing, an insert finds its id taken, or a unique index would collide.
 * Uniqueness is judged on the state after the whole commit, so one commit may move a unique key between
 * documents. Documents are copied, so the caller's objects never alias stored state.
 */
export function planCommit(collections: ReadonlyMap<string, Collection>, mutations: readonly Mutation[]): StoredOp[] {
  // A commit of one change (every verification with credits commits one balance) is judged without Maps.
  if (mutations.length === 1) return [planOne(collections, mutations[0]!)];
  // The changes by id of each collection the commit touches. The first collection's are kept aside, so that a
  // commit of one collection (every verification with credits commits one balance) makes no Map of collections.
  let first: Collection | undefined;
  let firstChanges: Map<string, Doc | null> | undefined;
  let others: Map<Collection, Map<string, Doc | null>> | undefined;
  const ops: StoredOp[] = [];
  for (const m of mutations) {
    const collection = collections.get(m.collection);
    if (!collection) throw new Error(`unknown collection ${JSON.stringify(m.collection)}`);
    let changes: Map<string, Doc | null> | undefined;
    if (first === undefined) {
      first = collection;
      changes = firstChanges = new Map();
    } else if (collection === first) changes = firstChanges as Map<string, Doc | null>;
    else {
      others ??= new Map();
      changes = others.get(collection);
      if (!changes) others.set(collection, (changes = new Map()));
    }
    if (m.op === "delete") {
      checkId(m.id, collection.name);
      changes.set(m.id, null);
      ops.push({ del: collection.name, id: m.id });
      continue;
    }
    const doc = cloneJson(m.doc);
    checkId(doc?.id, collection.name);
    if (m.op === "insert") {
      const existing = changes.has(doc.id) ? changes.get(doc.id) : collection.get(doc.id);
      if (existing) throw new UniqueViolationError({ collection: collection.name, index: "id" });
    }
    changes.set(doc.id, doc);
    ops.push({ put: collection.name, doc });
  }
  if (first !== undefined) checkUnique(first, firstChanges as Map<string, Doc | null>);
  if (others !== undefined) for (const [collection, changes] of others) checkUnique(collection, changes);
  return ops;
}

/** planCommit of a single mutation: no other change of the commit can take or free an id or a unique key. */
function planOne(collections: ReadonlyMap<string, Collection>, m: Mutation): StoredOp {
  const collection = collections.get(m.collection);
  if (!collection) throw new Error(`unknown collection ${JSON.stringify(m.collection)}`);
  if (m.op === "delete") {
    checkId(m.id, collection.name);
    return { del: collection.name, id: m.id };
  }
  const doc = cloneJson(m.doc);
  checkId(doc?.id, collection.name);
  if (m.op === "insert" && collection.get(doc.id)) throw new UniqueViolationError({ collection: collection.name, index: "id" });
  for (const [index, value] of collection.uniqueKeys(doc)) {
    const owner = collection.owner(index, value);
    if (owner !== undefined && owner !== doc.id) throw new UniqueViolationError({ collection: collection.name, index });
  }
  return { put: collection.name, doc };
}

/** Applies planned (or replayed) ops to memory. */
export function applyOps(collections: Map<string, Collection>, ops: readonly StoredOp[], create?: (name: string) => Collection): void {
  for (const op of ops) {
    const name = "put" in op ? op.put : op.del;
    let collection = collections.get(name);
    if (!collection) {
      if (!create) throw new Error(`unknown collection ${JSON.stringify(name)}`);
      collections.set(name, (collection = create(name)));
    }
    if ("put" in op) collection.set(op.doc);
    else collection.remove(op.id);
  }
}

function checkId(id: unknown, collection: string): asserts id is string {
  if (typeof id !== "string" || id.length === 0) throw new Error(`document of ${collection} needs a non-empty string id`);
}

function checkUnique(collection: Collection, changes: Map<string, Doc | null>): void {
  // Made at the first unique key only: most commits (credits, events' rows) write collections without unique indexes.
  let claimed: Map<string, string> | undefined;
  for (const [id, doc] of changes) {
    if (!doc) continue;
    for (const [index, value] of collection.uniqueKeys(doc)) {
      const claim = `${index}\u0000${value}`;
      claimed ??= new Map();
      if (claimed.has(claim)) throw new UniqueViolationError({ collection: collection.name, index });
      claimed.set(claim, id);
      // A current owner that this commit also rewrites is judged by its new version, which is in `claimed`.
      const owner = collection.owner(index, value);
      if (owner !== undefined && owner !== id && !changes.has(owner)) {
        throw new UniqueViolationError({ collection: collection.name, index });
      }
    }
  }
}

/** Throws when two documents of a collection share a unique key, e.g. after an index was added to old data. */
export function assertUniqueIndexes(collection: Collection): void {
  for (const doc of collection.docs()) {
    for (const [index, value] of collection.uniqueKeys(doc)) {
      if (collection.owner(index, value) !== doc.id) {
        throw new Error(`journal holds two documents of ${collection.name} with the same ${index}; refusing to open`);
      }
    }
  }
}
