import type { Clock } from "../domain/clock.js";
import { unauthenticated } from "../domain/errors.js";
import { hashKey } from "../domain/key-material.js";
import type { KeyCache } from "../services/key-cache.js";
import type { Principal } from "../services/context.js";
import type { RootKeyStore } from "../store/ports/root-keys.js";

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/** A live root key as authentication needs it; cached by hash. */
export interface CachedRootKey {
  principal: Principal;
  expiresAt?: number;
}

export type RootKeyCache = KeyCache<CachedRootKey>;

/**
 * How long a live root key is served from the cache. Revocations through the API clear it at once everywhere; this
 * bounds the rest: a revocation written by the CLI without Redis, or a lost invalidation message.
 */
export const ROOT_KEY_CACHE_TTL_MS = 10_000;

/**
 * Resolves an `Authorization` header to a principal, or throws 401 for a missing or malformed header and for
 * an unknown, deleted or expired root key. The lookup goes by hash, so the secret is never compared as text.
 * Live root keys are cached by hash. Revocation is the only change a root key sees: through the API it clears the
 * entry here and, over the bus, on every instance; expiry is checked on every use.
 */
export function createAuthenticator(deps: { rootKeys: RootKeyStore; clock: Clock; cache: RootKeyCache }) {
  const read = (hash: string) => readRootKey(deps.rootKeys, hash);
  const live = (entry: CachedRootKey | undefined) => liveRootKey(entry, deps.clock);

  // A root key in the cache is answered at once, not in a promise: most calls are that, and each promise and
  // microtask turn saved counts on the verification path. Errors are thrown either way (awaiting callers see both).
  return function authenticate(header: string | null | undefined): Principal | Promise<Principal> {
    if (!header) throw unauthenticated("The Authorization header is missing; send `Authorization: Bearer <root key>`.");
    const match = BEARER.exec(header.trim());
    if (!match) throw unauthenticated("The Authorization header is malformed; expected `Bearer <root key>`.");
    // Unknown keys are not cached: one may be created any time.
    const entry = deps.cache.lookup(hashKey(match[1]), read, NOT_MISSING);
    return entry instanceof Promise ? entry.then(live) : live(entry);
  };
}

/** How an authenticator is called: a principal, or a promise of one when it had to read the store. */
export type Authenticate = (header: string | null | undefined) => Principal | Promise<Principal>;

const NOT_MISSING = { cacheMissing: false };

function liveRootKey(entry: CachedRootKey | undefined, clock: Clock): Principal {
  if (!entry) throw unauthenticated("The root key is unknown or revoked.");
  if (entry.expiresAt !== undefined && entry.expiresAt <= clock.now()) throw unauthenticated("The root key has expired.");
  return entry.principal;
}

async function readRootKey(rootKeys: RootKeyStore, hash: string): Promise<CachedRootKey | undefined> {
  const record = await rootKeys.findByHash(hash);
  if (!record || record.deletedAt !== undefined) return undefined;
  return {
    principal: { workspaceId: record.workspaceId, rootKeyId: record.id, permissions: new Set(record.permissions) },
    expiresAt: record.expiresAt,
  };
}

/**
 * The principal of the live root key with this stored hash, through the same cache as `createAuthenticator` (so a
 * revocation, which clears that cache on every instance, refuses it at once); 401 when it is unknown, revoked or
 * expired. For credentials that name a root key by hash instead of carrying it (dashboard sessions).
 */
export function createRootKeyLookup(deps: { rootKeys: RootKeyStore; clock: Clock; cache: RootKeyCache }) {
  return async function principalOfRootKeyHash(hash: string): Promise<Principal> {
    return liveRootKey(await deps.cache.load(hash, () => readRootKey(deps.rootKeys, hash), NOT_MISSING), deps.clock);
  };
}
