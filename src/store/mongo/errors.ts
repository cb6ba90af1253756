/** Driver-error classification, kept pure (duck-typed on `code`) so it is unit tested without a server. */
import { documentIndexes } from "./indexes.js";

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
 * which is the only place a transaction's error names it, else `fallbackCollection`. A bulk write (insertMany)
 * reports the collision in its first write error, often without `keyPattern`: then the index name is mapped back to
 * its fields through the adapter's own index specs, so every path reports e.g. "workspaceId,slug". The colliding
 * value, which the server quotes (e.g. a root key's hash), is never copied.
 */
export function duplicateKeyTarget(error: unknown, fallbackCollection: string): DuplicateKeyTarget {
  const detail = firstWriteError(error) ?? error;
  const fields = objectOf(detail, "keyPattern") ?? objectOf(error, "keyPattern");
  const message = stringOf(detail, "errmsg") ?? stringOf(error, "errmsg") ?? stringOf(error, "message") ?? "";
  const namespace = /collection: [^.\s]+\.(\S+) index: (\S+)/.exec(message);
  const collection = namespace?.[1] ?? fallbackCollection;
  let index: string;
  if (fields) index = Object.keys(fields).join(",");
  else if (namespace) index = indexFields(collection, namespace[2]!) ?? namespace[2]!;
  else index = "unknown";
  return { collection, index: index === "_id" || index === "_id_" ? "id" : index };
}

/** The first per-document error of a bulk write (the driver's WriteError keeps the server's document in `err`). */
function firstWriteError(error: unknown): object | undefined {
  const writeErrors = typeof error === "object" && error !== null ? (error as { writeErrors?: unknown }).writeErrors : undefined;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  if (typeof first !== "object" || first === null) return undefined;
  return objectOf(first, "err") ?? first;
}

/** The fields of one of the adapter's named indexes, joined by ","; undefined for an index it does not define. */
function indexFields(collection: string, indexName: string): string | undefined {
  const spec = documentIndexes().find((c) => c.collection === collection)?.indexes.find((i) => i.name === indexName);
  return spec ? Object.keys(spec.key).join(",") : undefined;
}

function objectOf(error: unknown, field: string): object | undefined {
  const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
  return typeof value === "object" && value !== null ? value : undefined;
}

function stringOf(error: unknown, field: string): string | undefined {
  const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
  return typeof value === "string" ? value : undefined;
}
