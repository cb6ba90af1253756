import { idempotencyConflict } from "../../domain/idempotency.js";
import { evaluateWindow, windowOf, type WindowPosition } from "../../domain/sliding-window.js";
import type { ConsumePlan, ConsumeResult, LimitResult } from "../ports/counters.js";

const OUTCOMES: ConsumeResult["outcome"][] = ["VALID", "RATE_LIMITED", "USAGE_EXCEEDED"];

/** consume.lua's answer as Redis sent it: its reply, or {-2, stored text (a Buffer)} for a replay, {-1} for a conflict. */
export type Reply = (number | Uint8Array)[];

/**
 * The step's result from consume.lua's reply {outcome, current_1, previous_1, ..., balance_1, ...}: the script judged
 * with the window counts it returns, so repeating the pure window math here gives the same verdicts.
 */
export function resultOf(plan: ConsumePlan, reply: number[], positions: WindowPosition[]): ConsumeResult {
  const outcome = OUTCOMES[reply[0]!];
  if (!outcome) throw new Error(`consume script answered an unknown outcome ${reply[0]}`);
  const counted = outcome === "VALID";
  const limits: LimitResult[] = plan.limits.map((check, i) => {
    const { reset, elapsed } = positions[i]!;
    const verdict = evaluateWindow({
      current: reply[2 * i + 1]!,
      previous: reply[2 * i + 2]!,
      elapsed,
      duration: check.duration,
      limit: check.limit,
      cost: check.cost,
    });
    return { limit: check.limit, remaining: counted ? verdict.remaining : verdict.remainingIfNotCounted, reset, exceeded: verdict.exceeded };
  });
  const result: ConsumeResult = { outcome, limits };
  let at = 2 * plan.limits.length + 1;
  if (plan.credits) result.credits = { remaining: reply[at++]! };
  if (plan.identityCredits) result.identityCredits = { remaining: reply[at]! };
  return result;
}

/**
 * The result a replayed step stored (`<now>,<n>,<m>,<reply...>`, see consume.lua), computed at the time it ran so the
 * replay reports what the first step did. A plan that no longer has the stored shape (the key's limits or credits
 * changed since) cannot be replayed faithfully: a conflict, and nothing is counted.
 */
export function replayedResult(plan: ConsumePlan, text: string): ConsumeResult {
  const [now, n, m, ...reply] = text.split(",").map(Number);
  const balances = (plan.credits ? 1 : 0) + (plan.identityCredits ? 1 : 0);
  if (n !== plan.limits.length || m !== balances) throw idempotencyConflict();
  const result = resultOf(plan, reply, plan.limits.map((check) => windowOf(now!, check.duration)));
  result.replayed = true;
  return result;
}
