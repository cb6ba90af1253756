import { hash } from "node:crypto";
import { invalid, KeywardError } from "./errors.js";

/** How long a verification's idempotency record answers retries, unless KEYWARD_IDEMPOTENCY_WINDOW_SECONDS says otherwise. */
export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 3_600_000;

/** 1 to 255 printable ASCII characters (space to tilde): what fits a header value unchanged on every transport. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The idempotency key of a call: the request field, else the `Idempotency-Key` header (gRPC metadata
 * `idempotency-key`); undefined when neither is sent. A key outside 1..255 printable ASCII, a repeated header, or a
 * header and field that disagree is `invalid` (400). The value is never echoed: it is the client's, and may be
 * derived from anything.
 */
export function idempotencyKeyOf(field: string | undefined, header: string | string[] | undefined): string | undefined {
  if (Array.isArray(header)) {
    if (header.length > 1) throw badKey("The Idempotency-Key header must be sent once.");
    header = header[0];
  }
  for (const value of [field, header]) {
    if (value !== undefined && !IDEMPOTENCY_KEY.test(value)) {
      throw badKey("The idempotency key must be 1 to 255 printable ASCII characters.");
    }
  }
  if (field !== undefined && header !== undefined && field !== header) {
    throw badKey("The idempotencyKey field and the Idempotency-Key header differ; send one, or the same value in both.");
  }
  return field ?? header;
}

function badKey(detail: string): KeywardError {
  return invalid(detail, [{ location: "idempotencyKey", message: detail, field: "idempotency_key" }]);
}

/**
 * A digest of everything that decides a verification's answer (the key's hash, dialect, cost, limits, permission
 * query, tags...): a retry must carry the same, else it is a different request reusing the idempotency key. The
 * parts are built by the caller in a fixed shape, so their JSON is stable.
 */
export function requestFingerprint(parts: unknown): string {
  return hash("sha256", JSON.stringify(parts), "base64");
}

/** The same idempotency key came with a different request: REST 409, RPC FAILED_PRECONDITION; nothing was spent. */
export function idempotencyConflict(): KeywardError {
  return new KeywardError(
    "idempotency_conflict",
    "This idempotency key was used with a different request; use a new key for a new request.",
  );
}
