/**
 * Backend-neutral storage errors. Adapters translate their native failures into these classes so services can
 * react the same way whichever backend runs (the embedded journal throws them directly; the MongoDB adapter maps
 * duplicate-key errors, code 11000, onto UniqueViolationError, and outages onto StoreUnavailableError).
 */
import { KeywardError } from "../domain/errors.js";

/** A write would give two documents the same value of a unique key (the id itself, or a unique index). */
export class UniqueViolationError extends Error {
  /** Collection of the refused write, e.g. "root_keys". */
  readonly collection: string;
  /** The unique key that collided: "id" for the primary key, else the index name, e.g. "hash". */
  readonly index: string;

  constructor(options: { collection: string; index: string; cause?: unknown }) {
    // The colliding value stays out of the message: it may be a secret-derived hash or a customer identifier.
    super(`unique violation on ${options.collection}.${options.index}`, { cause: options.cause });
    this.name = "UniqueViolationError";
    this.collection = options.collection;
    this.index = options.index;
  }
}

/**
 * The backend did not answer within its bound (down, unreachable, no primary, write concern not met in time). The
 * operation may or may not have been applied; services answer 503 (`unavailable`) and the caller retries. The
 * message is fixed: a driver's message may name hosts, never anything the caller should see.
 */
export class StoreUnavailableError extends KeywardError {
  override name = "StoreUnavailableError";

  constructor(options: { store: string; cause?: unknown }) {
    super("unavailable", `The ${options.store} is unavailable; try again shortly.`);
    if (options.cause !== undefined) this.cause = options.cause;
  }
}
