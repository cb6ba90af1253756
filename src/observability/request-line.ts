import type { BatchedDestination } from "./log-destination.js";

/**
 * Writes one request line (`requestId`, then `fields`, then the duration) into the log's pending bytes; false, having
 * written nothing, when the id needs JSON escaping or the duration is not a whole number of microseconds (the caller
 * then logs the line through pino).
 */
export type RequestLineWriter = (requestId: string, fields: Uint8Array, durationMicros: number) => boolean;

const QUOTE = 0x22;

/**
 * The request log's info line written as UTF-8 bytes straight into the batched destination, byte for byte what pino
 * writes for `{ requestId, ...fields, durationMs }` with message "request":
 * `{"level":30,"time":…,"pid":…,"requestId":"…",<fields>…,"msg":"request"}`. `fields` is the JSON from the comma
 * after the id to `"durationMs":`, made once per route and status by the caller. A line built as a string is a tree
 * of a dozen strings kept until its batch is joined; this makes none (measured with the observer around it:
 * ~0.48 → ~0.39 µs a line, and ~600 bytes less garbage per request).
 */
export function createRequestLineWriter(output: BatchedDestination, pid: number): RequestLineWriter {
  const end = Buffer.from(`,"msg":"request"}\n`, "latin1");
  // Lines of one millisecond share their head: a busy server writes several per millisecond.
  let time = -1;
  let head = Buffer.alloc(0);
  return (requestId, fields, durationMicros) => {
    if (!Number.isSafeInteger(durationMicros) || durationMicros < 0) return false;
    const now = Date.now();
    if (now !== time) {
      time = now;
      head = Buffer.from(`{"level":30,"time":${now},"pid":${pid},"requestId":"`, "latin1");
    }
    const bytes = output.room(head.length + requestId.length + 1 + fields.length + 24 + end.length);
    let at = output.pending();
    bytes.set(head, at);
    at += head.length;
    // Bytes past `pending()` count only once `wrote` says so: an id that needs escaping leaves nothing behind.
    for (let i = 0; i < requestId.length; i++) {
      const c = requestId.charCodeAt(i);
      // Printable ASCII other than a quote or a backslash: what JSON.stringify leaves as it is.
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === 0x5c) return false;
      bytes[at++] = c;
    }
    bytes[at++] = QUOTE;
    bytes.set(fields, at);
    at += fields.length;
    at = writeMillis(bytes, at, durationMicros);
    bytes.set(end, at);
    output.wrote(at + end.length);
    return true;
  };
}

/**
 * `micros / 1000` as JavaScript writes that number (`0.912`, `1.5`, `12`): the whole milliseconds, then up to three
 * decimals without trailing zeros. Exact for any duration a request can take (the division's result is the double
 * nearest that decimal, and no shorter decimal is nearer below ~9e12 ms).
 */
export function writeMillis(bytes: Uint8Array, at: number, micros: number): number {
  const ms = Math.floor(micros / 1000);
  let fraction = micros - ms * 1000;
  let digits = 1;
  for (let rest = ms; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = at + digits - 1, rest = ms; i >= at; i--, rest = Math.floor(rest / 10)) bytes[i] = 0x30 + (rest % 10);
  at += digits;
  if (fraction === 0) return at;
  bytes[at++] = 0x2e; // "."
  for (let unit = 100; fraction > 0; unit /= 10) {
    const digit = Math.floor(fraction / unit);
    bytes[at++] = 0x30 + digit;
    fraction -= digit * unit;
  }
  return at;
}
