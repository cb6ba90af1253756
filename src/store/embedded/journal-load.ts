import { open, type FileHandle } from "node:fs/promises";
import { createCollection, type Collection, type CollectionSpec } from "./collection.js";
import { applyOps, assertUniqueIndexes } from "./commit-plan.js";
import { freezeCollections } from "./frozen-view.js";
import { removeStaleSnapshot, removeTailsBelow, repairJournal, replayJournal, writeSnapshot } from "./journal-file.js";

/** What opening a journal's files leaves for the running journal. */
export interface LoadedJournal {
  collections: Map<string, Collection>;
  /** The file commits append to: the last one, opened for appending, with its size and number in the stream. */
  target: { number: number; handle: FileHandle; bytes: number };
  /** Bytes of the files before the target. */
  settled: number;
  /** Size of the snapshot, or an estimate of it: the live data, as the running journal's threshold weighs it. */
  live: number;
  opened: { ops: number; truncatedBytes: number; compacted: boolean };
}

/**
 * Replays the journal in `dir` (the caller holds its lock) into collections of `specs`, drops a torn tail and the
 * leftovers of an interrupted compaction, and compacts when the files hold more than `ratio` × live documents ops
 * and at least `minOps`.
 */
export async function loadJournal(
  dir: string,
  specs: Record<string, CollectionSpec>,
  compaction: { ratio: number; minOps: number },
): Promise<LoadedJournal> {
  const collections = new Map<string, Collection>();
  for (const [name, spec] of Object.entries(specs)) collections.set(name, createCollection(name, spec));
  const opened = { ops: 0, truncatedBytes: 0, compacted: false };
  await removeStaleSnapshot(dir);
  const replay = await replayJournal(dir, (ops) => applyOps(collections, ops, createCollection));
  collections.forEach(assertUniqueIndexes);
  let segments = await repairJournal(dir, replay);
  opened.ops = replay.ops;
  for (const s of replay.segments) opened.truncatedBytes += s.fileBytes - s.validBytes;
  let docs = 0;
  collections.forEach((c) => (docs += c.size));
  let live: number;
  if (replay.ops >= compaction.minOps && replay.ops > compaction.ratio * docs) {
    const last = segments[segments.length - 1]!;
    live = await writeSnapshot(dir, { next: last.number + 1, chunks: freezeCollections(collections).chunks() });
    await removeTailsBelow(dir, last.number + 1);
    segments = [{ ...segments[0]!, number: last.number, validBytes: live, fileBytes: live }];
    opened.compacted = true;
  } else {
    // Each replayed op is about one document's worth of bytes: the live share of the files.
    const total = segments.reduce((sum, s) => sum + s.validBytes, 0);
    live = replay.ops > docs ? Math.round((total * docs) / replay.ops) : total;
  }
  const last = segments[segments.length - 1]!;
  const settled = segments.reduce((sum, s) => sum + s.validBytes, 0) - last.validBytes;
  const target = { number: last.number, handle: await open(last.path, "a"), bytes: last.validBytes };
  return { collections, target, settled, live, opened };
}
