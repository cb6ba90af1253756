import { randomFillSync } from "node:crypto";
import { newId } from "../domain/ids.js";

// Request ids need randomness on every request; drawing it in blocks keeps the syscall off the per-request path.
const pool = Buffer.alloc(4096);
let offset = pool.length;
// One id's random bytes, copied out of the pool into the same array each time (no view made per request): newId
// reads them at once, before anything else can draw.
let drawn = new Uint8Array(0);

function pooledRandomBytes(size: number): Uint8Array {
  if (offset + size > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  if (drawn.length !== size) drawn = new Uint8Array(size);
  pool.copy(drawn, 0, offset, offset + size);
  offset += size;
  return drawn;
}

/** A fresh `req_...` id for one request; echoed in the body and the `x-request-id` header. */
export function newRequestId(): string {
  return newId("req", Date.now(), pooledRandomBytes);
}

export const REQUEST_ID_HEADER = "x-request-id";
