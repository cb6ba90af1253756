import { mkdir, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { atTurnEnd } from "../../turn-end.js";
import type { Collection, CollectionSpec, Doc, ScanOptions } from "./collection.js";
import { applyOps, planCommit, type Mutation } from "./commit-plan.js";
import { freezeCollections, type FrozenView } from "./frozen-view.js";
import { cloneJson } from "./json-clone.js";
import { createTail, removeTailsBelow, SnapshotStoppedError, syncDir, tailFile, writeAll, writeAllSync, writeSnapshot } from "./journal-file.js";
import { createCommitBatch } from "./journal-batch.js";
import { loadJournal, type LoadedJournal } from "./journal-load.js";
import { acquireDirLock } from "./lock-file.js";

export type { CollectionSpec, Doc, IndexKey, ScanOptions } from "./collection.js";
export type { Mutation } from "./commit-plan.js";

/** Defaults of JournalOptions.compaction. */
export const COMPACTION_DEFAULTS = { ratio: 2, minOps: 10_000, minBytes: 8 << 20 } as const;

export interface JournalOptions {
  /** Data directory, created if missing. One process at a time (LOCK file). */
  dir: string;
  /** Collections by name with their indexes. Collections found on disk but not declared are kept, read-only. */
  collections: Record<string, CollectionSpec>;
  /**
   * When to rewrite the journal as a snapshot of the live documents. At open: when it holds more than `ratio` ×
   * live documents ops and at least `minOps`. While running: once its files pass max(`minBytes`, `ratio` × the size
   * of the last snapshot); the snapshot is then written in the background while commits go on into a new tail.
   * Defaults: COMPACTION_DEFAULTS.
   */
  compaction?: { ratio?: number; minOps?: number; minBytes?: number };
  /**
   * When a commit resolves. "always" (default): after fdatasync, so even a power loss keeps it. `{ intervalMs }`:
   * once written to the OS, which keeps it through a crash or kill of this process, with fdatasync at most
   * `intervalMs` later — a power loss may lose that last interval (Redis' `appendfsync everysec` trade-off).
   */
  sync?: "always" | { intervalMs: number };
}

export interface JournalStats {
  /** Size of the journal's files now (base and tails; not a snapshot being written). */
  bytes: number;
  /** What opening found: ops replayed, a torn tail dropped (bytes), whether it compacted. */
  opened: { ops: number; truncatedBytes: number; compacted: boolean };
  /** Compactions finished while running, since open. */
  compactions: number;
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
  /** Waits for pending commits (and stops a compaction), closes the files and releases the lock. */
  close(): Promise<void>;
}

/** The file commits are appended to, and the bytes it holds. */
type Target = LoadedJournal["target"];

/**
 * Opens (or creates) the journal in `options.dir`: lock, replay, drop a torn tail, maybe compact.
 *
 * Compaction while running: past half the threshold a new tail is created (in the background); once the files
 * pass the threshold, at the next boundary between two group-commit batches, commits switch to it: the cut.
 * Everything before the cut
 * is in the older files, everything after it in the new tail. The snapshot of the state at the cut is then
 * written in the background, a chunk at a time, from a frozen view that keeps the cut's version of whatever
 * commits change meanwhile, renamed over the base (naming the new tail as the next file), and the older tails are
 * removed. No commit ever waits for any of it; a crash at any step leaves files that replay to every commit.
 */
export async function openJournal(options: JournalOptions): Promise<Journal> {
  const dir = resolve(options.dir);
  if (await mkdir(dir, { recursive: true })) await syncDir(dirname(dir));
  const lock = await acquireDirLock(dir);
  const { ratio, minOps, minBytes } = { ...COMPACTION_DEFAULTS, ...options.compaction };
  let loaded: LoadedJournal;
  try {
    loaded = await loadJournal(dir, options.collections, { ratio, minOps });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const { collections, opened } = loaded;
  let { target, settled, live } = loaded;
  const declared = new Map([...collections].filter(([name]) => name in options.collections));

  const queue = createCommitBatch();
  let flushing = false;
  let scheduled = false;
  let closed = false;
  let broken: Error | undefined;
  let idle: (() => void) | undefined;
  const sync = options.sync ?? "always";
  let syncTimer: NodeJS.Timeout | undefined;
  let syncing: Promise<void> | undefined;

  let compaction: Promise<void> | undefined;
  let compactions = 0;
  /** After a failed compaction, the next waits until the files grew by another threshold. */
  let retryAbove = 0;
  /** A new tail, created ahead and waiting for the cut. */
  let prepared: Target | undefined;
  /** The files passed the threshold: cut as soon as the new tail is ready. */
  let cutDue = false;
  let onCut: ((retired: Target | undefined) => void) | undefined;
  /** The state at the cut, while its snapshot is being written. */
  let frozen: FrozenView | undefined;

  const bytes = () => settled + target.bytes;
  const threshold = () => Math.max(minBytes, ratio * live);
  const overThreshold = () => bytes() > Math.max(threshold(), retryAbove);

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
      syncing = target.handle.datasync().catch((error) => void fail(error)).finally(() => (syncing = undefined));
    }, intervalMs);
    syncTimer.unref();
  }

  function schedule(): void {
    if (flushing || scheduled || queue.empty) return;
    scheduled = true;
    // At the turn's end, not in a microtask: commits started by every I/O callback of this turn join the batch,
    // and responses waiting on it still leave in this turn.
    atTurnEnd("store", () => void flush());
  }

  /**
   * Moves commits to the prepared tail. Synchronous, and only where memory holds exactly what was handed to the
   * files (between batches, or as a batch is taken): the frozen view starts from that state.
   */
  function cut(): Target {
    const retired = target;
    target = prepared!;
    prepared = undefined;
    cutDue = false;
    frozen = freezeCollections(collections);
    return retired;
  }

  function finishCut(retired: Target): void {
    settled += retired.bytes;
    const resolve = onCut;
    onCut = undefined;
    resolve?.(retired);
  }

  /** Cuts at once when no batch is taken or waiting; otherwise the next flush cuts as it takes its batch. */
  function cutWhenIdle(): void {
    if (prepared && cutDue && !flushing && !scheduled) finishCut(cut());
  }

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    const { data, outcome } = queue.take();
    const into = target;
    // This batch is the last of the retiring file: it was applied to memory before the cut, later commits after.
    const retired = prepared && cutDue ? cut() : undefined;
    try {
      if (sync === "always") {
        await writeAll(into.handle, data);
        await into.handle.datasync();
      } else {
        // Without fdatasync to wait for, the append only reaches the page cache: a synchronous write costs a few
        // microseconds, where the thread-pool round trip of an async one would hold every batch's callers longer.
        writeAllSync(into.handle.fd, data);
        scheduleSync(sync.intervalMs);
      }
      into.bytes += data.length;
      outcome.resolve();
    } catch (error) {
      const failure = fail(error);
      outcome.reject(failure);
      // Commits that joined the next batch meanwhile fail with it: the file may end in a partial batch.
      if (!queue.empty) queue.take().outcome.reject(failure);
    } finally {
      queue.release();
      flushing = false;
      if (retired) finishCut(retired);
      if (!queue.empty) schedule();
      else {
        cutWhenIdle();
        idle?.();
      }
      maybeCompact();
    }
  }

  /**
   * Past half the threshold a compaction starts by creating the new tail (two fsyncs), so that when the threshold
   * is passed only the cut and the snapshot remain: the files grow for a shorter while beyond it.
   */
  function maybeCompact(): void {
    if (closed || broken) return;
    if (compaction) {
      if (!cutDue && overThreshold()) {
        cutDue = true;
        cutWhenIdle();
      }
      return;
    }
    if (bytes() <= Math.max(threshold() / 2, retryAbove)) return;
    compaction = compact()
      .catch((error) => {
        if (error instanceof SnapshotStoppedError || closed || broken) return;
        retryAbove = bytes() + threshold();
        // Nothing is lost, the journal only stays longer until the next attempt; an operator should still know.
        console.error(`embedded store: journal compaction in ${dir} failed, retrying after more writes:`, error);
      })
      .finally(() => {
        compaction = undefined;
        cutDue = false;
      });
  }

  async function compact(): Promise<void> {
    const number = target.number + 1;
    const tail = await createTail(dir, number);
    prepared = { number, ...tail };
    const retired = await new Promise<Target | undefined>((resolve) => {
      onCut = resolve;
      if (closed || broken) resolve(undefined);
      else {
        cutDue ||= overThreshold();
        cutWhenIdle();
      }
    });
    if (!retired) {
      // Closing before the cut: the new tail never received a commit.
      prepared = undefined;
      await tail.handle.close();
      await rm(join(dir, tailFile(number)), { force: true });
      return;
    }
    // Meanwhile the retired file gets the fdatasync its last batches (only in the OS so far) were promised.
    const retiring = retire(retired);
    let written: number;
    try {
      written = await writeSnapshot(dir, { next: number, chunks: frozen!.chunks(), stop: () => closed || broken !== undefined });
    } finally {
      frozen = undefined;
      await retiring;
    }
    // From here the base holds everything before the cut: the older tails (and their bytes) are gone for good.
    settled = written;
    live = written;
    retryAbove = 0;
    compactions += 1;
    await removeTailsBelow(dir, number);
  }

  async function retire(file: Target): Promise<void> {
    try {
      await syncing; // a background fdatasync may still be running on it
      if (sync !== "always") await file.handle.datasync();
    } catch (error) {
      fail(error); // as when the interval's own fdatasync fails: acknowledged commits may not be durable
    } finally {
      await file.handle.close();
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
        frozen?.preserve(ops);
        applyOps(collections, ops);
        // The batch serialises each changed document once, as the batch leaves it (journal-batch.ts).
        let written!: Promise<void>;
        for (const op of ops) written = "put" in op ? queue.add(collection(op.put), op.doc.id) : queue.add(collection(op.del), op.id);
        schedule();
        return written;
      } catch (error) {
        return Promise.reject(error);
      }
    },
    assertUsable: usable,
    stats: () => ({ bytes: bytes(), opened, compactions }),
    async close() {
      if (closed) return;
      closed = true;
      if (flushing || scheduled) await new Promise<void>((resolve) => (idle = resolve));
      // A compaction waiting for its cut gives up; one writing its snapshot stops before its next chunk.
      onCut?.(undefined);
      await compaction;
      clearTimeout(syncTimer);
      await syncing;
      if (sync !== "always" && !broken) await target.handle.datasync();
      await target.handle.close();
      await lock.release();
    },
  };
}
