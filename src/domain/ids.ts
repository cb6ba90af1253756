import { BASE58_CODES } from "./base58.js";

export type IdPrefix =
  | "key" | "api" | "ws" | "perm" | "role" | "id" | "rl" | "rlns" | "rlor" | "req" | "log" | "sess" | "mig" | "wh" | "msg";

/** Source of randomness; injected so ids are reproducible in tests. */
export type RandomBytes = (size: number) => Uint8Array;

const ID_WIDTH = 22; // ceil(128 / log2(58)): 6 bytes of time + 10 random bytes

/**
 * Returns `<prefix>_<base58>`: 48 bits of unix milliseconds then 80 random bits, fixed width, so ids sort by
 * creation time (to the millisecond) and lists can page by id.
 */
export function newId(prefix: IdPrefix, now: number, randomBytes: RandomBytes): string {
  return encodeId(prefix, now, randomBytes(10));
}

/**
 * Ids like `newId`'s that also sort in creation order within one millisecond (and if the clock steps back): a call
 * in the same or an earlier millisecond than the last one reuses its time and adds 1 to its random part, as
 * monotonic ULIDs do. For records listed by id whose order matters, such as audit records; one generator per process.
 */
export function monotonicIds(prefix: IdPrefix, randomBytes: RandomBytes): (now: number) => string {
  let lastTime = -1;
  let tail = new Uint8Array(10);
  return (now) => {
    const time = Math.max(0, Math.floor(now));
    if (time > lastTime) {
      lastTime = time;
      tail = Uint8Array.from(randomBytes(10));
    } else if (!increment(tail)) {
      // 2^80 ids in one millisecond: move on to the next one.
      lastTime += 1;
      tail = Uint8Array.from(randomBytes(10));
    }
    return encodeId(prefix, lastTime, tail);
  };
}

/** Adds 1 to a big-endian number in place; false when it wrapped around to zero. */
function increment(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    bytes[i] = (bytes[i] + 1) & 0xff;
    if (bytes[i] !== 0) return true;
  }
  return false;
}

// One id's bytes and its text, reused: an id is encoded synchronously, start to end, and a request id is made on
// every request. The text is written as ASCII codes and read out as one string: no string is built piece by piece.
const bytes = new Uint8Array(16);
const text = Buffer.alloc(8 + ID_WIDTH);
const words = new Float64Array(4);
/** Three base58 digits: a remainder below it times 2^32 plus a 32-bit word stays below 2^53, exact in a double. */
const TRIPLE = 58 ** 3;

function encodeId(prefix: IdPrefix, now: number, tail: Uint8Array): string {
  let time = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(tail, 6);
  let at = 0;
  for (; at < prefix.length; at++) text[at] = prefix.charCodeAt(at);
  text[at++] = 0x5f; // "_"
  writeBase58(at);
  return text.toString("latin1", 0, at + ID_WIDTH);
}

/**
 * `bytes` in base58, ID_WIDTH digits left-padded with "1" (zero), into `text` from `at`: encodeBase58(bytes, ID_WIDTH)
 * for 16 bytes, whose value always fits in ID_WIDTH digits (test/domain/ids.test.ts compares the two).
 */
function writeBase58(at: number): void {
  // The value as four 32-bit words, most significant first, divided by 58^3 once per three digits: a handful of
  // divisions in all (one floating-point modulo per digit cost more than the rest of the id).
  for (let i = 0; i < 4; i++) words[i] = bytes[4 * i] * 0x1000000 + ((bytes[4 * i + 1] << 16) | (bytes[4 * i + 2] << 8) | bytes[4 * i + 3]);
  let end = at + ID_WIDTH;
  while (end > at) {
    let rest = 0;
    for (let i = 0; i < 4; i++) {
      const current = rest * 0x100000000 + words[i];
      const quotient = Math.floor(current / TRIPLE);
      words[i] = quotient;
      rest = current - quotient * TRIPLE;
    }
    // Below 58^3, so an int32: its modulo is integer arithmetic, where a double's is a call to fmod.
    let digits = rest | 0;
    for (let k = 0; k < 3 && end > at; k++) {
      const digit = digits % 58;
      text[--end] = BASE58_CODES[digit];
      digits = (digits - digit) / 58;
    }
  }
}
