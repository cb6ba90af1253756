import { expect, it } from "vitest";
import { allPermissions } from "../../src/domain/permissions.js";
import { authMatrix } from "./auth-matrix.js";
import { forbiddenMatrix } from "./forbidden-matrix.js";
import { OPERATIONS, viasOf, type OperationName } from "./operations.js";
import { namespaceRef, seedNamespace, seedOverride } from "./ratelimit.js";
import { bearerOf, expectRefusal } from "./refusal.js";
import type { Harness } from "./use-keyward.js";

type OverrideOp = "ratelimit.setOverride" | "ratelimit.getOverride" | "ratelimit.listOverrides" | "ratelimit.deleteOverride";

/** A valid input of `op` for an override `identifier` of the namespace `name` (which must exist). */
function inputOf(op: OverrideOp, name: string, identifier: string): Record<string, unknown> {
  if (op === "ratelimit.setOverride") return { namespace: name, identifier, limit: 3, duration: 60_000 };
  if (op === "ratelimit.listOverrides") return { namespace: name };
  return { namespace: name, identifier };
}

/** RPC requests of `op` that fail validation. */
function badRpc(op: OverrideOp): Record<string, unknown>[] {
  return op === "ratelimit.listOverrides" ? [{ namespace: "n", limit: 0 }] : [{ namespace: "n", identifier: "" }];
}

/** Seeds a namespace with an override of `identifier` and returns a valid input for `op` on it. */
async function seeded(harness: Harness, op: OverrideOp, label: string): Promise<Record<string, unknown>> {
  const name = `${label}-${Math.random().toString(36).slice(2, 8)}`;
  await seedNamespace(harness, name);
  await seedOverride(harness, name, "target", 3);
  return inputOf(op, name, "target");
}

/** The 401 matrix of an override operation; the seeded override is still there afterwards. */
export function overrideAuthMatrix(harness: Harness, op: OverrideOp): void {
  authMatrix(harness, op, {
    validInput: (h) => seeded(h, op, "auth"),
    badInputs: { rest: ["{not json", "[]", { identifier: 5 }], rpc: badRpc(op) },
    unchanged: async (h, input) => {
      const namespace = await h.keyward.documents.ratelimitNamespaces.findByName(h.keyward.workspaceId, input.namespace as string);
      expect(await h.keyward.documents.ratelimitOverrides.get(h.keyward.workspaceId, namespace!.id, "target")).toMatchObject({ limit: 3 });
    },
  });
}

/**
 * The 403 cases of an override operation: the generic matrix, and a grant for one namespace that answers 403 in
 * another naming both grants.
 */
export function overrideForbiddenMatrix(harness: Harness, op: OverrideOp): void {
  const permission = OPERATIONS[op].permission;
  const action = permission.split(".")[2];
  forbiddenMatrix(harness, op, {
    validInput: (h) => seeded(h, op, "forbidden"),
    badInputs: { rest: ["{not json", "[]", { identifier: 5 }], rpc: [...badRpc(op), {}] },
  });

  it(`a grant of ${action} for namespace A answers 403 in namespace B, naming both grants`, async () => {
    const a = await seeded(harness, op, "granted");
    const b = await seeded(harness, op, "denied");
    const idOf = async (name: unknown) =>
      (await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, name as string))!.id;
    const [idA, idB] = [await idOf(a.namespace), await idOf(b.namespace)];
    const { key } = await harness.seed.rootKey([`ratelimit.${idA}.${action}`]);
    for (const via of viasOf(OPERATIONS[op])) {
      const { namespace: _, ...rest } = b;
      await expectRefusal(harness, {
        via, op, input: { ...rest, ...namespaceRef(via, b.namespace as string) }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: ratelimit.*.${action} or ratelimit.${idB}.${action}`,
      });
    }
  });
}

/** 404 cases shared by the override operations: an unknown namespace, and one of another workspace. */
export function overrideNamespaceNotFound(harness: Harness, op: OverrideOp): void {
  it("an unknown namespace answers 404 naming it, on every transport, and is not created", async () => {
    for (const via of viasOf(OPERATIONS[op])) {
      const { namespace: _, ...rest } = inputOf(op, "x", "target");
      await expectRefusal(harness, {
        via, op: op as OperationName, input: { ...rest, ...namespaceRef(via, "no-such-namespace") },
        authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: "no-such-namespace",
      });
    }
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "no-such-namespace")).toBeUndefined();
  });

  it("a namespace of another workspace answers 404 by id and by name, even to a key granted its id", async () => {
    const input = await seeded(harness, op, "home");
    const namespace = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, input.namespace as string);
    const other = await harness.seed.workspace(`other-${op}`);
    const action = OPERATIONS[op].permission.split(".")[2];
    const named = await harness.seed.rootKey([`ratelimit.${namespace!.id}.${action}`, ...allPermissions().filter((p) => p.startsWith("ratelimit.*.") && !p.endsWith(action))], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(OPERATIONS[op])) {
        const { namespace: _, ...rest } = input;
        for (const ref of [namespaceRef(via, input.namespace as string), namespaceRef(via, "", namespace!.id)]) {
          await expectRefusal(harness, { via, op, input: { ...rest, ...ref }, authorization: bearerOf(key), kind: "not_found" });
        }
      }
    }
  });
}
