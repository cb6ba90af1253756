/**
 * Which driver failures mean "MongoDB is not answering" (pure, duck-typed, unit tested without a server), and the
 * wrapper that turns them into StoreUnavailableError so every request that hits an outage answers 503.
 */
import { StoreUnavailableError } from "../errors.js";

/** Driver errors raised when no server answers in time or the connection broke. */
const OUTAGE_ERROR_NAMES = new Set([
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoOperationTimeoutError",
  "MongoWaitQueueTimeoutError",
  "MongoPoolClearedError",
  "MongoServerClosedError",
  "MongoTopologyClosedError",
  "MongoNotConnectedError",
  "MongoWriteConcernError",
]);

/**
 * Server codes of the same kind: unreachable hosts, shutdown, no writable primary (failover), a time limit hit
 * (maxTimeMS from timeoutMS) and a write concern not satisfied within its bound.
 */
const OUTAGE_CODES = new Set([6, 7, 50, 64, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Node socket errors the driver sometimes passes on unwrapped (e.g. writing to a socket the server closed). */
const SOCKET_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED", "EAI_AGAIN", "ERR_SOCKET_CLOSED", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

/** Labels the driver puts on failures that a retry may fix. */
const TRANSIENT_LABELS = ["RetryableWriteError", "TransientTransactionError", "ResetPool", "PoolRequestedRetry"];

type MaybeDriverError = {
  name?: unknown;
  code?: unknown;
  errorLabels?: unknown;
  writeErrors?: unknown;
  writeConcernError?: unknown;
  cause?: unknown;
};

/**
 * True when `error` says the deployment did not answer (down, unreachable, no primary, timed out, write concern
 * not met in time), as opposed to refusing the operation (duplicate key, validation). A bulk write that failed as a
 * whole (driver 7 wraps a connection failure in MongoBulkWriteError with no `writeErrors`) counts as an outage, and
 * so does a bare socket error (EPIPE, ECONNRESET...).
 */
export function isOutageError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as MaybeDriverError;
  if (typeof e.name === "string" && OUTAGE_ERROR_NAMES.has(e.name)) return true;
  if (typeof e.code === "number" && OUTAGE_CODES.has(e.code)) return true;
  if (typeof e.code === "string" && SOCKET_ERROR_CODES.has(e.code)) return true;
  if (Array.isArray(e.errorLabels) && TRANSIENT_LABELS.some((label) => (e.errorLabels as unknown[]).includes(label))) return true;
  if (e.writeConcernError !== undefined && e.writeConcernError !== null) return true;
  if (e.name === "MongoBulkWriteError" && Array.isArray(e.writeErrors) && e.writeErrors.length === 0) return true;
  return e.cause !== undefined && e.cause !== error && isOutageError(e.cause);
}

/** `error` as the store reports it: StoreUnavailableError for an outage, itself otherwise. */
export function translateOutage(error: unknown): unknown {
  return isOutageError(error) ? new StoreUnavailableError({ store: "document store (MongoDB)", cause: error }) : error;
}

type AnyFunction = (...args: never[]) => unknown;

/** The same function, its rejections passed through translateOutage. */
function translated<F extends AnyFunction>(run: F): F {
  return (async (...args: Parameters<F>) => {
    try {
      return await run(...args);
    } catch (error) {
      throw translateOutage(error);
    }
  }) as unknown as F;
}

/**
 * Wraps every method of `store` and of its sub-stores (one level down, as DocumentStore is built) so an outage
 * rejects with StoreUnavailableError. `close` is left as is: closing during an outage must not look like one.
 */
export function withOutagesTranslated<S extends object>(store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    if (typeof value === "function") out[name] = name === "close" ? value : translated(value as AnyFunction);
    else if (typeof value === "object" && value !== null) {
      const inner: Record<string, unknown> = {};
      for (const [verb, fn] of Object.entries(value)) inner[verb] = typeof fn === "function" ? translated(fn as AnyFunction) : fn;
      out[name] = inner;
    } else out[name] = value;
  }
  return out as S;
}
