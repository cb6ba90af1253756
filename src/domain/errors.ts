/**
 * The kinds of failure an operation can report; each dialect maps them to its statuses in one place. `conflict`: the
 * request can never succeed as it stands (a name already taken). `aborted`: a concurrent change won the race and the
 * request wrote nothing; the same request may well succeed when retried. `idempotency_conflict`: an idempotency key
 * reused with a different request (409 like `conflict`, but FAILED_PRECONDITION on RPC, as the request itself is fine).
 */
export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "idempotency_conflict"
  | "aborted"
  | "precondition"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "unavailable"
  | "internal";

/** One broken field of a request: `location` is a path such as `name` or `permissions[0]`. */
export interface Violation {
  location: string;
  message: string;
  /** The same path in proto field names (`api_id`), when known: what gRPC's `google.rpc.BadRequest` carries. */
  field?: string;
}

export interface KeywardErrorOptions {
  /** A finer code where a dialect distinguishes one, e.g. v1's DELETE_PROTECTED or INSUFFICIENT_PERMISSIONS. */
  reason?: string;
  violations?: Violation[];
}

/** A failure an operation reports to its caller; never carries secrets. */
export class KeywardError extends Error {
  override name = "KeywardError";
  readonly kind: ErrorKind;
  readonly reason?: string;
  readonly violations: Violation[];

  constructor(kind: ErrorKind, detail: string, options: KeywardErrorOptions = {}) {
    super(detail);
    this.kind = kind;
    this.reason = options.reason;
    this.violations = options.violations ?? [];
  }
}

export const invalid = (detail: string, violations: Violation[] = []) =>
  new KeywardError("invalid", detail, { violations });
export const notFound = (detail: string) => new KeywardError("not_found", detail);
/** A concurrent change won; nothing was written, and retrying the same request may succeed. */
export const aborted = (detail: string) => new KeywardError("aborted", detail);
export const unauthenticated = (detail: string) => new KeywardError("unauthenticated", detail);
