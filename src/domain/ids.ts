import { encodeBase58 } from "./base58.js";

export type IdPrefix =
  | "key" | "api" | "ws" | "perm" | "role" | "id" | "rl" | "rlns" | "rlor" | "req" | "log" | "sess";

/** Source of randomness; injected so ids are reproducible in tests. */
export type RandomBytes = (size: number) => Uint8Array;

const ID_WIDTH = 22; // ceil(128 / log2(58)): 6 bytes of time + 10 random bytes

/**
 * Returns `<prefix>_<base58>`: 48 bits of unix milliseconds then 80 random bits, fixed width, so ids sort by
 * creation time (to the millisecond) and lists can page by id.
 */
export function newId(prefix: IdPrefix, now: number, randomBytes: RandomBytes): string {
  const bytes = new Uint8Array(16);
  let time = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(randomBytes(10), 6);
  return `${prefix}_${encodeBase58(bytes, ID_WIDTH)}`;
}
