import { it } from "vitest";
import { expectKeysUnchanged } from "./key-state.js";
import { OPERATIONS, viasOf, type OperationName, type Via } from "./operations.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

/** A seeded key the request addresses: its id and its secret (whoami names a key by its secret). */
export interface TargetKey {
  apiId: string;
  keyId: string;
  key: string;
}

export interface KeyScopeOptions {
  /** The action the operation checks on the key's api, e.g. `read_key`. */
  action: string;
  /** A request for `target` that succeeds with the bootstrap key on `via` (v1 may name fields its own way). */
  input: (target: TargetKey, via: Via) => Record<string, unknown>;
  /** Fields the seeded key is created with (v2 createKey JSON); e.g. credits for updateCredits. */
  keyFields?: Record<string, unknown>;
}

/** The shared pieces: the operation's transports, a fresh target key in its own api, and one checked refusal. */
function scoped(harness: Harness, name: OperationName, options: KeyScopeOptions) {
  const op = OPERATIONS[name];
  const vias = viasOf(op);
  const seedTarget = async (apiName: string): Promise<TargetKey> => {
    const apiId = await harness.seed.api({ name: apiName });
    const { keyId, key } = await harness.seed.key(apiId, { name: "target", ...options.keyFields });
    return { apiId, keyId, key };
  };
  const refuse = async (target: TargetKey, via: Via, rootKey: string, kind: "forbidden" | "not_found", detail: string) =>
    expectKeysUnchanged(harness, { apiIds: [target.apiId], keyIds: [target.keyId] }, () =>
      expectRefusal(harness, { via, op: name, input: options.input(target, via), authorization: bearerOf(rootKey), kind, detail }));
  return { vias, seedTarget, refuse };
}

/**
 * Registers the 403 scope case of an operation on one key, on every transport: a root key holding the action only
 * for another api gets 403 naming both grants that would do, and the key and its api's keys stay as they were.
 */
export function keyForbiddenCases(harness: Harness, name: OperationName, options: KeyScopeOptions): void {
  const { vias, seedTarget, refuse } = scoped(harness, name, options);
  it(`answers 403 naming api.*.${options.action} or api.<apiId>.${options.action} to a root key scoped to another api`, async () => {
    const target = await seedTarget("scope-target");
    const otherApi = await harness.seed.api({ name: "scope-other" });
    const { key } = await harness.seed.rootKey([`api.${otherApi}.${options.action}`]);
    for (const via of vias) {
      await refuse(target, via, key, "forbidden", `Missing permission: api.*.${options.action} or api.${target.apiId}.${options.action}`);
    }
  });
}

/**
 * Registers the 404 cases of an operation on one key, on every transport: a key of another workspace (even to a
 * root key naming its api), an unknown key id and a deleted key answer 404, never 403, changing nothing.
 */
export function keyNotFoundCases(harness: Harness, name: OperationName, options: KeyScopeOptions): void {
  const { vias, seedTarget, refuse } = scoped(harness, name, options);
  it("answers 404, never 403, for a key of another workspace, even to a root key naming its api", async () => {
    const target = await seedTarget("home-api");
    const other = await harness.seed.workspace(`scope-${name.replace(".", "-")}`);
    const named = await harness.seed.rootKey([`api.${target.apiId}.${options.action}`], { by: other.rootKey.key });
    for (const rootKey of [other.rootKey.key, named.key]) {
      for (const via of vias) await refuse(target, via, rootKey, "not_found", "does not exist");
    }
  });

  it("answers 404 for a key id that never existed", async () => {
    const target = await seedTarget("unknown-key");
    const unknown = { ...target, keyId: "key_1111111111111111111111", key: "nope_1111111111111111111111" };
    for (const via of vias) {
      await expectKeysUnchanged(harness, { apiIds: [target.apiId], keyIds: [target.keyId] }, () =>
        expectRefusal(harness, {
          via, op: name, input: options.input(unknown, via), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found",
          detail: "does not exist",
        }));
    }
  });

  it("answers 404 for a deleted key", async () => {
    const target = await seedTarget("deleted-key");
    const deleted = await harness.rest.v2("keys.deleteKey", { keyId: target.keyId }, harness.keyward.rootKey);
    if (deleted.status !== 200) throw new Error(`seeding a deleted key failed: ${deleted.status}`);
    for (const via of vias) await refuse(target, via, harness.keyward.rootKey, "not_found", "does not exist");
  });
}
