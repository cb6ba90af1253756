import type { Clock } from "../domain/clock.js";
import { unauthenticated } from "../domain/errors.js";
import { newId, type RandomBytes } from "../domain/ids.js";
import { hashKey } from "../domain/key-material.js";
import type { Principal } from "../services/context.js";
import { createKeyCache } from "../services/key-cache.js";
import type { InvalidationBus } from "../store/invalidation-bus.js";
import type { DashboardSessionRecord, DashboardSessionStore } from "../store/ports/dashboard-sessions.js";
import { isSessionToken, newSessionToken } from "./session-token.js";

/** How long a dashboard session lasts from sign-in (its root key's own expiry is checked on every call too). */
export const SESSION_TTL_MS = 60 * 60 * 1000;
/** How long a session record is served from memory; sign-out clears it at once on every instance. */
const SESSION_CACHE_TTL_MS = 10_000;

export interface DashboardSessionsDeps {
  store: DashboardSessionStore;
  clock: Clock;
  randomBytes: RandomBytes;
  bus: InvalidationBus;
  /** The root key behind a session, by its stored hash, through authentication's root-key cache. */
  principalOfRootKeyHash: (hash: string) => Promise<Principal>;
  ttlMs?: number;
}

/**
 * Dashboard sessions: a random token in a cookie stands for a root key for a short while. Only the token's hash is
 * stored (in the document store, so any instance can serve any session). Every call resolves the session, then its
 * root key through the root-key cache: a revoked or expired root key ends all its sessions at once, and a session
 * can never do more than its root key.
 */
export function createDashboardSessions(deps: DashboardSessionsDeps) {
  const ttlMs = deps.ttlMs ?? SESSION_TTL_MS;
  const cache = createKeyCache<DashboardSessionRecord>({ clock: deps.clock, bus: deps.bus, ttlMs: SESSION_CACHE_TTL_MS, maxEntries: 1_000 });

  async function recordOf(token: string): Promise<DashboardSessionRecord> {
    const hash = hashKey(token);
    const record = isSessionToken(token)
      ? await cache.load(hash, () => deps.store.findByHash(hash), { cacheMissing: false })
      : undefined;
    if (!record || record.expiresAt <= deps.clock.now()) throw unauthenticated("The dashboard session has ended; sign in again.");
    return record;
  }

  return {
    /**
     * Opens a session for a root key the caller has just authenticated (by its plaintext, which is hashed here and
     * forgotten). Also sweeps expired sessions, so the store does not grow with abandoned ones.
     */
    async signIn(rootKey: string, principal: Principal): Promise<{ token: string; record: DashboardSessionRecord }> {
      const now = deps.clock.now();
      const token = newSessionToken(deps.randomBytes);
      const record: DashboardSessionRecord = {
        id: newId("sess", now, deps.randomBytes),
        hash: hashKey(token),
        workspaceId: principal.workspaceId,
        rootKeyId: principal.rootKeyId,
        rootKeyHash: hashKey(rootKey),
        createdAt: now,
        expiresAt: now + ttlMs,
      };
      await deps.store.deleteExpired(now).catch(() => 0);
      await deps.store.insert(record);
      return { token, record };
    },

    /** The principal a session token stands for; 401 when the session or its root key is gone or expired. */
    async authenticate(token: string): Promise<Principal> {
      const record = await recordOf(token);
      return deps.principalOfRootKeyHash(record.rootKeyHash);
    },

    /** The live session of a token with its principal; 401 as `authenticate`. */
    async describe(token: string): Promise<{ record: DashboardSessionRecord; principal: Principal }> {
      const record = await recordOf(token);
      return { record, principal: await deps.principalOfRootKeyHash(record.rootKeyHash) };
    },

    /** Ends a session everywhere: deleted from the store, dropped from every instance's cache. */
    async signOut(token: string): Promise<boolean> {
      if (!isSessionToken(token)) return false;
      const hash = hashKey(token);
      const deleted = await deps.store.delete(hash);
      cache.invalidate({ kind: "hash", hash });
      return deleted;
    },
  };
}

export type DashboardSessions = ReturnType<typeof createDashboardSessions>;
