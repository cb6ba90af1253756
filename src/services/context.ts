import type { DescMessage, DescMethodUnary, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { KeywardError } from "../domain/errors.js";
import { grantedResourceIds, satisfies, type Requirement } from "../domain/permissions.js";

/** The authenticated caller: a live root key of one workspace. */
export interface Principal {
  workspaceId: string;
  rootKeyId: string;
  permissions: ReadonlySet<string>;
}

/** The transport's view of where a request came from; read only by operations that record it (the audit log). */
export interface RequestOrigin {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  socket?: { remoteAddress?: string } | null;
}

/** What every operation receives besides its request. Public operations get no principal. */
export interface CallContext {
  principal: Principal;
  requestId: string;
  origin?: RequestOrigin;
}

/**
 * The one authorization check: passes when the principal holds `type.*.action` or `type.<id>.action`;
 * otherwise a 403 that names the permission to grant.
 */
export function authorize(principal: Principal, need: Requirement): void {
  if (satisfies(principal.permissions, need)) return;
  const wildcard = `${need.resourceType}.*.${need.action}`;
  const named = need.resourceId ? ` or ${need.resourceType}.${need.resourceId}.${need.action}` : "";
  throw new KeywardError("forbidden", `Missing permission: ${wildcard}${named}`, {
    reason: "INSUFFICIENT_PERMISSIONS",
  });
}

/**
 * Authorization of a listing: undefined (no narrowing) when the principal holds `type.*.action`, else exactly the
 * ids its `type.<id>.action` grants name; a 403 like `authorize` when it holds neither. The store narrows the listing
 * by these ids, so paging stays keyset over what the caller may see.
 */
export function listableIds(principal: Principal, resourceType: string, action: string): string[] | undefined {
  const granted = grantedResourceIds(principal.permissions, resourceType, action);
  if (granted === "all") return undefined;
  if (granted.length === 0) authorize(principal, { resourceType, action });
  return granted;
}

type UnaryMethods<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends DescMethodUnary<infer I, infer O> ? [I, O] : never;
};

/** One handler per RPC of a service: request message in, response init out. Transports wrap these. */
export type ServiceHandlers<S extends DescService> = {
  [K in keyof UnaryMethods<S>]: UnaryMethods<S>[K] extends [infer I extends DescMessage, infer O extends DescMessage]
    ? (request: MessageShape<I>, context: CallContext) => Promise<MessageInitShape<O>>
    : never;
};
