/**
 * When credits refill (DESIGN.md §3 "Credits"): at 00:00 UTC of every day, or of the month's `refillDay`
 * (clamped to the month's last day). Refill is computed lazily from `lastRefillAt`, never by a scheduler.
 */

export interface RefillRule {
  interval: "daily" | "monthly";
  /** 1–31, monthly only; default 1. */
  refillDay?: number;
}

const DAY_MS = 86_400_000;

/**
 * The latest refill moment ≤ `now`: daily = today 00:00 UTC; monthly = this month's refill day at 00:00 UTC when
 * already reached, else the previous month's (each clamped to its month's length, so refillDay 31 means Feb 28
 * or 29). Throws RangeError on a refillDay outside 1–31.
 */
export function latestRefillBoundary(rule: RefillRule, now: number): number {
  if (rule.interval === "daily") return Math.floor(now / DAY_MS) * DAY_MS;
  const day = rule.refillDay ?? 1;
  if (!Number.isInteger(day) || day < 1 || day > 31) throw new RangeError(`refillDay must be 1-31, got ${day}`);
  const today = new Date(now);
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth();
  const thisMonth = refillMoment(year, month, day);
  return thisMonth <= now ? thisMonth : refillMoment(year, month - 1, day);
}

/** 00:00 UTC of `day` in the given month (month may be -1: Date.UTC rolls it into the previous year). */
function refillMoment(year: number, month: number, day: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(day, lastDay));
}

export interface CreditsState {
  remaining: number;
  /** Unix ms of the last refill (or of when the balance was set). */
  lastRefillAt: number;
}

/**
 * Applies the refill due at `boundary`: when the balance was last refilled before it, the balance becomes
 * `amount` if it is below (replace, not add: a balance above `amount` stays), and lastRefillAt moves to the
 * boundary, so however many boundaries passed it refills once. No refill given, or none due: the state as is.
 */
export function applyRefill(state: CreditsState, refill?: { boundary: number; amount: number }): CreditsState {
  if (!refill || state.lastRefillAt >= refill.boundary) return state;
  return { remaining: Math.max(state.remaining, refill.amount), lastRefillAt: refill.boundary };
}
