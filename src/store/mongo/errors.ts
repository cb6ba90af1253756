/** Driver-error classification, kept pure (duck-typed on `code`) so it is unit tested without a server. */

/** Server code for a unique-index violation; bulk and transactional writes report the same code. */
const DUPLICATE_KEY = 11000;
/** Server code for "collection already exists" (another instance created it first). */
const NAMESPACE_EXISTS = 48;

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

/** True for a unique-index violation (E11000). */
export function isDuplicateKeyError(error: unknown): boolean {
  return codeOf(error) === DUPLICATE_KEY;
}

/** True when createCollection failed only because the collection exists. */
export function isNamespaceExistsError(error: unknown): boolean {
  return codeOf(error) === NAMESPACE_EXISTS;
}

export interface DuplicateKeyTarget {
  /** Collection of the refused write, e.g. "root_keys". */
  collection: string;
  /** "id" for the primary key, else the indexed field names joined by ",", e.g. "hash". */
  index: string;
}

/**
 * Where a duplicate-key error collided, in UniqueViolationError's terms. The fields come from the server's
 * `keyPattern`; the collection from its message ("E11000 duplicate key error collection: db.coll index: ..."),
 * which is the only place a transaction's error names it, else `fallbackCollection`. The colliding value, which
 * the server quotes (e.g. a root key's hash), is never copied.
 */
export function duplicateKeyTarget(error: unknown, fallbackCollection: string): DuplicateKeyTarget {
  const fields = objectOf(error, "keyPattern");
  const message = stringOf(error, "errmsg") ?? stringOf(error, "message") ?? "";
  const namespace = /collection: [^.\s]+\.(\S+) index: (\S+)/.exec(message);
  const collection = namespace?.[1] ?? fallbackCollection;
  let index: string;
  if (fields) index = Object.keys(fields).join(",");
  else index = namespace?.[2] ?? "unknown";
  return { collection, index: index === "_id" || index === "_id_" ? "id" : index };
}

function objectOf(error: unknown, field: string): object | undefined {
  const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
  return typeof value === "object" && value !== null ? value : undefined;
}

function stringOf(error: unknown, field: string): string | undefined {
  const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
  return typeof value === "string" ? value : undefined;
}
