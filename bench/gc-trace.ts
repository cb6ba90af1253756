/**
 * GC cost of a server under load, from V8's `--trace-gc-nvp` lines in its log. Every server the bench starts runs
 * with that flag; the bench notes the log's size before and after a measurement and sums the GC records written in
 * between: `pause=` (ms the main thread stood still; summed, and the longest kept) and ` promoted=` (bytes moved from
 * the young to the old generation, what a verification leaves behind for the expensive collector).
 *
 * V8 writes each record in two writes, a `[pid:isolate]  N ms: ` prefix and then the body from `pause=` on, so a line
 * of the application's own log can land between them; a record is therefore read from its body alone. Records of
 * every isolate (worker threads too) count: their GC is the process's cost as well.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";

export interface GcTotals {
  /** GC records (scavenges, mark-compacts, ...). */
  count: number;
  /** Sum of `pause=`, in ms. */
  pauseMs: number;
  /** The longest single `pause=`, in ms: a mark-compact that stops every request at once shows here, not in the sum. */
  maxPauseMs: number;
  /** Sum of `promoted=`, in bytes. */
  promotedBytes: number;
}

// ` promoted=` with its space: `nodes_promoted=` is another field.
const record = /pause=([\d.]+) mutator=[\d.]+ gc=\w+ [^\n]*? promoted=(\d+) /g;

/** Sums the GC records in `text`, which may hold other lines too and may begin or end in the middle of a line. */
export function summariseGcTrace(text: string): GcTotals {
  const totals: GcTotals = { count: 0, pauseMs: 0, maxPauseMs: 0, promotedBytes: 0 };
  for (const match of text.matchAll(record)) {
    const pause = Number(match[1]);
    totals.count++;
    totals.pauseMs += pause;
    totals.maxPauseMs = Math.max(totals.maxPauseMs, pause);
    totals.promotedBytes += Number(match[2]);
  }
  return totals;
}

/** The size of the log at `path` now: the offset a later `gcBetween` starts from. */
export function logOffset(path: string): number {
  return statSync(path).size;
}

/** Sums the GC records written to the log at `path` between two offsets. */
export function gcBetween(path: string, from: number, to: number): GcTotals {
  const totals: GcTotals = { count: 0, pauseMs: 0, maxPauseMs: 0, promotedBytes: 0 };
  const fd = openSync(path, "r");
  try {
    // In chunks cut at line ends: a REST run logs tens of MB, and a record never spans a newline.
    const chunk = Buffer.alloc(4 << 20);
    let carry = "";
    for (let at = from; at < to; ) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.length, to - at), at);
      if (read === 0) break;
      at += read;
      const text = carry + chunk.toString("latin1", 0, read);
      const end = at < to ? text.lastIndexOf("\n") + 1 : text.length;
      const part = summariseGcTrace(text.slice(0, end));
      carry = text.slice(end);
      totals.count += part.count;
      totals.pauseMs += part.pauseMs;
      totals.maxPauseMs = Math.max(totals.maxPauseMs, part.maxPauseMs);
      totals.promotedBytes += part.promotedBytes;
    }
  } finally {
    closeSync(fd);
  }
  return totals;
}
