import { it } from "vitest";
import { OPERATIONS, viasOf, type OperationName } from "./operations.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

export interface ForbiddenMatrixOptions {
  /** A request that would succeed with the needed permission: only authorization is wrong. */
  validInput: (harness: Harness) => Promise<Record<string, unknown>>;
  /** Requests that fail validation; without the permission they must still answer 403. */
  badInputs: { rest: (string | Record<string, unknown>)[]; rpc: Record<string, unknown>[] };
}

/**
 * Registers the generic 403 cases for one operation on every transport: a root key holding every catalogue
 * permission except the operation's own gets 403 naming it, before its request is even validated.
 */
export function forbiddenMatrix(harness: Harness, name: OperationName, options: ForbiddenMatrixOptions): void {
  const op = OPERATIONS[name];
  const vias = viasOf(op);
  const detail = `Missing permission: ${op.permission}`;

  it(`answers 403 naming ${op.permission} to a root key holding every other permission, on every transport`, async () => {
    const { key } = await harness.seed.rootKeyWithout(op.permission);
    const input = await options.validInput(harness);
    for (const via of vias) {
      await expectRefusal(harness, { via, op: name, input, authorization: bearerOf(key), kind: "forbidden", detail });
    }
  });

  it("checks the permission before validating: a bad request from a key without it is 403, not 400", async () => {
    const { key } = await harness.seed.rootKeyWithout(op.permission);
    for (const via of vias) {
      const bad = via === "v2" || via === "v1" ? options.badInputs.rest : options.badInputs.rpc;
      for (const input of bad) {
        if (via === "v1" && op.v1?.verb === "GET" && typeof input === "string") continue;
        await expectRefusal(harness, { via, op: name, input, authorization: bearerOf(key), kind: "forbidden", detail });
      }
    }
  });
}
