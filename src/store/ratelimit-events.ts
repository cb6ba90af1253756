import type { VerificationEvent } from "./ports/events.js";

/** One standalone rate-limit check (ratelimit.limit, or one entry of multiLimit), as analytics counts it. */
export interface RatelimitEvent {
  time: number;
  workspaceId: string;
  namespaceId: string;
  identifier: string;
  passed: boolean;
  /** Tokens the check asked for (its cost), whether or not it passed. */
  cost: number;
  requestId: string;
}

/** The outcomes a rate-limit event is stored under: the verification engine counts them like any other. */
export const RATELIMIT_PASSED = "VALID";
export const RATELIMIT_BLOCKED = "RATE_LIMITED";

/**
 * A rate-limit event in the shape the event stores keep, so the same batched writer and query engine serve it, in
 * a stream of its own (its own collection on MongoDB, its own directory embedded): the namespace rides in `apiId`,
 * the identifier in `keyId`, passed/blocked in `outcome`, the tokens in `creditsSpent`.
 */
export function ratelimitEventRecord(event: RatelimitEvent): VerificationEvent {
  return {
    time: event.time,
    workspaceId: event.workspaceId,
    apiId: event.namespaceId,
    keyId: event.identifier,
    outcome: event.passed ? RATELIMIT_PASSED : RATELIMIT_BLOCKED,
    tags: [],
    creditsSpent: event.cost,
    latencyMs: 0,
    requestId: event.requestId,
  };
}
