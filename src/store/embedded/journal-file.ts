import { writeSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Collection } from "./collection.js";
import type { StoredOp } from "./commit-plan.js";

/**
 * The journal on disk: a header line, then one JSON line per commit, `{"ops":[{"put":c,"doc":{...}}|{"del":c,"id":i}]}`.
 * Commits are fsynced one batch at a time, so damage from a crash can only sit at the end, in the batch that was
 * never acknowledged. Everything after the first unreadable line is that damage, unless an intact record follows
 * it, which means real corruption: then we refuse to open rather than silently drop acknowledged writes.
 */

export const JOURNAL_FILE = "journal.log";
const COMPACT_FILE = "journal.log.compact";
const HEADER = `${JSON.stringify({ journal: "keyward", version: 1 })}\n`;
const CHUNK = 1 << 20;

/** The journal contradicts itself in a way a crash cannot explain. */
export class CorruptJournalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CorruptJournalError";
  }
}

export interface ReplayResult {
  /** Length of the intact prefix: the header and every complete record. */
  validBytes: number;
  fileBytes: number;
  /** Ops replayed, to weigh the journal against the live data. */
  ops: number;
}

/** Streams the journal at `path` into `apply`, record by record; a missing file replays as empty. */
export async function replayJournal(path: string, apply: (ops: StoredOp[]) => void): Promise<ReplayResult> {
  const result: ReplayResult = { validBytes: 0, fileBytes: 0, ops: 0 };
  const file = await open(path, "r").catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
  if (!file) return result;
  try {
    let pending = Buffer.alloc(0);
    let base = 0; // file offset of pending[0]
    let first = true;
    let tornAt: number | undefined;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await file.read(chunk, 0, CHUNK, null);
      if (bytesRead === 0) break;
      result.fileBytes += bytesRead;
      pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = pending.indexOf(10, start); nl !== -1; nl = pending.indexOf(10, start)) {
        const text = pending.toString("utf8", start, nl);
        const at = base + start;
        start = nl + 1;
        if (first) {
          first = false;
          const header = parseJson(text);
          if (header === undefined) tornAt = at;
          else if (header?.journal !== "keyward" || header?.version !== 1) {
            throw new CorruptJournalError(`${path} is not a keyward journal (version 1)`);
          } else result.validBytes = base + start;
          continue;
        }
        const ops = parseRecord(text);
        if (tornAt !== undefined) {
          if (ops) throw new CorruptJournalError(`${path}: unreadable record at byte ${tornAt} followed by intact ones`);
          continue;
        }
        if (!ops) {
          tornAt = at;
          continue;
        }
        apply(ops);
        result.ops += ops.length;
        result.validBytes = base + start;
      }
      base += start;
      pending = pending.subarray(start);
    }
    return result;
  } finally {
    await file.close();
  }
}

/**
 * Makes the journal end at its intact prefix (dropping a torn tail) and start with the header, durably.
 * Returns whether anything was written.
 */
export async function repairJournal(dir: string, replay: ReplayResult): Promise<boolean> {
  if (replay.validBytes === replay.fileBytes && replay.validBytes > 0) return false;
  const path = join(dir, JOURNAL_FILE);
  const file = await open(path, replay.fileBytes > 0 ? "r+" : "a");
  try {
    await file.truncate(replay.validBytes);
    if (replay.validBytes === 0) await file.write(HEADER, 0);
    await file.datasync();
  } finally {
    await file.close();
  }
  await syncDir(dir);
  return true;
}

/**
 * Rewrites the journal as one put per live document (id order, so replay appends), atomically: a temp file is
 * written and fsynced, renamed over the journal, then the directory is fsynced so the rename itself survives.
 */
export async function writeSnapshot(dir: string, collections: Iterable<Collection>): Promise<number> {
  const temp = join(dir, COMPACT_FILE);
  const file = await open(temp, "w");
  let bytes = 0;
  try {
    let buffered: string[] = [HEADER];
    let size = HEADER.length;
    const flush = async () => {
      const data = Buffer.from(buffered.join(""));
      await writeAll(file, data);
      bytes += data.length;
      buffered = [];
      size = 0;
    };
    for (const collection of collections) {
      for (const doc of collection.scan({})) {
        const line = `${JSON.stringify({ ops: [{ put: collection.name, doc }] })}\n`;
        buffered.push(line);
        size += line.length;
        if (size >= CHUNK) await flush();
      }
    }
    await flush();
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(temp, join(dir, JOURNAL_FILE));
  await syncDir(dir);
  return bytes;
}

/** Removes a snapshot left by a crash during compaction; the journal it was meant to replace is still whole. */
export async function removeStaleSnapshot(dir: string): Promise<void> {
  await rm(join(dir, COMPACT_FILE), { force: true });
}

/** fsyncs a directory so that file creations, renames and removals in it are durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes every byte (a write may be short). */
export async function writeAll(file: import("node:fs/promises").FileHandle, data: Buffer): Promise<void> {
  for (let offset = 0; offset < data.length; ) {
    const { bytesWritten } = await file.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/** writeAll for a plain descriptor, synchronously: for small appends whose durability comes from a later fdatasync. */
export function writeAllSync(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseRecord(text: string): StoredOp[] | undefined {
  const record = parseJson(text);
  if (!record || !Array.isArray(record.ops)) return undefined;
  for (const op of record.ops) {
    const ok =
      op !== null &&
      typeof op === "object" &&
      ((typeof op.put === "string" && typeof op.doc?.id === "string") ||
        (typeof op.del === "string" && typeof op.id === "string"));
    if (!ok) return undefined;
  }
  return record.ops;
}
