import type { ConsumePlan, CreditsCheck } from "./ports/counters.js";

/**
 * Refuses plans the window math cannot judge exactly: every number a safe integer, durations positive. Shared by
 * every counter adapter, so a plan one accepts the others accept too.
 */
export function checkPlan(plan: ConsumePlan): void {
  if (!plan.tag) throw new TypeError("consume plan needs a tag");
  checkCount("now", plan.now);
  for (const limit of plan.limits) {
    checkCount("limit", limit.limit);
    checkCount("cost", limit.cost);
    if (!Number.isSafeInteger(limit.duration) || limit.duration <= 0) {
      throw new RangeError(`duration must be a positive integer, got ${limit.duration}`);
    }
  }
  checkCredits(plan.credits);
  checkCredits(plan.identityCredits);
  if (plan.idempotency) {
    const { scope, key, fingerprint, expiresAt } = plan.idempotency;
    if (!scope || !key || !fingerprint) throw new TypeError("idempotency needs a scope, a key and a fingerprint");
    checkCount("expiresAt", expiresAt);
    if (expiresAt <= plan.now) throw new RangeError("idempotency expiresAt must be after now");
  }
  if (plan.credits && plan.identityCredits?.keyId === plan.credits.keyId) {
    throw new RangeError("identityCredits must name another balance than credits");
  }
}

function checkCredits(credits: CreditsCheck | undefined): void {
  if (!credits) return;
  checkCount("cost", credits.cost);
  if (credits.refill) {
    checkCount("refill boundary", credits.refill.boundary);
    checkCount("refill amount", credits.refill.amount);
  }
}

/** A counter value must be a non-negative safe integer; a RangeError names the offending input otherwise. */
export function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
}
