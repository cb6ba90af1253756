import type { DescMessage, DescService } from "@bufbuild/protobuf";
import { AUDIT_ACTIONS, changesState, DOCUMENT_CHANGES_ONLY } from "../../domain/audit-actions.js";
import type { Clock } from "../../domain/clock.js";
import type { AddressRange } from "../../domain/ip-allow-list.js";
import { monotonicIds, type RandomBytes } from "../../domain/ids.js";
import { auditedDocuments, type AuditScope } from "../../store/audit/audited-documents.js";
import type { AuditLogStore, AuditResource } from "../../store/ports/audit.js";
import type { CounterStore } from "../../store/ports/counters.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { Operation } from "../operation.js";
import { clientAddressOf, type CallContext, type RequestOrigin } from "../context.js";
import { gatedCounters } from "../gated-counters.js";

/**
 * Makes a service's handlers over given stores: the shared ones, or one call's views of them (audited documents,
 * and both gated by the call's deadline). A service that writes counters must take them from here, not its deps.
 */
export type ServiceFactory = (documents: DocumentStore, counters: CounterStore) => object;

/** The key of an RPC in AUDIT_ACTIONS. */
export const rpcName = (operation: Operation): string => `${operation.method.parent.typeName}.${operation.method.name}`;

/** Opens the audit scope of one call: each document write through its view is recorded as `action` of the call. */
export type AuditScopes = (context: CallContext, action: string) => AuditScope;

/**
 * The process's audit scopes: records by the call's root key, with its request id and client, ids in write order. The
 * client's address is the one a trusted proxy forwarded (KEYWARD_TRUSTED_PROXIES), as for IP allow-lists.
 */
export function auditScopes(deps: {
  documents: DocumentStore;
  auditLogs: AuditLogStore;
  clock: Clock;
  randomBytes: RandomBytes;
  trustedProxies?: readonly AddressRange[];
}): AuditScopes {
  const auditId = monotonicIds("log", deps.randomBytes);
  return (context, action) =>
    auditedDocuments(deps.documents, deps.auditLogs, {
      workspaceId: context.principal.workspaceId,
      actor: context.principal.rootKeyId,
      action,
      requestId: context.requestId,
      ...clientOf(context.origin, deps.trustedProxies ?? []),
      gate: context.commit,
      newRecord: () => {
        const time = deps.clock.now();
        return { id: auditId(time), time };
      },
    });
}

/**
 * Wraps every state-changing operation so that each of its document writes carries an audit record (same commit
 * on the embedded store). Such a call gets a fresh service instance over an audited view of the documents: the
 * factories are cheap and keep no state of their own (caches come in through their deps), and reads, verification
 * and rate-limit checks are left exactly as they were, off this path. A change the documents do not see (credits
 * live in the counters) still gets one record, naming the resources the request names.
 * This is also the one place where management writes meet the call's deadline: with one, every write of both views
 * (documents and counters) first passes the call's commit gate, so a call whose deadline has passed writes nothing.
 * Throws when a state-changing RPC has no audit action.
 */
export function auditOperations(
  operations: Operation[],
  deps: { factories: ReadonlyMap<DescService, ServiceFactory>; scopes: AuditScopes; counters: CounterStore },
): Operation[] {
  return operations.map((operation) => {
    if (!changesState(operation.access)) return operation;
    const action = AUDIT_ACTIONS[rpcName(operation)];
    if (!action) throw new Error(`${rpcName(operation)} changes state but has no audit action (src/domain/audit-actions.ts)`);
    const factory = deps.factories.get(operation.method.parent);
    if (!factory) throw new Error(`${rpcName(operation)}: no service factory to audit it with`);
    const { localName, input } = operation.method;
    const fallback = !DOCUMENT_CHANGES_ONLY.has(rpcName(operation));
    const handler = async (request: never, context: CallContext) => {
      const scope = deps.scopes(context, action);
      const counters = context.commit ? gatedCounters(deps.counters, context.commit) : deps.counters;
      const service = factory(scope.documents, counters) as Record<string, (request: never, context: CallContext) => Promise<unknown>>;
      const result = await service[localName](request, context);
      if (fallback && scope.recorded() === 0) await scope.record(resourcesNamedBy(input, request));
      return result;
    };
    return { ...operation, handler };
  });
}

/**
 * Where a request came from, as far as the transport knows: the client's address (its peer's, or what a trusted proxy
 * forwarded; left out when unknown) and user agent. Never throws.
 */
export function clientOf(origin: RequestOrigin | undefined, trustedProxies: readonly AddressRange[]): { remoteAddress?: string; userAgent?: string } {
  if (!origin) return {};
  const agent = origin.headers["user-agent"];
  const userAgent = Array.isArray(agent) ? agent[0] : agent;
  const remoteAddress = clientAddressOf(origin, trustedProxies);
  return {
    ...(remoteAddress !== undefined && { remoteAddress }),
    ...(userAgent !== undefined && { userAgent: userAgent.slice(0, 512) }),
  };
}

/** `key_id: "key_1"` → `{type: "key", id: "key_1"}`: the resources a request names by its id fields. */
export function resourcesNamedBy(schema: DescMessage, request: Record<string, unknown>): AuditResource[] {
  const resources: AuditResource[] = [];
  for (const field of schema.fields) {
    const value = request[field.localName];
    if (field.name.endsWith("_id") && typeof value === "string" && value !== "") {
      resources.push({ type: field.name.slice(0, -3).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), id: value });
    }
  }
  return resources;
}
