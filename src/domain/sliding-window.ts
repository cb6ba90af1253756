/**
 * Sliding-window rate limiting over two epoch-aligned fixed windows (DESIGN.md §3 "Rate limits"). Pure integer
 * arithmetic in an order the Redis Lua script repeats operation for operation, so both adapters judge alike.
 */

export interface WindowPosition {
  /** Start of the current window: floor(now / duration) × duration. */
  start: number;
  /** Start of the window before it. */
  previousStart: number;
  /** End of the current window (unix ms), reported as `reset`. */
  reset: number;
  /** Time since `start`, 0 ≤ elapsed < duration. */
  elapsed: number;
}

/** Where `now` falls among the epoch-aligned windows of length `duration` (a positive integer of ms). */
export function windowOf(now: number, duration: number): WindowPosition {
  const start = Math.floor(now / duration) * duration;
  return { start, previousStart: start - duration, reset: start + duration, elapsed: now - start };
}

export interface WindowInput {
  /** Already counted in the current window. */
  current: number;
  /** Counted in the previous window. */
  previous: number;
  elapsed: number;
  duration: number;
  limit: number;
  /** What this call would add; 0 only checks. */
  cost: number;
}

export interface WindowVerdict {
  /** current + the previous window's share still inside the sliding window + cost. */
  effective: number;
  exceeded: boolean;
  /**
   * What is left after this call. When exceeded the call is never counted, so this is what is left without it,
   * max(0, limit − (effective − cost)): 0 for a denied cost-1 call, as Unkey reports, while a denied cost-5 call
   * with 3 left says 3, which is true (a cost-3 call would pass).
   */
  remaining: number;
  /** What is left when this call is not counted because another check of the same step failed. */
  remainingIfNotCounted: number;
}

/**
 * Judges one call against one limit: effective = current + floor(previous × (duration − elapsed) / duration) +
 * cost; exceeded iff effective > limit. The multiplication comes before the division (unlike
 * previous × (1 − elapsed/duration)) so the result is an exact integer whenever the product fits in 2^53, and
 * IEEE doubles round the same way in Lua when it does not.
 */
export function evaluateWindow(input: WindowInput): WindowVerdict {
  const { current, previous, elapsed, duration, limit, cost } = input;
  const used = current + Math.floor((previous * (duration - elapsed)) / duration);
  const effective = used + cost;
  const exceeded = effective > limit;
  const remainingIfNotCounted = Math.max(0, limit - used);
  return {
    effective,
    exceeded,
    remaining: exceeded ? remainingIfNotCounted : limit - effective,
    remainingIfNotCounted,
  };
}
