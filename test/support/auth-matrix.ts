import { allPermissions } from "../../src/domain/permissions.js";
import { it } from "vitest";
import { expectSuccess } from "./expect-outcome.js";
import { callOperation, OPERATIONS, viasOf, type OperationName, type Via } from "./operations.js";
import { expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

export interface AuthMatrixOptions {
  /** A request that would succeed with the bootstrap key: only authentication is wrong. */
  validInput: (harness: Harness) => Promise<Record<string, unknown>>;
  /** Requests that fail validation, per transport family; with no valid root key they must still answer 401. */
  badInputs: { rest: (string | Record<string, unknown>)[]; rpc: Record<string, unknown>[] };
  /** Checks that the resource `validInput` points at is untouched (e.g. the api still exists). */
  unchanged?: (harness: Harness, input: Record<string, unknown>) => Promise<void>;
}

/**
 * Registers the 401 cases of DESIGN.md §3 for one operation on every transport: missing header, malformed
 * header, unknown, deleted and expired root keys, and authentication before validation. Each case asserts the
 * dialect's error body and that no write reached the store.
 */
export function authMatrix(harness: Harness, name: OperationName, options: AuthMatrixOptions): void {
  const op = OPERATIONS[name];
  const vias = viasOf(op);

  const expect401 = (via: Via, input: unknown, authorization: string | undefined, detail: string) =>
    expectRefusal(harness, { via, op: name, input, authorization, kind: "unauthenticated", detail });

  const headerCases: [string, string | undefined, string][] = [
    ["a missing Authorization header", undefined, "The Authorization header is missing"],
    ["a Basic Authorization header", "Basic x", "The Authorization header is malformed"],
    ["`Bearer` without a key", "Bearer", "The Authorization header is malformed"],
    ["`Bearer` with two tokens", "Bearer a b", "The Authorization header is malformed"],
    ["an unknown root key", "Bearer kw_root_3yZe7d6kFkMnLtBk1oGpTqG1x5Ws", "The root key is unknown or revoked"],
  ];
  for (const [what, authorization, detail] of headerCases) {
    it(`answers 401 to ${what} on ${vias.join(", ")}`, async () => {
      const input = await options.validInput(harness);
      for (const via of vias) await expect401(via, input, authorization, detail);
      await options.unchanged?.(harness, input);
    });
  }

  it("answers 401 to a deleted root key on every transport", async () => {
    const key = await harness.seed.deletedRootKey();
    const input = await options.validInput(harness);
    for (const via of vias) await expect401(via, input, `Bearer ${key}`, "The root key is unknown or revoked");
    await options.unchanged?.(harness, input);
  });

  it("answers 401 to a root key created with `expires` in the past on every transport", async () => {
    const key = await harness.seed.expiredRootKey();
    const input = await options.validInput(harness);
    for (const via of vias) await expect401(via, input, `Bearer ${key}`, "The root key has expired");
    await options.unchanged?.(harness, input);
  });

  it("accepts a root key until its expiry and answers 401 from the expiry instant on", async () => {
    const expires = harness.clock.now() + 60_000;
    const { key } = await harness.seed.rootKey(allPermissions(), { expires });
    // Before expiry the key authenticates: the same read-only probe passes on every transport.
    const probe = OPERATIONS["rootKeys.listRootKeys"];
    for (const via of viasOf(probe)) {
      expectSuccess(await callOperation(harness.keyward.baseUrl, via, probe, { limit: 1 }, { authorization: `Bearer ${key}` }));
    }
    const input = await options.validInput(harness);
    harness.clock.set(expires);
    for (const via of vias) await expect401(via, input, `Bearer ${key}`, "The root key has expired");
    await options.unchanged?.(harness, input);
  });

  it("authenticates before validating: a bad request without a valid root key is 401, not 400", async () => {
    for (const via of vias) {
      const bad = via === "v2" || via === "v1" ? options.badInputs.rest : options.badInputs.rpc;
      for (const input of bad) {
        // v1 GET routes take their input from the query string: only object inputs apply there.
        if (via === "v1" && op.v1?.verb === "GET" && typeof input === "string") continue;
        await expect401(via, input, undefined, "The Authorization header is missing");
        await expect401(via, input, "Bearer kw_root_unknown_key_1234", "The root key is unknown or revoked");
      }
    }
  });
}
