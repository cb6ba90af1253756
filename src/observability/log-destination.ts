import { writeSync } from "node:fs";
// Node's timers (Deno's globals return numbers, without unref).
import { clearTimeout, setTimeout } from "node:timers";
import { pino, type DestinationStream } from "pino";

/** Where log lines go, batched per event-loop turn: `flushSync` for exit paths, `close` for a normal stop. */
export interface BatchedDestination extends DestinationStream {
  /**
   * The pending bytes with room for `maxBytes` more after `pending()`: a writer of lines in bytes (request-line.ts)
   * writes there, then calls `wrote` with the new end. The buffer is only valid until `wrote`.
   */
  room(maxBytes: number): Buffer;
  /** Bytes pending, where the next line starts. */
  pending(): number;
  /** The line written into `room`'s buffer ends at `end`. */
  wrote(end: number): void;
  /** Writes what is pending now, synchronously; best effort for `process.exit` paths (see `close`). */
  flushSync(): void;
  /** Writes everything pending, in order, after the write in flight; resolves once written (or after `timeoutMs`). */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** Hand the pending lines on once they are this many bytes... */
const HAND_AT_BYTES = 32 * 1024;
/** ...or this long after the first of them was logged, whichever comes first. */
const HAND_AFTER_MS = 20;
/** The pending lines' buffer: room for a batch and the line that passes HAND_AT_BYTES. */
const BUFFER_BYTES = 64 * 1024;

/**
 * Log lines gathered in memory and handed to sonic-boom (pino's asynchronous file writer) as one buffer, once they
 * reach 32 KB or 20 ms after the first, so a busy server issues one `write` per ~150 request lines and an idle one
 * shows each line within 20 ms. Measured on REST verification (one line per request): sonic-boom on its own issued a
 * `write` for every line or few (each a thread-pool job and a wake-up of the event loop) and, while one was in
 * flight, appended every new line to its pending string and re-measured it (~4.6 KB allocated per line).
 * Lines are kept as UTF-8 bytes, not strings: the request log writes its lines straight into them (request-line.ts),
 * which makes no string per line at all, and pino's own lines are encoded into them as they come.
 */
export function createBatchedDestination(options: { fd: number }): BatchedDestination {
  const out = pino.destination({ dest: options.fd, sync: false, contentMode: "buffer" });
  let bytes = Buffer.allocUnsafe(BUFFER_BYTES);
  let length = 0;
  let timer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;

  // Bytes handed to sonic-boom that it has not reported written yet.
  let inFlight = 0;
  out.on("write", (written: number) => void (inFlight -= written));

  const hand = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (length === 0) return;
    // sonic-boom keeps the handed bytes until they are written: the next lines go to a buffer of their own.
    const batch = bytes.subarray(0, length);
    bytes = Buffer.allocUnsafe(BUFFER_BYTES);
    length = 0;
    if (closing !== undefined) return writeAfterClose(options.fd, batch);
    inFlight += batch.length;
    out.write(batch as never); // in contentMode "buffer" sonic-boom takes bytes; its types know only strings
  };

  const room = (maxBytes: number): Buffer => {
    if (length + maxBytes > bytes.length) {
      hand();
      if (maxBytes > bytes.length) bytes = Buffer.allocUnsafe(maxBytes); // one huge line: a buffer its size
    }
    return bytes;
  };

  const wrote = (end: number): void => {
    length = end;
    if (length >= HAND_AT_BYTES) hand();
    // Unref'd: pending lines never keep the process alive; every way out writes them (main.ts).
    else if (timer === undefined) timer = setTimeout(hand, HAND_AFTER_MS).unref();
  };

  return {
    room,
    pending: () => length,
    wrote,
    write(line: string): void {
      // A UTF-16 code unit takes at most 3 bytes in UTF-8.
      const target = room(3 * line.length);
      wrote(length + target.write(line, length, "utf8"));
    },
    flushSync(): void {
      // With no write of sonic-boom's in flight, the pending lines are written here and now; behind one, they are
      // queued after it (sonic-boom keeps the order) and flushSync writes the queue, not the write in flight.
      if (inFlight === 0 && length > 0 && closing === undefined) {
        clearTimeout(timer);
        timer = undefined;
        let at = 0;
        try {
          while (at < length) at += writeSync(options.fd, bytes, at, length - at);
          length = 0;
          return;
        } catch {
          // Not writable now: what is left goes the usual way.
          bytes.copyWithin(0, at, length);
          length -= at;
        }
      }
      hand();
      try {
        out.flushSync();
      } catch {
        // Not open yet or already closed: nothing buffered to lose.
      }
    },
    close({ timeoutMs = 2_000 } = {}): Promise<void> {
      hand();
      // sonic-boom's end() waits for the write in flight, writes the rest, then closes the descriptor.
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        out.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
        out.once("error", () => {
          clearTimeout(timer);
          resolve();
        });
        out.end();
      });
      return closing;
    },
  };
}

/** A line logged after `close` (nothing should, but a late failure may): written at once, or dropped if it cannot be. */
function writeAfterClose(fd: number, bytes: Uint8Array): void {
  try {
    writeSync(fd, bytes);
  } catch {
    // The descriptor is closed: the process is on its way out.
  }
}
