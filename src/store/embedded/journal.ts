import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { atTurnEnd } from "../../turn-end.js";
import { createCollection, type Collection, type CollectionSpec, type Doc, type ScanOptions } from "./collection.js";
import { applyOps, assertUniqueIndexes, planCommit, type Mutation } from "./commit-plan.js";
import { cloneJson } from "./json-clone.js";
import { JOURNAL_FILE, removeStaleSnapshot, repairJournal, replayJournal, syncDir, writeAll, writeAllSync, writeSnapshot } from "./journal-file.js";
import { acquireDirLock } from "./lock-file.js";

export type { CollectionSpec, Doc, IndexKey, ScanOptions } from "./collection.js";
export type { Mutation } from "./commit-plan.js";

export interface JournalOptions {
  /** Data directory, created if missing. One process at a time (LOCK file). */
  dir: string;
  /** Collections by name with their indexes. Collections found on disk but not declared are kept, read-only. */
  collections: Record<string, CollectionSpec>;
  /** Compact at open when the journal holds more than `ratio` × live documents ops and at least `minOps`. */
  compaction?: { ratio?: number; minOps?: number };
  /**
   * When a commit resolves. "always" (default): after fdatasync, so even a power loss keeps it. `{ intervalMs }`:
   * once written to the OS, which keeps it through a crash or kill of this process, with fdatasync at most
   * `intervalMs` later — a power loss may lose that last interval (Redis' `appendfsync everysec` trade-off).
   */
  sync?: "always" | { intervalMs: number };
}

export interface JournalStats {
  /** Size of the journal file now. */
  bytes: number;
  /** What opening found: ops replayed, a torn tail dropped (bytes), whether it compacted. */
  opened: { ops: number; truncatedBytes: number; compacted: boolean };
}

/** A durable in-memory document database. Reads are synchronous and return copies. */
export interface Journal {
  get<T extends Doc>(collection: string, id: string): T | undefined;
  findUnique<T extends Doc>(collection: string, index: string, value: string): T | undefined;
  /** Documents in ascending id order (creation order), optionally one value of an index, filtered, paginated. */
  scan<T extends Doc>(collection: string, options?: ScanOptions<T>): T[];
  count(collection: string): number;
  /**
   * Applies all mutations or none. Validation (unique keys, inserts) happens and memory changes synchronously in
   * this call, so a read-then-commit in one synchronous stretch is atomic; the promise resolves once the change
   * is durable as `sync` says. Commits of the same moment share one write and one fdatasync (group commit).
   */
  commit(mutations: readonly Mutation[]): Promise<void>;
  /** Throws when the journal is closed or broken by a failed write. */
  assertUsable(): void;
  stats(): JournalStats;
  /** Waits for pending commits, closes the file and releases the lock. */
  close(): Promise<void>;
}

interface Pending {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

/** Opens (or creates) the journal in `options.dir`: lock, replay, drop a torn tail, maybe compact. */
export async function openJournal(options: JournalOptions): Promise<Journal> {
  const dir = resolve(options.dir);
  if (await mkdir(dir, { recursive: true })) await syncDir(dirname(dir));
  const lock = await acquireDirLock(dir);
  let file: FileHandle;
  const collections = new Map<string, Collection>();
  const opened = { ops: 0, truncatedBytes: 0, compacted: false };
  let bytes: number;
  try {
    for (const [name, spec] of Object.entries(options.collections)) collections.set(name, createCollection(name, spec));
    await removeStaleSnapshot(dir);
    const replay = await replayJournal(join(dir, JOURNAL_FILE), (ops) => applyOps(collections, ops, createCollection));
    collections.forEach(assertUniqueIndexes);
    await repairJournal(dir, replay);
    opened.ops = replay.ops;
    opened.truncatedBytes = replay.fileBytes - replay.validBytes;
    let live = 0;
    collections.forEach((c) => (live += c.size));
    const { ratio = 2, minOps = 10_000 } = options.compaction ?? {};
    if (replay.ops >= minOps && replay.ops > ratio * live) {
      await writeSnapshot(dir, collections.values());
      opened.compacted = true;
    }
    file = await open(join(dir, JOURNAL_FILE), "a");
    bytes = (await file.stat()).size;
  } catch (error) {
    await lock.release();
    throw error;
  }
  const declared = new Map([...collections].filter(([name]) => name in options.collections));

  let queue: Pending[] = [];
  let flushing = false;
  let scheduled = false;
  let closed = false;
  let broken: Error | undefined;
  let idle: (() => void) | undefined;
  const sync = options.sync ?? "always";
  let syncTimer: NodeJS.Timeout | undefined;
  let syncing: Promise<void> | undefined;

  function fail(error: unknown): Error {
    // Memory is now ahead of the disk and the file may end in a partial batch: refuse everything until a
    // restart replays what is really on disk (and drops the torn tail).
    broken ??= new Error("embedded store write failed; restart to recover", { cause: error });
    return broken;
  }

  /** Background fdatasync for `sync: { intervalMs }`: at most one pending, started at most intervalMs after a write. */
  function scheduleSync(intervalMs: number): void {
    if (syncTimer || closed) return;
    syncTimer = setTimeout(() => {
      syncTimer = undefined;
      syncing = file.datasync().catch((error) => void fail(error)).finally(() => (syncing = undefined));
    }, intervalMs);
    syncTimer.unref();
  }

  function schedule(): void {
    if (flushing || scheduled || queue.length === 0) return;
    scheduled = true;
    // At the turn's end, not in a microtask: commits started by every I/O callback of this turn join the batch,
    // and responses waiting on it still leave in this turn.
    atTurnEnd("store", () => void flush());
  }

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    const batch = queue;
    queue = [];
    try {
      const data = Buffer.from(batch.length === 1 ? batch[0].line : batch.map((p) => p.line).join(""));
      if (sync === "always") {
        await writeAll(file, data);
        await file.datasync();
      } else {
        // Without fdatasync to wait for, the append only reaches the page cache: a synchronous write costs a few
        // microseconds, where the thread-pool round trip of an async one would hold every batch's callers longer.
        writeAllSync(file.fd, data);
        scheduleSync(sync.intervalMs);
      }
      bytes += data.length;
      for (const p of batch) p.resolve();
    } catch (error) {
      const failure = fail(error);
      for (const p of [...batch, ...queue]) p.reject(failure);
      queue = [];
    } finally {
      flushing = false;
      if (queue.length) schedule();
      else idle?.();
    }
  }

  function usable(): void {
    if (broken) throw broken;
    if (closed) throw new Error("embedded store is closed");
  }

  function collection(name: string): Collection {
    const c = collections.get(name);
    if (!c) throw new Error(`unknown collection ${JSON.stringify(name)}`);
    return c;
  }

  return {
    get<T extends Doc>(name: string, id: string) {
      usable();
      return cloneJson(collection(name).get(id)) as T | undefined;
    },
    findUnique<T extends Doc>(name: string, index: string, value: string) {
      usable();
      const c = collection(name);
      const id = c.owner(index, value);
      return id === undefined ? undefined : (cloneJson(c.get(id)) as T);
    },
    scan<T extends Doc>(name: string, scan: ScanOptions<T> = {}) {
      usable();
      return collection(name).scan(scan).map(cloneJson);
    },
    count(name) {
      usable();
      return collection(name).size;
    },
    commit(mutations) {
      try {
        usable();
        const ops = planCommit(declared, mutations);
        if (ops.length === 0) return Promise.resolve();
        const line = `${JSON.stringify({ ops })}\n`;
        applyOps(collections, ops);
        return new Promise<void>((resolve, reject) => {
          queue.push({ line, resolve, reject });
          schedule();
        });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    assertUsable: usable,
    stats: () => ({ bytes, opened }),
    async close() {
      if (closed) return;
      closed = true;
      if (flushing || scheduled) await new Promise<void>((resolve) => (idle = resolve));
      clearTimeout(syncTimer);
      await syncing;
      if (sync !== "always" && !broken) await file.datasync();
      await file.close();
      await lock.release();
    },
  };
}
