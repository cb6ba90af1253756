import { createByteWriter, type ByteWriter } from "./byte-writer.js";
import type { Collection } from "./collection.js";

/** What the commits of one batch wait on: settled once, for all of them, when their write ends. */
export interface BatchOutcome {
  resolve(): void;
  reject(error: unknown): void;
}

/** The commits waiting for the next group write, as the documents they changed. */
export interface CommitBatch {
  readonly empty: boolean;
  /**
   * Notes that document `id` of `collection` changed (already applied to the collection); resolves (or rejects)
   * when the batch it joined is written (or fails).
   */
  add(collection: Collection, id: string): Promise<void>;
  /**
   * Takes the batch as one journal record, `{"ops":[...]}` and a newline, holding each changed document's state in
   * its collection now (a put, or a delete when it is gone), and the outcome its commits wait on, leaving the batch
   * empty for the next. Call it in the same synchronous stretch in which the batch ends: the record must hold
   * exactly the batch's commits. The bytes stay valid until `release`, which must come before the next `take`.
   */
  take(): { data: Buffer; outcome: BatchOutcome };
  /** The taken bytes were written (or given up on): their buffer holds the next batch but one. */
  release(): void;
}

/**
 * A group commit's batch. The whole batch is one journal record, so it replays all or nothing, which keeps every
 * commit in it atomic however a crash tears the write (none of them was acknowledged). Within one record only each
 * document's last state matters, so a document changed by many commits of the batch (a hot key's balance, spent
 * by every verification of the turn) is serialised once, at `take`, rather than once per commit. The commits share
 * one promise, and two buffers take turns, one filling while the other is written, so a steady load allocates none.
 */
export function createCommitBatch(): CommitBatch {
  let filling = createByteWriter();
  let spare: ByteWriter | undefined;
  let writing: ByteWriter | undefined;
  let outcome: (BatchOutcome & { promise: Promise<void> }) | undefined;
  // By collection, then id, each in order of first change.
  let changed = new Map<Collection, Set<string>>();

  // Each op in pieces, the collection's part made once per batch: no string joining op and document to copy again.
  function encode(): void {
    const out = filling;
    out.write('{"ops":[');
    let separator = "";
    for (const [collection, ids] of changed) {
      const name = JSON.stringify(collection.name);
      const put = `{"put":${name},"doc":`;
      const del = `{"del":${name},"id":`;
      for (const id of ids) {
        const doc = collection.get(id);
        out.write(separator);
        out.write(doc ? put : del);
        out.write(JSON.stringify(doc ?? id));
        out.write("}");
        separator = ",";
      }
    }
    out.write("]}\n");
  }

  return {
    get empty() {
      return changed.size === 0;
    },

    add(collection, id) {
      let ids = changed.get(collection);
      if (!ids) changed.set(collection, (ids = new Set()));
      ids.add(id);
      if (!outcome) {
        let settle!: BatchOutcome;
        const promise = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
        outcome = { promise, ...settle };
      }
      return outcome.promise;
    },

    take() {
      if (changed.size > 0) encode();
      const taken = { data: filling.bytes(), outcome: outcome! };
      writing = filling;
      filling = spare ?? createByteWriter();
      spare = undefined;
      outcome = undefined;
      changed = new Map();
      return taken;
    },

    release() {
      writing?.reset();
      spare = writing;
      writing = undefined;
    },
  };
}
