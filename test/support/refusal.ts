import type { Transport } from "@connectrpc/connect";
import { expect } from "vitest";
import { expectFailure, type FailureExpectation, type FailureKind } from "./expect-outcome.js";
import { callOperation, OPERATIONS, type OperationName, type Outcome, type Via } from "./operations.js";
import type { Harness } from "./use-keyward.js";

export interface Refusal extends FailureExpectation {
  via: Via;
  op: OperationName;
  input: unknown;
  /** The raw Authorization header; undefined sends none. */
  authorization: string | undefined;
  kind: FailureKind;
  /** For RPC: a transport other than the default one for `via`. */
  transport?: Transport;
}

/**
 * Makes one call that must fail as `kind` and asserts that nothing changed: no write reached the store, and
 * every workspace and live root key reads the same before and after. Returns the outcome for further checks.
 */
export async function expectRefusal(harness: Harness, refusal: Refusal): Promise<Outcome> {
  harness.writes.clear();
  const before = await harness.snapshot();
  const outcome = await callOperation(harness.keyward.baseUrl, refusal.via, OPERATIONS[refusal.op], refusal.input, {
    authorization: refusal.authorization,
    transport: refusal.transport,
  });
  expectFailure(outcome, refusal.kind, refusal);
  expect(harness.writes.writes).toEqual([]);
  expect(await harness.snapshot()).toEqual(before);
  return outcome;
}

/** `Bearer <key>`. */
export const bearerOf = (key: string) => `Bearer ${key}`;
