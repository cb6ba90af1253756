import { randomFillSync } from "node:crypto";
import { BASE58_CODES } from "../domain/base58.js";

/**
 * Request ids: `req_`, 9 base58 digits of the unix millisecond, 13 random base58 digits (76 bits). The same shape as
 * newId's ids (22 digits, sorted by time to the millisecond) but made for a per-request budget: the time digits are
 * written once per millisecond and each random digit comes from one random byte, where newId encodes 16 bytes as
 * one 128-bit number (CPU profile at 37k REST verifications a second: 0.6 µs of each request went to its id).
 */
const PREFIX = "req_";
const TIME_DIGITS = 9; // 58^9 > 2^48: any millisecond before the year 10889
const RANDOM_DIGITS = 13;
/** Bytes below this (4 × 58) map evenly onto the 58 digits; the rest are skipped, so every digit is equally likely. */
const EVEN_BELOW = 232;

// The id's text, reused: written as ASCII codes and read out as one string. Randomness is drawn in blocks to keep
// the syscall off the per-request path.
const text = Buffer.from(PREFIX + "1".repeat(TIME_DIGITS + RANDOM_DIGITS), "latin1");
const pool = Buffer.alloc(4096);
let offset = pool.length;
let writtenTime = -1;

/** A fresh `req_...` id for one request; echoed in the body and the `x-request-id` header. */
export const newRequestId = (): string => requestIdAt(Date.now());

/** newRequestId at the unix millisecond `now`. */
export function requestIdAt(now: number): string {
  if (now !== writtenTime) writeTime(now);
  for (let at = PREFIX.length + TIME_DIGITS; at < text.length; ) {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const byte = pool[offset++];
    if (byte < EVEN_BELOW) text[at++] = BASE58_CODES[byte % 58];
  }
  return text.toString("latin1");
}

function writeTime(now: number): void {
  writtenTime = now;
  let rest = Math.max(0, Math.floor(now));
  for (let at = PREFIX.length + TIME_DIGITS - 1; at >= PREFIX.length; at--) {
    const digit = rest % 58;
    text[at] = BASE58_CODES[digit];
    rest = (rest - digit) / 58;
  }
}

export const REQUEST_ID_HEADER = "x-request-id";
