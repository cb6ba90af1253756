/**
 * Every Redis key Keyward writes is built here, so the layout is one pure, tested function.
 *
 * Layout: `<prefix>:{<tag>}:<part>:<part>...`. Redis Cluster hashes only the text between the first `{` and
 * the next `}`, so all counters of one tag live in one slot and a single Lua script may touch them all.
 * Segments are escaped so that distinct inputs never give the same key and user-chosen names (rate-limit
 * names, ...) can neither break out of the tag nor fake a segment boundary.
 */

export interface CounterKeyInput {
  /** Deployment namespace, e.g. `kw`; letters, digits and `_ . - :` only. */
  prefix: string;
  /** Hash tag: every key one verification touches must use the same tag (see `counterTagFor`). */
  tag: string;
  /** What the counter is, e.g. `["rl", "default", 1700000000000]` or `["credits"]`; `5` and `"5"` are the same part. */
  parts: readonly (string | number)[];
}

const PREFIX_PATTERN = /^[A-Za-z0-9_.:-]+$/;

/** Builds `<prefix>:{<tag>}:<parts...>`; throws TypeError on an invalid prefix, an empty tag or empty parts. */
export function counterKey({ prefix, tag, parts }: CounterKeyInput): string {
  return keyUnder(tagPrefix({ prefix, tag }), parts);
}

/**
 * `counterKey` for a `tagPrefix` computed once: the several keys of one step share it. Numeric parts are written
 * as they are, so `${keyUnder(base, parts)}:${n}` equals `keyUnder(base, [...parts, n])`.
 */
export function keyUnder(base: string, parts: readonly (string | number)[]): string {
  if (parts.length === 0) throw new TypeError("redis counter key needs at least one part");
  let key = base;
  for (const part of parts) key += `:${encodePart(part)}`;
  return key;
}

/**
 * The common start `<prefix>:{<tag>}` of all keys of one tag; a script may derive further keys of the same
 * slot from it. Throws TypeError like `counterKey`.
 */
export function tagPrefix({ prefix, tag }: { prefix: string; tag: string }): string {
  if (!PREFIX_PATTERN.test(prefix)) throw new TypeError(`invalid redis key prefix: ${JSON.stringify(prefix)}`);
  if (tag === "") throw new TypeError("redis hash tag must not be empty: an empty {} tag hashes the whole key");
  return `${prefix}:{${encodeSegment(tag)}}`;
}

/**
 * The tag that groups one verification's counters: the identity when the key has one (identity-owned limits
 * are shared by all its keys), else the key itself.
 */
export function counterTagFor({ keyId, identityId }: { keyId: string; identityId?: string | null }): string {
  return identityId ? identityId : keyId;
}

/** The substring Redis Cluster hashes for `key`: the hash tag when there is a non-empty one, else the key. */
export function hashedPart(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

function encodePart(part: string | number): string {
  if (typeof part === "number") {
    if (!Number.isFinite(part)) throw new TypeError(`redis key part must be finite, got ${part}`);
    return String(part);
  }
  return encodeSegment(part);
}

/** `%` first, so the escaping is reversible and therefore injective. */
function encodeSegment(text: string): string {
  if (!SPECIAL.test(text)) return text; // the common case (ids, plain names): nothing to escape
  // Rate-limit buckets (`key:<keyId>:<name>`) always need escaping and recur on every verification of their key:
  // remembered, so a verification does not run the replacement again.
  let encoded = escaped.get(text);
  if (encoded === undefined) {
    encoded = text.replace(/[%:{}]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
    if (escaped.size >= ESCAPED_MAX) escaped.clear(); // bounded: many keys only cost a replacement again
    escaped.set(text, encoded);
  }
  return encoded;
}

const SPECIAL = /[%:{}]/;
const ESCAPED_MAX = 10_000;
const escaped = new Map<string, string>();
