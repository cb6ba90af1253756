import { writeSync } from "node:fs";
import { open, readdir, rename, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { StoredOp } from "./commit-plan.js";

/**
 * The journal on disk: a base file and the tails that follow it, replayed in that order as one stream.
 * - `journal.log`, the base: a header line, then one JSON line per record,
 *   `{"ops":[{"put":c,"doc":{...}}|{"del":c,"id":i}]}`, replayed all or nothing. A record is one group write: the
 *   documents its commits changed, each once, as they left them (journals written before that hold one record per
 *   commit, which replays the same way). A compaction replaces it with a snapshot (one put per live
 *   document) whose header names the first tail that follows it, `{"journal":"keyward","version":2,"next":7}`
 *   (a version 1 header, from before tails existed, means next 1).
 * - `journal.<n>.log` for n = next, next + 1, ... without a gap: header `{"journal":"keyward","version":2,"segment":n}`,
 *   then commits. Commits go to the last file. Tails below `next` are already in the snapshot: leftovers of a
 *   compaction that stopped before deleting them.
 * Commits are written one batch at a time, in order, so damage from a crash can only sit at the end of the stream,
 * in the batch that was never acknowledged. Everything after the first unreadable line is that damage, unless an
 * intact record follows it (in that file or a later one), which means real corruption: then we refuse to open
 * rather than silently drop acknowledged writes.
 */

export const JOURNAL_FILE = "journal.log";
const COMPACT_FILE = "journal.log.compact";
const TAIL = /^journal\.(\d+)\.log$/;
const CHUNK = 1 << 20;

/** File name of tail segment `n`. */
export const tailFile = (n: number): string => `journal.${n}.log`;
const baseHeader = (next: number) => `${JSON.stringify({ journal: "keyward", version: 2, next })}\n`;
const tailHeader = (segment: number) => `${JSON.stringify({ journal: "keyward", version: 2, segment })}\n`;

/** The journal contradicts itself in a way a crash cannot explain. */
export class CorruptJournalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CorruptJournalError";
  }
}

/** One file of the stream. The base's `number` is its `next` − 1, so the file after any segment is `number` + 1. */
export interface Segment {
  path: string;
  number: number;
  /** Length of the intact prefix: the header and every complete record. */
  validBytes: number;
  fileBytes: number;
}

export interface ReplayResult {
  /** The base, then its tails, in replay order. */
  segments: Segment[];
  /** Tails below the base's `next`, whose records the base already holds. */
  stale: string[];
  /** Ops replayed, to weigh the journal against the live data. */
  ops: number;
}

/** Streams the journal in `dir` into `apply`, record by record, file by file; no files replay as empty. */
export async function replayJournal(dir: string, apply: (ops: StoredOp[]) => void): Promise<ReplayResult> {
  const tails = (await readdir(dir))
    .map((name) => TAIL.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const stream: StreamState = { ops: 0 };
  const basePath = join(dir, JOURNAL_FILE);
  let next = 1;
  const base = await replayFile(basePath, stream, apply, (header) => {
    if (header.version === 1) return true;
    if (header.version !== 2 || !Number.isSafeInteger(header.next) || header.next < 1) return false;
    next = header.next;
    return true;
  });
  if (!base.exists && tails.length > 0) throw new CorruptJournalError(`${basePath} is missing but tails of it are present`);
  if (base.validBytes === 0 && tails.length > 0) throw new CorruptJournalError(`${basePath} has no readable header but tails of it are present`);
  const segments: Segment[] = [{ path: basePath, number: next - 1, validBytes: base.validBytes, fileBytes: base.fileBytes }];
  const live = tails.filter((n) => n >= next);
  for (const [i, n] of live.entries()) {
    if (n !== next + i) throw new CorruptJournalError(`${join(dir, tailFile(next + i))} is missing before ${tailFile(n)}`);
    const path = join(dir, tailFile(n));
    const tail = await replayFile(path, stream, apply, (header) => header.version === 2 && header.segment === n);
    segments.push({ path, number: n, validBytes: tail.validBytes, fileBytes: tail.fileBytes });
  }
  return { segments, stale: tails.filter((n) => n < next).map((n) => join(dir, tailFile(n))), ops: stream.ops };
}

interface StreamState {
  ops: number;
  /** Where the first unreadable line of the stream is, once found. */
  tornAt?: string;
}

async function replayFile(
  path: string,
  stream: StreamState,
  apply: (ops: StoredOp[]) => void,
  acceptHeader: (header: Record<string, any>) => boolean,
): Promise<{ exists: boolean; validBytes: number; fileBytes: number }> {
  const result = { exists: false, validBytes: 0, fileBytes: 0 };
  const file = await open(path, "r").catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
  if (!file) return result;
  result.exists = true;
  try {
    let pending = Buffer.alloc(0);
    let base = 0; // file offset of pending[0]
    let first = true;
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
          if (header === undefined) stream.tornAt ??= `${path}: unreadable record at byte ${at}`;
          else if (header?.journal !== "keyward" || !acceptHeader(header)) {
            throw new CorruptJournalError(`${path} is not a keyward journal file of the expected kind and version`);
          } else if (stream.tornAt === undefined) result.validBytes = base + start;
          continue;
        }
        const ops = parseRecord(text);
        if (stream.tornAt !== undefined) {
          if (ops) throw new CorruptJournalError(`${stream.tornAt} followed by intact ones`);
          continue;
        }
        if (!ops) {
          stream.tornAt = `${path}: unreadable record at byte ${at}`;
          continue;
        }
        apply(ops);
        stream.ops += ops.length;
        result.validBytes = base + start;
      }
      base += start;
      pending = pending.subarray(start);
    }
    // A last line without its newline is torn too (a record is complete only with it), and so is a file without
    // even its header: a crash while it was being created.
    if (result.validBytes < result.fileBytes || result.fileBytes === 0) {
      stream.tornAt ??= `${path}: unreadable record at byte ${result.validBytes}`;
    }
    return result;
  } finally {
    await file.close();
  }
}

/**
 * Makes the journal end at its intact prefix, durably: removes stale tails, cuts the file holding the first damage
 * at its last complete record (a tail left without one goes, an unreadable base restarts with a header), and
 * removes every later file, which the replay found without records. Returns the segments that remain.
 */
export async function repairJournal(dir: string, replay: ReplayResult): Promise<Segment[]> {
  let changed = false;
  for (const path of replay.stale) {
    await rm(path, { force: true });
    changed = true;
  }
  const segments = replay.segments;
  const damaged = segments.findIndex((s) => s.validBytes < s.fileBytes || s.validBytes === 0);
  if (damaged === -1) {
    if (changed) await syncDir(dir);
    return segments;
  }
  for (const later of segments.slice(damaged + 1)) await rm(later.path, { force: true });
  const kept = segments.slice(0, damaged + 1);
  const last = kept[damaged]!;
  if (last.validBytes === 0 && damaged > 0) {
    await rm(last.path, { force: true });
    kept.pop();
  } else {
    const file = await open(last.path, last.fileBytes > 0 ? "r+" : "a");
    try {
      await file.truncate(last.validBytes);
      if (last.validBytes === 0) {
        // Only the base of an empty journal gets here (tails need a readable base): it restarts from the beginning.
        const header = baseHeader(1);
        await file.write(header, 0);
        kept[0] = { ...last, number: 0, validBytes: Buffer.byteLength(header) };
      }
      await file.datasync();
    } finally {
      await file.close();
    }
  }
  await syncDir(dir);
  return kept.map((s) => ({ ...s, fileBytes: s.validBytes }));
}

/** Creates tail segment `number`, empty but for its header, durably (file and directory entry), ready for appends. */
export async function createTail(dir: string, number: number): Promise<{ handle: FileHandle; bytes: number }> {
  const header = Buffer.from(tailHeader(number));
  const handle = await open(join(dir, tailFile(number)), "ax");
  try {
    await writeAll(handle, header);
    await handle.datasync();
    await syncDir(dir);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return { handle, bytes: header.length };
}

/** Removes the tails numbered below `next`: a snapshot naming `next` holds them. */
export async function removeTailsBelow(dir: string, next: number): Promise<void> {
  let removed = false;
  for (const name of await readdir(dir)) {
    const m = TAIL.exec(name);
    if (m && Number(m[1]) < next) {
      await rm(join(dir, name), { force: true });
      removed = true;
    }
  }
  if (removed) await syncDir(dir);
}

/** Thrown by writeSnapshot when `stop` asked it to give up; nothing changed on disk. */
export class SnapshotStoppedError extends Error {
  constructor() {
    super("journal snapshot stopped");
    this.name = "SnapshotStoppedError";
  }
}

/**
 * Replaces the base with a snapshot followed by tail `next`, atomically: the chunks go to a temp file, which is
 * fsynced, renamed over the base, then the directory is fsynced so the rename itself survives. Each chunk is
 * written before the next is asked for, so chunks produced lazily leave the event loop free in between; `stop`
 * is asked before each. A crash at any point leaves either the old base or the new one, both whole; the caller
 * removes the tails below `next` afterwards. Returns the snapshot's size in bytes.
 */
export async function writeSnapshot(
  dir: string,
  snapshot: { next: number; chunks: Iterable<string>; stop?: () => boolean },
): Promise<number> {
  const temp = join(dir, COMPACT_FILE);
  const file = await open(temp, "w");
  let bytes = 0;
  let done = false;
  try {
    const write = async (text: string) => {
      const data = Buffer.from(text);
      await writeAll(file, data);
      bytes += data.length;
    };
    await write(baseHeader(snapshot.next));
    for (const chunk of snapshot.chunks) {
      if (snapshot.stop?.()) throw new SnapshotStoppedError();
      if (chunk.length > 0) await write(chunk);
    }
    await file.datasync();
    done = true;
  } finally {
    await file.close();
    if (!done) await rm(temp, { force: true });
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
export async function writeAll(file: FileHandle, data: Buffer): Promise<void> {
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
