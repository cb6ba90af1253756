/**
 * When to try a message again after `attempts` failed ones (Standard Webhooks' suggested schedule: 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h, about a day in all), each delay scaled by `scale` (1 in production; tests shrink
 * it) and jittered by up to ±20 % from `random` in [0, 1) so endpoints that failed together are not retried
 * together. undefined: give up (the endpoint is then disabled).
 */
export function nextAttemptDelay(attempts: number, options: { scale: number; random: number }): number | undefined {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return undefined;
  const jitter = 1 + (options.random * 0.4 - 0.2);
  return Math.max(1, Math.round(delay * options.scale * jitter));
}

const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** Attempts before a message is given up: the first one and every retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
