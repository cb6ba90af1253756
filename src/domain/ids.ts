import { encodeBase58 } from "./base58.js";

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

// One id's bytes, reused: an id is encoded synchronously, start to end, and a request id is made on every request.
const bytes = new Uint8Array(16);

function encodeId(prefix: IdPrefix, now: number, tail: Uint8Array): string {
  let time = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(tail, 6);
  return `${prefix}_${encodeBase58(bytes, ID_WIDTH)}`;
}
