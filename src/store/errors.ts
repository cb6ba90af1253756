/**
 * Backend-neutral storage errors. Adapters translate their native failures into these classes so services can
 * react the same way whichever backend runs (the embedded journal throws them directly; the MongoDB adapter maps
 * duplicate-key errors, code 11000, onto UniqueViolationError).
 */

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
