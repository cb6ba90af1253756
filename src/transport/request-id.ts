import { randomFillSync } from "node:crypto";
import { newId } from "../domain/ids.js";

// Request ids need randomness on every request; drawing it in blocks keeps the syscall off the per-request path.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function pooledRandomBytes(size: number): Uint8Array {
  if (offset + size > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}

/** A fresh `req_...` id for one request; echoed in the body and the `x-request-id` header. */
export function newRequestId(): string {
  return newId("req", Date.now(), pooledRandomBytes);
}

export const REQUEST_ID_HEADER = "x-request-id";
