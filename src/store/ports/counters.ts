// Counters: credits and rate-limit windows. One atomic step per verification (on Redis: one Lua script, one round
// trip). All counters of one step share `tag` (the key's identity id, else the key id) so Redis Cluster keeps them
// in one slot. Window and refill arithmetic come precomputed from src/domain, so adapters stay simple.

/** One sliding-window limit to check (and, if the whole step passes, to count). */
export interface LimitCheck {
  /** The bucket's name within the tag, e.g. `key:<keyId>:<limitName>` or `identity:<id>:<limitName>`. */
  bucket: string;
  limit: number;
  /** Window length in ms; windows are epoch-aligned: start = floor(now / duration) * duration. */
  duration: number;
  /** 0 checks without counting. */
  cost: number;
}

/**
 * The credits part of a step: deduct `cost` from a balance after applying a due refill. `keyId` names the balance
 * within the tag: the key's id, or the identity's id for the balance an identity shares with its keys.
 */
export interface CreditsCheck {
  keyId: string;
  cost: number;
  /** When set, a refill is due if the balance was last refilled before this instant: balance = max(balance, amount). */
  refill?: { boundary: number; amount: number };
}

export interface ConsumePlan {
  tag: string;
  now: number;
  limits: LimitCheck[];
  credits?: CreditsCheck;
  /**
   * The identity's shared balance (Keyward extension, under the same tag, which is then the identity id): spent in
   * the same step as `credits`, all or nothing; either one short refuses the step with USAGE_EXCEEDED.
   */
  identityCredits?: CreditsCheck;
  /** Makes the step retry-safe: see IdempotencyCheck. */
  idempotency?: IdempotencyCheck;
}

/**
 * A step under an idempotency key (domain/idempotency.ts). The first step stores its result under (scope, key) in the
 * same atomic step that counts, durable as the counts are; a later step with the same key and fingerprint before
 * `expiresAt` counts nothing and answers that result with `replayed`; one with another fingerprint throws
 * `idempotency_conflict` and counts nothing. Records are dropped once expired.
 */
export interface IdempotencyCheck {
  /** The workspace: keys of different tenants never meet. */
  scope: string;
  key: string;
  fingerprint: string;
  /** Unix ms; after `plan.now`. */
  expiresAt: number;
}

export interface LimitResult {
  limit: number;
  remaining: number;
  /** End of the current window, unix ms. */
  reset: number;
  exceeded: boolean;
}

/**
 * VALID: every limit passed and the credits sufficed; everything was counted.
 * RATE_LIMITED / USAGE_EXCEEDED: nothing was counted (rate limits are judged before credits; USAGE_EXCEEDED when
 * the key's or the identity's balance is short).
 */
export interface ConsumeResult {
  outcome: "VALID" | "RATE_LIMITED" | "USAGE_EXCEEDED";
  /** In plan order. */
  limits: LimitResult[];
  /** The balance after this step (unchanged when not VALID); absent when the plan had no credits. */
  credits?: { remaining: number };
  /** The identity's balance after this step (unchanged when not VALID); absent when the plan had no identityCredits. */
  identityCredits?: { remaining: number };
  /** The result an earlier step with the same idempotency key stored; this step counted nothing. */
  replayed?: true;
}

export type CreditsOperation = "set" | "increment" | "decrement";

export interface CounterStore {
  consume(plan: ConsumePlan): Promise<ConsumeResult>;
  /**
   * What `consume` would answer a retry of `plan` under its `idempotency` (the stored result, flagged `replayed`;
   * the conflict thrown for another fingerprint), or undefined when no record is live. Counts and stores nothing: for
   * a verification refused before its counter step, which must still repeat an earlier step's answer.
   */
  recall(plan: ConsumePlan): Promise<ConsumeResult | undefined>;
  /** Starts (or replaces) a key's balance; `lastRefillAt` = now. */
  setCredits(tag: string, keyId: string, remaining: number, now: number): Promise<void>;
  /** Changes a balance atomically (decrement clamps at 0) after a due refill; returns the new balance. */
  adjustCredits(
    tag: string,
    keyId: string,
    change: { operation: CreditsOperation; value: number; refill?: { boundary: number; amount: number }; now: number },
  ): Promise<number>;
  /** The balance after a due refill (which is stored), or undefined when the key has none. */
  readCredits(tag: string, keyId: string, refill?: { boundary: number; amount: number }): Promise<number | undefined>;
  /** Forgets a key's balance (credits now unlimited, or the key is gone). */
  deleteCredits(tag: string, keyId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
