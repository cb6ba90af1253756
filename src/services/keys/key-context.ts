import type { UsageSignals } from "../webhooks/usage-signals.js";
import type { AddressRange } from "../../domain/ip-allow-list.js";
import type { Clock } from "../../domain/clock.js";
import { KeywardError, notFound } from "../../domain/errors.js";
import type { RandomBytes } from "../../domain/ids.js";
import { latestRefillBoundary } from "../../domain/refill-calendar.js";
import { counterTag } from "../../domain/verification.js";
import { decryptKey } from "../../domain/key-encryption.js";
import { effectivePermissions } from "../../domain/effective-permissions.js";
import type { CounterStore } from "../../store/ports/counters.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import { authorize, DeadlineExceededError, type Principal } from "../context.js";
import type { KeyCache } from "../key-cache.js";
import { keyView } from "./key-view.js";

/** What every keys operation is built from. */
export interface KeysDeps {
  documents: DocumentStore;
  counters: CounterStore;
  cache: KeyCache;
  events: VerificationEventStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** KEYWARD_ENCRYPTION_KEY; recoverable keys are refused without it. */
  encryptionKey?: Buffer;
  /** KEYWARD_TRUSTED_PROXIES: peers whose forwarding headers name the client (absent: none). */
  trustedProxies?: readonly AddressRange[];
  /** KEYWARD_IDEMPOTENCY_WINDOW_SECONDS in ms: how long a verification's idempotency key answers retries. */
  idempotencyWindowMs?: number;
  /** Told every verification outcome (the metrics count them); must be cheap, it runs on every verification. */
  onVerified?: (code: string) => void;
  /** Webhook usage signals (credits low or out, rate limited): in-memory checks, never awaited. */
  usageSignals?: Pick<UsageSignals, "verified">;
}

/** Loads a live key of the caller's workspace and checks `api.*.<action>` or `api.<its api>.<action>`. */
export async function loadKeyFor(deps: KeysDeps, principal: Principal, keyId: string, action: string): Promise<KeyRecord> {
  const key = await deps.documents.keys.get(principal.workspaceId, keyId);
  if (!key) throw notFound(`The key ${keyId} does not exist.`);
  authorize(principal, { resourceType: "api", action, resourceId: key.apiId });
  return key;
}

/** The refill due at `now` for a key with a refill rule, in the counters' terms. */
export function refillAt(key: Pick<KeyRecord, "credits">, now: number) {
  const rule = key.credits?.refill;
  return rule ? { boundary: latestRefillBoundary(rule, now), amount: rule.amount } : undefined;
}

/** The key's current balance (after a due refill), or undefined when its credits are unlimited. */
export async function balanceOf(deps: KeysDeps, key: KeyRecord): Promise<number | undefined> {
  if (!key.credits) return undefined;
  return withCounters(() => deps.counters.readCredits(counterTag({ keyId: key.id, identityId: key.identityId }), key.id, refillAt(key, deps.clock.now())));
}

/**
 * Where an identity's shared credits (Keyward extension, unkeyed/unkey#4106) live in the counter store: under the
 * identity's own tag, named by the identity id. Every key of the identity already uses that tag for its counters, so
 * a verification spends both balances in one single-slot step.
 */
export function identityBalance(identity: Pick<IdentityRecord, "id">): { tag: string; keyId: string } {
  return { tag: identity.id, keyId: identity.id };
}

/** The identity's balance after a due refill (which is stored), or undefined when it has no credits. */
export async function identityBalanceOf(deps: Pick<KeysDeps, "counters" | "clock">, identity: IdentityRecord): Promise<number | undefined> {
  if (!identity.credits) return undefined;
  const { tag, keyId } = identityBalance(identity);
  return withCounters(() => deps.counters.readCredits(tag, keyId, refillAt(identity, deps.clock.now())));
}

/** Counter failures fail closed: 503, never a guess. */
export async function withCounters<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw counterFailure(error);
  }
}

/**
 * What a counter step's failure answers (`withCounters`' rule): for the verification's own step, which awaits the
 * store in its own frame rather than through a closure and two more async frames.
 */
export function counterFailure(error: unknown): unknown {
  // A RangeError is a plan we built wrong, not an outage; a refused commit gate never reached the counters.
  if (error instanceof KeywardError || error instanceof RangeError || error instanceof DeadlineExceededError) return error;
  return new KeywardError("unavailable", "The counter store is unavailable; try again shortly.");
}

/** How a key is viewed: `lastUsed` is the listing's one lookup for a whole page (else the key's own is read). */
export interface ViewKeyOptions {
  decrypt: boolean;
  lastUsed?: ReadonlyMap<string, number>;
}

/**
 * A key as management calls show it: its identity, current balance, when it was last verified and, when asked and
 * stored, its plaintext.
 */
export async function viewKey(deps: KeysDeps, key: KeyRecord, options: ViewKeyOptions) {
  const identity = key.identityId ? await deps.documents.identities.get(key.workspaceId, key.identityId) : undefined;
  const plaintext = options.decrypt && key.encrypted && deps.encryptionKey
    ? decryptKey(deps.encryptionKey, key.encrypted, key.id)
    : undefined;
  const lastUsed = options.lastUsed ?? (await deps.events.lastUsed(key.workspaceId, [key.id]));
  return keyView(key, {
    identity, identityRemaining: identity && (await identityBalanceOf(deps, identity)), remaining: await balanceOf(deps, key), plaintext, permissions: await effectivePermissionsOf(deps, key),
    lastUsedAt: lastUsed.get(key.id),
  });
}

/** The key's direct permissions ∪ those of its roles (what verification checks and reads report). */
export async function effectivePermissionsOf(deps: Pick<KeysDeps, "documents">, key: KeyRecord): Promise<string[]> {
  if (key.roles.length === 0) return key.permissions;
  return effectivePermissions(key, await deps.documents.roles.findByNames(key.workspaceId, key.roles));
}
