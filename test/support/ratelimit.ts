import type { Harness } from "./use-keyward.js";
import { expectSuccess } from "./expect-outcome.js";
import { callOperation, OPERATIONS, type OperationName, type Via } from "./operations.js";

/**
 * A payload as plain JSON whatever carried it: RPC messages lose `$typeName` and turn int64 bigints into numbers,
 * so one expectation fits REST and RPC alike.
 */
export function plain(value: unknown): any {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).filter(([k, v]) => k !== "$typeName" && v !== undefined).map(([k, v]) => [k, plain(v)]),
    );
  }
  return value;
}

/** Calls `op` over `via` with the bootstrap root key (or `rootKey`) and returns the plain payload; fails the test otherwise. */
export async function okVia(harness: Harness, via: Via, op: OperationName, input: unknown, rootKey = harness.keyward.rootKey): Promise<any> {
  return plain(expectSuccess(await callOperation(harness.keyward.baseUrl, via, OPERATIONS[op], input, { authorization: `Bearer ${rootKey}` })));
}

/** Creates a namespace by first use (a cost-0 limit call) and returns its id. */
export async function seedNamespace(harness: Harness, name: string): Promise<string> {
  await okVia(harness, "v2", "ratelimit.limit", { namespace: name, identifier: "seed", limit: 1, duration: 60_000, cost: 0 });
  const namespace = await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, name);
  if (!namespace) throw new Error(`namespace ${name} was not created`);
  return namespace.id;
}

/** Sets an override over v2 and returns its id. */
export async function seedOverride(harness: Harness, namespace: string, identifier: string, limit: number, duration = 60_000): Promise<string> {
  return (await okVia(harness, "v2", "ratelimit.setOverride", { namespace, identifier, limit, duration })).overrideId;
}

/** How `via` names a namespace in override operations: v1 by `namespaceName` (or `namespaceId`), the others by `namespace`. */
export function namespaceRef(via: Via, name: string, id?: string): Record<string, string> {
  if (via !== "v1") return { namespace: id ?? name };
  return id ? { namespaceId: id } : { namespaceName: name };
}
