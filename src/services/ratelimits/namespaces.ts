import type { Clock } from "../../domain/clock.js";
import { invalid, notFound } from "../../domain/errors.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { RatelimitNamespaceRecord } from "../../store/ports/ratelimits.js";
import { NAMESPACE_CREATE_ACTION } from "../../domain/audit-actions.js";
import type { AuditScopes } from "../audit/audited-operations.js";
import { authorize, type CallContext, type Principal } from "../context.js";
import type { LimitConfigCache } from "./limit-config-cache.js";

export interface NamespaceDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  limitCache: LimitConfigCache;
  /** Namespaces created by a limit call are written through the call's audit scope. */
  audit: AuditScopes;
}

const NAMESPACE_ID = /^rlns_[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * The namespace a request names: by id when `ref` is the id of one of the workspace's namespaces, else by name.
 * Undefined when neither exists (a namespace of another workspace is as unknown as a missing one).
 */
export function findNamespace(deps: NamespaceDeps, workspaceId: string, ref: string): Promise<RatelimitNamespaceRecord | undefined> {
  return deps.limitCache.namespace(workspaceId, ref, async () => {
    if (NAMESPACE_ID.test(ref)) {
      const byId = await deps.documents.ratelimitNamespaces.get(workspaceId, ref);
      if (byId) return byId;
    }
    return deps.documents.ratelimitNamespaces.findByName(workspaceId, ref);
  });
}

/** The namespace of an override operation: v2 `namespace`, else v1 `namespaceId` or `namespaceName`; 400 when none. */
export function namespaceRefOf(request: { namespace: string; namespaceId?: string; namespaceName?: string }): string {
  const ref = request.namespace || request.namespaceId || request.namespaceName;
  if (!ref) {
    throw invalid("Name the namespace: namespace (v2), or namespaceId or namespaceName (v1).", [
      { location: "namespace", message: "a namespace id or name is required" },
    ]);
  }
  return ref;
}

/** An existing namespace for an override operation, checked for `ratelimit.<id>.<action>`; 404 when unknown. */
export async function loadNamespaceFor(deps: NamespaceDeps, principal: Principal, ref: string, action: string): Promise<RatelimitNamespaceRecord> {
  const namespace = await findNamespace(deps, principal.workspaceId, ref);
  if (!namespace) throw notFound(`The namespace ${ref} does not exist.`);
  authorize(principal, { resourceType: "ratelimit", action, resourceId: namespace.id });
  return namespace;
}

/**
 * The namespaces a limit call names, by ref, each checked for `limit`. Unknown ones are created on first use,
 * which needs `ratelimit.*.create_namespace` (and `ratelimit.*.limit`, as no id can be granted yet); a ref shaped like
 * a namespace id that names none is 404, never created as a name. Every check
 * runs before the first creation, so a refused call creates nothing. Two first uses at once create one namespace:
 * the loser of the insert reads the winner's. A creation is audited (`ratelimitNamespace.create`); the limit call is not.
 */
export async function namespacesForLimit(
  deps: NamespaceDeps,
  call: CallContext,
  refs: readonly string[],
): Promise<Map<string, RatelimitNamespaceRecord>> {
  const { principal } = call;
  const found = new Map<string, RatelimitNamespaceRecord | undefined>();
  for (const ref of new Set(refs)) {
    const namespace = await findNamespace(deps, principal.workspaceId, ref);
    if (namespace) authorize(principal, { resourceType: "ratelimit", action: "limit", resourceId: namespace.id });
    // An unknown id is a mistake (or another workspace's namespace), not a name to create.
    else if (NAMESPACE_ID.test(ref)) throw notFound(`The namespace ${ref} does not exist.`);
    else {
      authorize(principal, { resourceType: "ratelimit", action: "create_namespace" });
      authorize(principal, { resourceType: "ratelimit", action: "limit" });
    }
    found.set(ref, namespace);
  }
  const resolved = new Map<string, RatelimitNamespaceRecord>();
  for (const [ref, namespace] of found) resolved.set(ref, namespace ?? (await createNamespace(deps, call, ref)));
  return resolved;
}

async function createNamespace(deps: NamespaceDeps, call: CallContext, name: string): Promise<RatelimitNamespaceRecord> {
  const { workspaceId } = call.principal;
  const now = deps.clock.now();
  const record: RatelimitNamespaceRecord = { id: newId("rlns", now, deps.randomBytes), workspaceId, name, createdAt: now };
  try {
    await deps.audit(call, NAMESPACE_CREATE_ACTION).documents.ratelimitNamespaces.insert(record);
    return record;
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
    const winner = await deps.documents.ratelimitNamespaces.findByName(workspaceId, name);
    if (!winner) throw error;
    return winner;
  }
}
