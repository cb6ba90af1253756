import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lastUseOf, mergeLastUse, type LastUse, type UseOf } from "../last-use.js";
import type { VerificationEvent } from "../ports/events.js";
import { appendLines, endsCleanly, readLines } from "./event-segments.js";

/** Beside the segments, named unlike them (not `.jsonl`), so segment listing and retention never touch it. */
export const LAST_USE_FILE = "last-used.ndjson";
/** Lines beyond twice the live entries (and at least this many) make the next persist rewrite the file. */
const MIN_COMPACT_LINES = 10_000;

export interface LastUseFile {
  /** Takes the batch just written to the segments into the in-memory view. */
  note(batch: VerificationEvent[]): void;
  read(workspaceId: string, keyIds: readonly string[]): Map<string, number>;
  /** Appends what changed since the last persist; on failure it is kept and tried again next time. */
  persist(): Promise<void>;
  /** Entries held and lines in the file, for tests. */
  stats(): { keys: number; lines: number };
}

const line = (keyId: string, use: LastUse) => `${JSON.stringify({ k: keyId, w: use.workspaceId, t: use.time })}\n`;

function decode(text: string): UseOf | undefined {
  try {
    const { k, w, t } = JSON.parse(text) as { k?: unknown; w?: unknown; t?: unknown };
    if (typeof k !== "string" || typeof w !== "string" || typeof t !== "number") return undefined;
    return { keyId: k, workspaceId: w, time: t };
  } catch {
    return undefined; // a line torn by a crash: the entry before it, or the segments' next flush, stands
  }
}

/**
 * The embedded store's per-key last verification time: a map in memory, persisted as JSON lines appended by the
 * same batch writer that appends the event segments, right after them (the flush's `afterFlush`), so it costs no
 * I/O per verification. Replayed at start-up (later lines win; a torn last line is skipped). Unlike segments it is
 * not subject to event retention: a key unused for longer than the retention still shows when it was last used.
 * The file is rewritten (temp file + rename, atomic) when it holds more than twice the live entries.
 */
export async function openLastUseFile(eventsDir: string): Promise<LastUseFile> {
  const path = join(eventsDir, LAST_USE_FILE);
  const entries = new Map<string, LastUse>();
  let lines = 0;
  await readLines(path, (text) => {
    lines += 1;
    const use = decode(text);
    if (use) mergeLastUse(entries, [use]);
  });
  let clean = await endsCleanly(path);
  let dirty = new Set<string>();

  async function compact(): Promise<void> {
    const temp = `${path}.tmp`;
    await writeFile(temp, [...entries].map(([keyId, use]) => line(keyId, use)).join(""), "utf8");
    await rename(temp, path);
    lines = entries.size;
    clean = true;
  }

  return {
    note(batch) {
      for (const keyId of mergeLastUse(entries, batch)) dirty.add(keyId);
    },
    read: (workspaceId, keyIds) => lastUseOf(entries, workspaceId, keyIds),
    async persist() {
      if (dirty.size === 0) return;
      const writing = dirty;
      dirty = new Set();
      try {
        if (lines + writing.size > Math.max(MIN_COMPACT_LINES, 2 * entries.size)) {
          await compact();
        } else {
          // A torn last line (crash mid-append) is ended first so the next entry starts on a line of its own.
          // Appended synchronously, as the segments are: under load this runs after every drain, and a few
          // microseconds of page-cache write cost less than a thread-pool open, write and close.
          const text = (clean ? "" : "\n") + [...writing].map((keyId) => line(keyId, entries.get(keyId)!)).join("");
          appendLines(path, text);
          lines += writing.size;
          clean = true;
        }
      } catch (error) {
        for (const keyId of writing) dirty.add(keyId);
        clean = false;
        throw error;
      }
    },
    stats: () => ({ keys: entries.size, lines }),
  };
}
