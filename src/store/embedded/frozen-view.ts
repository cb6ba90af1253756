import type { Collection, Doc } from "./collection.js";
import type { StoredOp } from "./commit-plan.js";

/** Documents per chunk: a few milliseconds of JSON.stringify at most, so commits wait no longer than that. */
const PAGE = 512;

/**
 * The collections as they were at one moment (the cut), readable while commits go on: how a snapshot is written
 * without holding up a single commit. Copy-on-write at the document level: every commit hands its ops to
 * `preserve` before applying them, which keeps the cut's version of each document the walk has not reached yet.
 * Stored documents are never changed in place (a put replaces the object), so keeping the old object is enough.
 */
export interface FrozenView {
  /** Call with a commit's ops before they are applied. */
  preserve(ops: readonly StoredOp[]): void;
  /**
   * The cut's documents as journal lines, one chunk of up to PAGE documents at a time, collection by collection in
   * id order (so a replay appends); documents deleted after the cut that the walk never met come at the end of
   * their collection. Each chunk is built synchronously when asked for: ask for the next only after the last
   * was written, and commits run in between.
   */
  chunks(): Generator<string>;
}

interface Walk {
  /** The cut's version of documents changed since, the walk not having reached them; undefined = did not exist. */
  before: Map<string, Doc | undefined>;
  /** Last id the walk read; ids up to it are in the snapshot already. */
  position?: string;
  done: boolean;
}

/** Freezes `collections` as they are now. */
export function freezeCollections(collections: ReadonlyMap<string, Collection>): FrozenView {
  const walks = new Map<string, Walk>();
  for (const name of collections.keys()) walks.set(name, { before: new Map(), done: false });
  const line = (name: string, doc: Doc) => `${JSON.stringify({ ops: [{ put: name, doc }] })}\n`;

  return {
    preserve(ops) {
      for (const op of ops) {
        const [name, id] = "put" in op ? [op.put, op.doc.id] : [op.del, op.id];
        const walk = walks.get(name);
        if (!walk || walk.done || walk.before.has(id)) continue;
        if (walk.position !== undefined && id <= walk.position) continue;
        walk.before.set(id, collections.get(name)!.get(id));
      }
    },

    *chunks() {
      for (const [name, collection] of collections) {
        const walk = walks.get(name)!;
        for (;;) {
          const page = collection.scan<Doc>({ after: walk.position, limit: PAGE });
          if (page.length === 0) break;
          let text = "";
          for (const live of page) {
            let doc: Doc | undefined = live;
            if (walk.before.has(live.id)) {
              doc = walk.before.get(live.id);
              walk.before.delete(live.id);
            }
            if (doc) text += line(name, doc);
          }
          walk.position = page[page.length - 1]!.id;
          yield text;
        }
        walk.done = true;
        const deleted = [...walk.before.values()].filter((doc): doc is Doc => doc !== undefined);
        walk.before.clear();
        deleted.sort((a, b) => (a.id < b.id ? -1 : 1));
        if (deleted.length > 0) yield deleted.map((doc) => line(name, doc)).join("");
      }
    },
  };
}
